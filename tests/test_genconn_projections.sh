#!/usr/bin/env bash
# olive-genconn --projections FILE (a SPEC a line) and --merge-projections
# (one stored projection per receptor), what the multi-area model's
# thousands of projections need (examples/multiarea):
# - a file of SPECs (comments, blank lines, CRLF) gives the very network of
#   the same --projection options: every /synapses dataset equal;
# - merged: one projection per receptor, each row the same multiset of
#   (source, weight, delay) as the separate projections' rows, sources
#   ascending, every synapse's weight and delay kept;
# - olive-simulate gives the merged and the separate networks the same
#   spikes, v and final state, bit for bit (a target's events are summed
#   in the order of their sources, whatever projection holds them), and
#   so does --order-free-sums;
# - a bad line is refused naming the file and its line, with no output.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
POPS=(--model lif_cuba --population e1:300 --population i1:80 --population e2:200 --param I_e=0 --v0 -65:-50 --seed 5)
SPECS=(
  "from=e1,to=e1,total=6000,weight=normal:0.4:0.04:0:inf,delay=normal:1.5:0.75:0.1:inf,receptor=ge"
  "from=i1,to=e1,indegree=20,weight=normal:1.6:0.16:0:inf,delay=0.8,receptor=gi"
  "from=e2,to=e1,total=2000,weight=0.3,delay=normal:4:2:0.1:inf,receptor=ge"
  "from=e1,to=i1,p=0.05,weight=0.5:0.7,delay=1,receptor=ge"
  "from=e1,to=e2,outdegree=10,weight=normal:0.4:0.04:0:inf,delay=normal:6:3:0.1:inf,receptor=ge"
  "from=i1,to=e2,total=1500,weight=normal:1.6:0.16:0:inf,delay=normal:0.75:0.375:0.1:inf,receptor=gi"
)
ARGS=()
for s in "${SPECS[@]}"; do ARGS+=(--projection "$s"); done
"$G" -q -o sep.h5 "${POPS[@]}" "${ARGS[@]}"
{ echo "# six projections"; echo; for s in "${SPECS[@]:0:3}"; do echo "  $s   # a comment"; done; echo -e "${SPECS[3]}\r";
  for s in "${SPECS[@]:4}"; do echo "$s"; done; } > specs.txt
"$G" -q -o file.h5 "${POPS[@]}" --projections specs.txt
"$G" -q -o merged.h5 "${POPS[@]}" --projections specs.txt --merge-projections
"$PY" - <<'PYEOF' || fail "the file's or the merged network is not the options' network"
import h5py, numpy as np
sep, fil, mer = h5py.File("sep.h5"), h5py.File("file.h5"), h5py.File("merged.h5")
names = [k for k in sep["synapses"] if isinstance(sep["synapses"][k], h5py.Group)]
assert len(names) == 6, names
for k in names:
    a, b = sep["synapses"][k], fil["synapses"][k]
    assert sorted(a.keys()) == sorted(b.keys()), k
    for d in a.keys():
        assert np.array_equal(a[d][:], b[d][:]), (k, d)
    for at in ("receptor", "source", "target", "weight", "delay"):
        if at in a.attrs: assert a.attrs[at] == b.attrs[at], (k, at)
merged = {k: g for k, g in mer["synapses"].items() if isinstance(g, h5py.Group)}
assert sorted(merged) == ["ge", "gi"], sorted(merged)
dt = float(sep["synapses"].attrs["dt"])
def rows(g, n):
    rp, col = g["row_ptr"][:], g["col"][:]
    w = g["weight"][:] if "weight" in g else np.full(len(col), float(g.attrs["weight"]))
    d = g["delay"][:] if "delay" in g else np.full(len(col), int(g.attrs["delay"]))
    return [sorted(zip(col[rp[j]:rp[j + 1]].tolist(), w[rp[j]:rp[j + 1]].tolist(), d[rp[j]:rp[j + 1]].tolist()))
            for j in range(n)]
n = 580
for rec in ("ge", "gi"):
    want = [[] for _ in range(n)]
    for k in names:
        g = sep["synapses"][k]
        r = g.attrs["receptor"]; r = r.decode() if isinstance(r, bytes) else r
        if r != rec: continue
        for j, row in enumerate(rows(g, n)): want[j] += row
    m = merged[rec]
    got = rows(m, n)
    assert all(sorted(want[j]) == got[j] for j in range(n)), rec
    rp, col = m["row_ptr"][:], m["col"][:]
    assert all((np.diff(col[rp[j]:rp[j + 1]]) >= 0).all() for j in range(n)), "sources not ascending"
    print(f"{rec}: {rp[-1]} synapses, the separate projections' rows")
PYEOF
IN=(--time 300 --record v --record-precision double --poisson rate=20,weight=0.5,receptor=ge,n=20)
for opt in "" --order-free-sums; do
  "$S" -q sep.h5 -o "run_sep$opt" "${IN[@]}" $opt
  "$S" -q merged.h5 -o "run_mer$opt" "${IN[@]}" $opt
  n=$("$PY" -c "import h5py; f = h5py.File('run_sep$opt/spikes.h5'); print(sum(len(g['timestamps']) for g in f['spikes'].values()))")
  [ "$n" -gt 1000 ] || fail "only $n spikes: the run says little"
  "$BIN/olive-analyze" compare "run_sep$opt" "run_mer$opt" --tolerance 0 > cmp.txt || { cat cmp.txt >&2; fail "merged and separate runs differ ($opt)"; }
  echo "merged = separate ${opt:-(plain)}: $n spikes, state and v identical"
done
# refusals: the file and its line named, no output
bad() {   # NAME EXPECTED-TEXT LINE...
  local name=$1 want=$2; shift 2
  printf '%s\n' "$@" > "$name.txt"
  if "$G" -q -o "$name.h5" "${POPS[@]}" --projections "$name.txt" 2> "$name.err"; then fail "$name accepted"; fi
  grep -qF -- "$want" "$name.err" || { cat "$name.err" >&2; fail "$name: expected '$want'"; }
  [ ! -e "$name.h5" ] || fail "$name left $name.h5"
}
bad badpop "--projections badpop.txt line 3: --projection from=e9" "# x" "${SPECS[0]}" "from=e9,to=e1,total=5,weight=1,delay=1,receptor=ge"
bad blank "--projections blank.txt line 1: a blank inside" "from=e1, to=e1,total=5,weight=1,delay=1,receptor=ge"
bad dup "--projections dup.txt line 2: --projection" "${SPECS[0]}" "${SPECS[0]}"
bad norule "--projections norule.txt line 1" "from=e1,to=e1,weight=1,delay=1,receptor=ge"
if "$G" -q -o x.h5 "${POPS[@]}" --projections nosuch.txt 2> nf.err; then fail "a missing file accepted"; fi
grep -q "nosuch.txt: cannot open" nf.err || { cat nf.err >&2; fail "missing file: no message"; }
if "$G" -q -o x.h5 "${POPS[@]}" --projections specs.txt --merge-projections --procedural 2> mp.err; then fail "merge + procedural accepted"; fi
grep -q "leave out --procedural" mp.err || { cat mp.err >&2; fail "merge + procedural: no message"; }
[ ! -e x.h5 ] || fail "a refused run left x.h5"
echo "refusals name the file and line"
# total_out=N (NEST's fixed_total_number drawn source by source, the rule the
# CUDA engine can draw at each spike): exactly N synapses, every source's
# count the multinomial's (mean N / sources, variance N / s (1 - 1/s)),
# targets uniform; the procedural file runs as the stored one and on 2 ranks
# bit for bit; autapses=no refused by name.
TOP=(--model lif_cuba --population e:400 --population i:100 --param I_e=0 --v0 -65:-50 --seed 3
     --projection "from=e,to=all,total_out=200000,weight=normal:0.04:0.004:0:inf,delay=normal:1.5:0.75:0.1:inf,receptor=ge"
     --projection "from=i,to=e,total_out=8000,weight=1.5,delay=0.5:2,receptor=gi")
"$G" -q -o tout.h5 "${TOP[@]}"
"$G" -q -o toutp.h5 "${TOP[@]}" --procedural
"$PY" - <<'PYEOF' || fail "total_out's synapses are not a fixed total's"
import h5py, numpy as np
s = h5py.File("tout.h5")["synapses"]
g = s["e_to_all"]
rp, col = g["row_ptr"][:], g["col"][:]
assert rp[-1] == 200000 and s["i_to_e"]["row_ptr"][-1] == 8000
out = np.bincount(col, minlength=400)[:400]
n, k = 400, 200000
m, v = out.mean(), out.var(ddof=1)
assert m == k / n, m
assert abs(v / (k / n * (1 - 1 / n)) - 1) < 0.25, v          # multinomial's variance (sd of the ratio ~0.07)
indeg = np.diff(rp)
assert abs(indeg.mean() - k / 500) < 1e-9 and abs(indeg.var(ddof=1) / (k / 500) - 1) < 0.25, indeg.var()
d = g["delay"][:]
assert d.min() >= 1 and abs(d.mean() - 15.54) < 0.08, d.mean()   # normal(1.5, 0.75) kept above 0.1: mean 1.554 ms
print(f"total_out: {k} synapses, source counts mean {m:g} var {v:.1f} (multinomial {k / n * (1 - 1 / n):.1f}), in-degrees var {indeg.var(ddof=1):.1f}")
PYEOF
IN=(--time 200 --poisson rate=20,weight=0.5,receptor=ge,n=20)
"$S" -q tout.h5 -o tout_s "${IN[@]}"
"$S" -q toutp.h5 -o tout_p "${IN[@]}"
mpirun -np 2 "$S" -q toutp.h5 -o tout_p2 "${IN[@]}"
for r in tout_p tout_p2; do
  "$BIN/olive-analyze" compare tout_s $r --tolerance 0 > cmp.txt || { cat cmp.txt >&2; fail "total_out: $r differs from the stored file's run"; }
done
echo "total_out: the procedural file (1 and 2 ranks) runs as the stored one"
if "$G" -q -o x.h5 "${POPS[@]}" --projection "from=e1,to=e1,total_out=50,weight=1,delay=1,receptor=ge,autapses=no" 2> ta.err; then
  fail "total_out with autapses=no accepted"; fi
grep -q "total_out with autapses=no" ta.err && [ ! -e x.h5 ] || { cat ta.err >&2; fail "total_out autapses=no: no message"; }

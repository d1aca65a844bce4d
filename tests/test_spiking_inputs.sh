#!/usr/bin/env bash
# Spiking networks: what olive-genconn's synapse generators produce, and bad
# input refused with a message naming the fault and nothing left behind.
# - p: every ordered pair once, the count within 5 sigma of Binomial(pairs, p);
#   indegree K: exactly K per target of the target population, none elsewhere;
#   total N: exactly N; autapses=no: no synapse onto its own source; weights
#   and delays inside their ranges; v0 inside its range; the same seed gives
#   the same datasets, another seed others; normal weights and delays: sample
#   moments within 5 standard errors, truncation bounds kept exactly, the
#   same synapses on 1 and 3 ranks;
# - normal:... with SD < 0, LOW >= HIGH, a delay that can be <= 0 ms or a
#   truncation that keeps almost nothing; negative delays, negative conductance weights, unknown models and
#   receptors, delays beyond the 65535-step buffer, in genconn options and in
#   files written by hand (h5py), and options that do not apply to a model;
# - ms -> steps: 6553.5 ms at dt 0.1 is 65535 steps (accepted), 6553.6 ms
#   refused; a Poisson start or a spike time of 1e20 ms never fires; --time
#   and a SONATA delay beyond their limits refused naming the field;
# - memory: a 1 ms run with 65534-step delays fits in 64 MiB (the ring is
#   sized by the run); 2^31 - 1 cells and p=1 over 1e6 cells refused under
#   OLIVE_MEMAVAILABLE before any big allocation.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
"$G" -q -o a.h5 --model lif_cuba --population exc:3000 --population inh:1000 --v0 -65:-52 --seed 7 \
    --projection from=exc,to=all,p=0.02,weight=1:2,delay=0.3:4.9,receptor=ge \
    --projection from=inh,to=exc,indegree=25,weight=-9,delay=0.5,receptor=gi,autapses=no \
    --projection from=all,to=inh,total=12345,weight=0.5,delay=0,receptor=ge,name=bg,autapses=no
"$G" -q -o b.h5 --model lif_cuba --population exc:3000 --population inh:1000 --v0 -65:-52 --seed 7 \
    --projection from=exc,to=all,p=0.02,weight=1:2,delay=0.3:4.9,receptor=ge \
    --projection from=inh,to=exc,indegree=25,weight=-9,delay=0.5,receptor=gi,autapses=no \
    --projection from=all,to=inh,total=12345,weight=0.5,delay=0,receptor=ge,name=bg,autapses=no
"$G" -q -o c.h5 --model lif_cuba --population exc:3000 --population inh:1000 --v0 -65:-52 --seed 8 \
    --projection from=exc,to=all,p=0.02,weight=1:2,delay=0.3:4.9,receptor=ge \
    --projection from=inh,to=exc,indegree=25,weight=-9,delay=0.5,receptor=gi,autapses=no \
    --projection from=all,to=inh,total=12345,weight=0.5,delay=0,receptor=ge,name=bg,autapses=no
"$PY" - <<'PYEOF'
import h5py, numpy as np
def ds(path):
    out = {}
    with h5py.File(path) as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out
a, b, c = ds("a.h5"), ds("b.h5"), ds("c.h5")
assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a), "same seed, different datasets"
assert any(not np.array_equal(a[k], c[k]) for k in a if k in c), "another seed, the same datasets"
with h5py.File("a.h5") as f:
    assert f["cells"].attrs["model"] == b"lif_cuba" or f["cells"].attrs["model"] == "lif_cuba"
    assert f["synapses"].attrs["dt"] == 0.1
    e = f["synapses/exc_to_all"]
    rp, col, w, d = e["row_ptr"][:], e["col"][:], e["weight"][:], e["delay"][:]
    n, pairs, p = len(col), 3000 * 4000, 0.02
    assert abs(n - pairs * p) < 5 * np.sqrt(pairs * p * (1 - p)), n
    assert col.min() >= 0 and col.max() < 3000
    for r in range(4000):
        row = col[rp[r]:rp[r + 1]]
        assert np.all(np.diff(row) > 0), "p: a pair twice or unsorted"
    assert w.min() >= 1 and w.max() < 2 and abs(w.mean() - 1.5) < 0.01, (w.min(), w.max(), w.mean())
    assert d.min() == 3 and d.max() == 49, (d.min(), d.max())   # 0.3..4.9 ms in steps of 0.1
    assert "weight" not in e.attrs and "delay" not in e.attrs
    g = f["synapses/inh_to_exc"]
    rp, col = g["row_ptr"][:], g["col"][:]
    deg = np.diff(rp)
    assert np.all(deg[:3000] == 25) and np.all(deg[3000:] == 0), "indegree"
    assert col.min() >= 3000 and col.max() < 4000
    assert g.attrs["weight"] == -9 and g.attrs["delay"] == 5
    h = f["synapses/bg"]
    rp, col = h["row_ptr"][:], h["col"][:]
    assert len(col) == 12345 and rp[3000] == 0, "total"
    tgt = np.repeat(np.arange(4000), np.diff(rp))
    assert not np.any(tgt == col), "autapses=no left a self synapse"
    assert h.attrs["delay"] == 0
    v0 = np.concatenate([f["cells/populations/exc/v0"][:], f["cells/populations/inh/v0"][:]])
    assert v0.min() >= -65 and v0.max() < -52 and abs(v0.mean() + 58.5) < 0.2
print("generators: counts, ranges and determinism as specified")
PYEOF

# Normal weights and delays (NEST's Potjans_2014 microcircuit: weights
# normal and redrawn beyond their sign, delays normal and redrawn below the
# resolution), by fixed total number: 1e5 synapses each; the same synapse
# datasets on 1 rank and 1 thread as on 3 ranks and 2 threads.
NORM=(--model lif_cuba --population e:4000 --population i:1000 --seed 5 --dt 0.1
    --projection from=e,to=all,total=100000,weight=normal:87.8:8.78,delay=normal:1.5:0.75:0.1:2,receptor=ge,name=ee
    --projection from=i,to=all,total=100000,weight=normal:-351.2:300:-inf:0,delay=normal:0.8:0.4:0.1:inf,receptor=gi,name=ii)
mkdir -p n1 n3
(cd n1 && OMP_NUM_THREADS=1 "$G" -q -o n.h5 "${NORM[@]}")
(cd n3 && OMP_NUM_THREADS=2 mpirun -np 3 --oversubscribe "$G" -q -o n.h5 "${NORM[@]}")
h5diff n1/n.h5 n3/n.h5 /synapses /synapses >diff.txt || { head diff.txt; fail "normal draws: 3 ranks differ from 1"; }
"$PY" - <<'PYEOF'
import h5py, numpy as np
from math import erf, exp, pi, sqrt
def trunc(mu, sd, lo, hi):   # mean and SD of normal(mu, sd) kept in [lo, hi]
    a, b = (lo - mu) / sd, (hi - mu) / sd
    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi) if np.isfinite(x) else 0.0
    Phi = lambda x: 0.5 * (1 + erf(x / sqrt(2))) if np.isfinite(x) else float(x > 0)
    xphi = lambda x: x * phi(x) if np.isfinite(x) else 0.0
    z = Phi(b) - Phi(a)
    m = (phi(a) - phi(b)) / z
    v = 1 + (xphi(a) - xphi(b)) / z - m * m
    return mu + sd * m, sd * sqrt(v)
def close(x, mu, sd, what):   # sample mean and SD within 5 standard errors
    n = len(x)
    assert abs(x.mean() - mu) < 5 * sd / sqrt(n), (what, x.mean(), mu)
    assert abs(x.std() - sd) < 5 * sd / sqrt(2 * n), (what, x.std(), sd)
with h5py.File("n1/n.h5") as f:
    e, i = f["synapses/ee"], f["synapses/ii"]
    assert len(e["col"]) == 100000 and len(i["col"]) == 100000, "total=N is not N synapses"
    assert e["row_ptr"][-1] == 100000 and e["col"][:].max() < 4000 and i["col"][:].min() >= 4000
    we, wi = e["weight"][:], i["weight"][:]
    close(we, 87.8, 8.78, "untruncated weight")
    assert wi.max() <= 0, "weight above its HIGH bound 0"
    close(wi, *trunc(-351.2, 300, -np.inf, 0), "weight redrawn above 0")
    # delays: rounded to steps of 0.1 ms (NEST's grid), bounds kept exactly
    de, di = e["delay"][:], i["delay"][:]
    assert de.min() >= 1 and de.max() <= 20 and di.min() >= 1, (de.min(), de.max(), di.min())
    assert (de == 20).any() and (de == 1).any()
    m, s = trunc(1.5, 0.75, 0.1, 2.0)
    close(de * 0.1, m, sqrt(s * s + 0.01 / 12), "delay in [0.1, 2]")   # + the rounding's variance
    m, s = trunc(0.8, 0.4, 0.1, np.inf)
    close(di * 0.1, m, sqrt(s * s + 0.01 / 12), "delay above 0.1")
print("normal weights and delays: moments within 5 standard errors, bounds kept, rank-invariant")
PYEOF

# Out-degree (the rule NEST names fixed_outdegree): every source exactly K targets, rows
# in (source, draw) order, weights and delays keyed by (source, draw); the
# same datasets on 3 ranks; the procedural form (what the CUDA engine draws
# at each spike) gives the stored one's spikes on 1 and 3 ranks.
ODEG=(--model lif_cuba --population e:800 --population i:200 --seed 11 --v0 -65:-52
    --projection from=e,to=all,outdegree=40,weight=0.5:1.5,delay=normal:1.5:0.75:0.1:inf,receptor=ge,name=ee
    --projection from=i,to=e,outdegree=30,weight=normal:-4:1:-inf:0,delay=0.8,receptor=gi,name=ie,autapses=no)
mkdir -p o1 o3
(cd o1 && "$G" -q -o o.h5 "${ODEG[@]}" && "$G" -q -o p.h5 --procedural "${ODEG[@]}")
(cd o3 && OMP_NUM_THREADS=2 mpirun -np 3 --oversubscribe "$G" -q -o o.h5 "${ODEG[@]}")
h5diff o1/o.h5 o3/o.h5 /synapses /synapses >diff.txt || { head diff.txt; fail "outdegree: 3 ranks differ from 1"; }
"$PY" - <<'PYEOF'
import h5py, numpy as np
with h5py.File("o1/o.h5") as f, h5py.File("o1/p.h5") as p:
    for name, k, s0, s1, t1 in (("ee", 40, 0, 800, 1000), ("ie", 30, 800, 1000, 800)):
        g = f["synapses/" + name]
        rp, col = g["row_ptr"][:], g["col"][:]
        tgt = np.repeat(np.arange(1000), np.diff(rp))
        out = np.bincount(col, minlength=1000)
        assert np.all(out[s0:s1] == k) and out.sum() == k * (s1 - s0), (name, "not K synapses a source")
        assert tgt.max() < t1 and col.min() >= s0 and col.max() < s1, name
        for r in range(1000):
            assert np.all(np.diff(col[rp[r]:rp[r + 1]]) >= 0), (name, "a row out of source order")
        if name == "ie":
            assert not np.any(tgt == col), "autapses=no left a self synapse"
        q = p["synapses/" + name]
        assert q.attrs["procedural"] == b"outdegree" and q.attrs["procedural_n"] == k and len(q) == 0, name
    w = f["synapses/ee/weight"][:]
    assert w.min() >= 0.5 and w.max() < 1.5 and abs(w.mean() - 1.0) < 0.01, w.mean()
    wi = f["synapses/ie/weight"][:]   # normal(-4, 1): the bound 0 is 4 SD away
    assert wi.max() <= 0 and abs(wi.mean() + 4) < 5 / np.sqrt(len(wi)), wi.mean()
    d = f["synapses/ee/delay"][:] * 0.1   # normal(1.5, 0.75) kept above 0.1: mean 1.5 + 0.75 phi(a) / (1 - Phi(a))
    from math import erf, exp, pi, sqrt
    a = (0.1 - 1.5) / 0.75
    mean = 1.5 + 0.75 * exp(-a * a / 2) / sqrt(2 * pi) / (0.5 * (1 - erf(a / sqrt(2))))
    assert d.min() >= 0.1 and abs(d.mean() - mean) < 5 * 0.75 / np.sqrt(len(d)), (d.min(), d.mean(), mean)
print("outdegree: K targets a source, rows in source order, values as specified, rank-invariant")
PYEOF
OIN=(--time 200 --poisson rate=40,weight=2,receptor=ge,n=10)
(cd o1 && "$S" -q o.h5 -o s "${OIN[@]}" && "$S" -q p.h5 -o q "${OIN[@]}" &&
    mpirun -np 3 --oversubscribe "$S" -q p.h5 -o q3 "${OIN[@]}") || fail "outdegree networks did not run"
"$A" compare -q o1/s o1/q || fail "outdegree: the procedural network's spikes differ from the stored one's"
"$A" compare -q o1/s o1/q3 || fail "outdegree: 3 ranks differ from 1"
n=$("$PY" -c "import h5py; print(sum(len(g['node_ids']) for g in h5py.File('o1/s/spikes.h5')['spikes'].values()))")
[ "$n" -gt 500 ] || fail "outdegree: only $n spikes; the test needs an active network"

refused() {  # expected-message command...
  local want=$1; shift
  local out
  if out=$("$@" 2>&1); then fail "accepted: $*"; fi
  grep -q -- "$want" <<< "$out" || fail "message for '$*' lacks '$want': $out"
}
B=(-o bad.h5 --model lif_cuba --cells 100)
refused "delay '-1' is negative" "$G" "${B[@]}" --projection from=all,to=all,p=0.1,weight=1,delay=-1,receptor=ge
refused "cannot be negative" "$G" -o bad.h5 --model lif_coba --cells 100 --projection from=all,to=all,p=0.1,weight=-1,delay=1,receptor=ge
refused "has no receptor 'gx'" "$G" "${B[@]}" --projection from=all,to=all,p=0.1,weight=1,delay=1,receptor=gx
refused "is not lif_cuba, lif_coba, lif_cuba_alpha, lif_coba_alpha, hh_traub, hh_cable, hh_swc or biophys_swc" "$G" -o bad.h5 --model lif_nope --cells 100
refused "delay (the delay buffer) = 7000 ms is 70000 steps of 0.1 ms, outside 0..65535" "$G" "${B[@]}" --projection from=all,to=all,p=0.1,weight=1,delay=7000,receptor=ge
refused "no population 'x'" "$G" "${B[@]}" --projection from=x,to=all,p=0.1,weight=1,delay=1,receptor=ge
refused "autapses=no leaves no target for a source" "$G" -o bad.h5 --model lif_cuba --population a:1 --population b:5 \
    --projection from=a,to=a,outdegree=3,weight=1,delay=1,receptor=ge,autapses=no
refused "not a parameter of lif_cuba" "$G" "${B[@]}" --param g_L=3
NP=from=all,to=all,p=0.1,receptor=ge
refused "weight 'normal:1:-0.5': the standard deviation -0.5 is negative" "$G" "${B[@]}" --projection "$NP,weight=normal:1:-0.5,delay=1"
refused "LOW 2 is not below HIGH 2" "$G" "${B[@]}" --projection "$NP,weight=normal:1:0.5:2:2,delay=1"
refused "must be normal:MEAN:SD or normal:MEAN:SD:LOW:HIGH" "$G" "${B[@]}" --projection "$NP,weight=normal:1:0.5:0,delay=1"
refused "delay 'normal:1.5:0.5' can be <= 0 ms" "$G" "${B[@]}" --projection "$NP,weight=1,delay=normal:1.5:0.5"
refused "delay 'normal:1.5:0.5:0:inf' can be <= 0 ms" "$G" "${B[@]}" --projection "$NP,weight=1,delay=normal:1.5:0.5:0:inf"
refused "only 3.17e-05 of the distribution lies in \\[LOW, HIGH\\]" "$G" "${B[@]}" --projection "$NP,weight=normal:1:0.25:2:inf,delay=1"
refused "delay (the delay buffer) = 7041.5 ms" "$G" "${B[@]}" --projection "$NP,weight=1,delay=normal:7000:5:1:inf"
refused "cannot be negative (give normal:MEAN:SD:0:inf)" "$G" -o bad.h5 --model lif_coba --cells 100 --projection "$NP,weight=normal:2:1,delay=1"
[ ! -e bad.h5 ] || fail "a refused network left bad.h5"

# Files written by hand: each fault named, no output directory left.
"$G" -q -o good.h5 --model lif_coba --cells 50 --projection from=all,to=all,p=0.2,weight=2,delay=0.5:1,receptor=ge
forge() {  # name python-statements (f: the open file)
  cp good.h5 "$1.h5"
  "$PY" -c "import h5py, numpy as np
f = h5py.File('$1.h5', 'r+')
$2
f.close()"
}
g='f["synapses/all_to_all"]'
forge negdelay "n = len($g['col']); del $g['delay']; $g['delay'] = np.full(n, -1, dtype=np.int32)"
forge bigdelay "n = len($g['col']); del $g['delay']; $g['delay'] = np.full(n, 70000, dtype=np.int32)"
forge negweight "$g.attrs['weight'] = -2.0"
forge receptor "$g.attrs['receptor'] = 'gx'"
forge model "f['cells/populations/all'].attrs['model'] = 'lif_nope'"
forge cellsmodel "f['cells'].attrs['model'] = 'lif_nope'"
forge param "f['cells/populations/all'].attrs['tau_x'] = 3.0"
forge order "c = $g['col'][:]; r = $g['row_ptr'][:]; i = int(np.argmax(np.diff(r) > 1)); c[r[i]], c[r[i]+1] = c[r[i]+1], c[r[i]]; $g['col'][:] = c"
refused "delay\[0\] = -1 steps is negative" "$S" negdelay.h5 -o out --time 10
refused "70000 steps is beyond the delay buffer" "$S" bigdelay.h5 -o out --time 10
refused "cannot be negative" "$S" negweight.h5 -o out --time 10
refused "no receptor 'gx'" "$S" receptor.h5 -o out --time 10
refused "unknown model 'lif_nope'" "$S" model.h5 -o out --time 10
refused "model 'lif_nope' is unknown" "$S" cellsmodel.h5 -o out --time 10
refused "'tau_x' is not a parameter of model lif_coba" "$S" param.h5 -o out --time 10
refused "not in ascending order" "$S" order.h5 -o out --time 10
# options of InfOli networks, and methods a model has not
refused "--gj does not apply" "$S" good.h5 -o out --time 10 --gj sgj
refused "lif_coba has no exact solution" "$S" good.h5 -o out --time 10 --method exact
refused "has no variable 'v_axon' (it has: v ge gi ref)" "$S" good.h5 -o out --time 10 --record v_axon
refused "has no receptor 'gz'" "$S" good.h5 -o out --time 10 --poisson rate=5,weight=1,receptor=gz
"$G" -q -o io.h5 --cells 10 --generator uniform --density 2
refused "--method applies to lif_cuba and lif_coba" "$S" io.h5 -o out --steps 10 --method euler
refused "--poisson applies to networks with chemical synapses" "$S" io.h5 -o out --steps 10 --poisson rate=1,weight=1,receptor=ge
[ ! -e out ] || fail "a refused run left its output directory"
ls -d out.tmp* 2>/dev/null && fail "a refused run left a temporary directory"

# Times and delays in ms become steps through one checked conversion
# (olive_ms_to_steps): what does not fit is refused naming the field, and a
# moment beyond any run's end is "never" (no overflow; the sanitizer pass
# runs these too).
"$G" -q -o d65535.h5 --model lif_cuba --cells 20 --projection from=all,to=all,p=0.1,weight=1,delay=6553.5,receptor=ge
"$PY" -c "import h5py; assert h5py.File('d65535.h5')['synapses/all_to_all'].attrs['delay'] == 65535" || fail "6553.5 ms"
refused "6553.6 ms is 65536 steps of 0.1 ms, outside 0..65535" "$G" -o bad.h5 --model lif_cuba --cells 20 \
    --projection from=all,to=all,p=0.1,weight=1,delay=6553.6,receptor=ge
"$G" -q -o src.h5 --model lif_cuba --population n:5 --source-poisson drive:50:100:0:600 --param E_L=-60 \
    --projection from=drive,to=n,indegree=2,weight=0.1,delay=1,receptor=ge
"$PY" - <<'PYEOF'
import h5py, numpy as np, shutil
shutil.copy("src.h5", "late.h5")                  # a Poisson source that starts after any run's end
with h5py.File("late.h5", "r+") as f:
    f["cells/populations/drive"].attrs["start"] = 1e20
shutil.copy("src.h5", "farspike.h5")              # an array source with a time beyond the int64 steps
with h5py.File("farspike.h5", "r+") as f:
    q = f["cells/populations/drive"]
    for a in ("rate", "start", "duration"): del q.attrs[a]
    q.attrs["model"] = "spike_source_array"
    q["spike_times"] = np.array([1.0] + [1e20] * 50)   # cell 5: 1 ms and 1e20 ms; cells 6..54: 1e20 ms
    q["spike_times_ptr"] = np.array([0] + list(range(2, 52)), dtype=np.int64)
PYEOF
"$S" -q late.h5 -o late --time 50 --record none
"$S" -q farspike.h5 -o farspike --time 50 --record none
"$PY" - <<'PYEOF' || fail "a source beyond the run's end fired"
import h5py, numpy as np
ids = h5py.File("late/spikes.h5")["spikes/drive/node_ids"][:]   # the source population (cells 5..)
assert len(ids) == 0, "Poisson start 1e20 ms fired"
s = h5py.File("farspike/spikes.h5")["spikes/drive"]
got = sorted(zip(s["node_ids"][:].tolist(), s["timestamps"][:].tolist()))
assert got == [(0, 1.0)], got
print("Poisson start 1e20 ms: no spike; spike time 1e20 ms: never reached, the 1 ms one kept")
PYEOF
refused "--time = 1e+12 ms is 10000000000000 steps of 0.1 ms, outside 1..1099511627776" "$S" good.h5 -o out --time 1e12
# A SONATA delay of 1e20 ms: refused naming the edges file's dataset
"$PY" - <<'PYEOF'
import h5py, numpy as np
with h5py.File("far_edges.h5", "w") as f:
    g = f.create_group("edges/io")
    g["source_node_id"] = np.array([0, 1], dtype=np.uint64); g["target_node_id"] = np.array([1, 2], dtype=np.uint64)
    g["edge_type_id"] = np.array([0, 0], dtype=np.int64)
    g["0/syn_weight"] = np.array([1.0, 1.0]); g["0/delay"] = np.array([1.0, 1e20])
PYEOF
refused "far_edges.h5: /edges/io/0/delay\[1\] (edge 1; the delay buffer) = 1e+20 ms is 1e+21 steps of 0.1 ms, outside 0..65535" \
    "$G" -o bad.h5 --model lif_cuba --cells 5 --import-synapses far_edges.h5

# --param POP.NAME=VALUE (olive-simulate): the run of a network file rewritten
# with that value (genconn's --param NAME=VALUE@POP), spike for spike, and the
# override in the provenance and olive-analyze summary; its refusals name the
# option, the population and the parameter and leave nothing; a restart with
# the same overrides continues the unbroken run, one with other overrides is
# taken (as a changed file is) and records its own. hh_traub: NAME=VALUE for
# every population.
P=(--model lif_cuba --population exc:80 --population inh:20 --source-poisson drive:20:40 --v0 -60:-50 --seed 3
   --projection from=exc,to=exc,p=0.1,weight=1.6,delay=1,receptor=ge --projection from=exc,to=inh,p=0.1,weight=1.6,delay=1,receptor=ge
   --projection from=inh,to=exc,p=0.1,weight=-6,delay=1,receptor=gi --projection from=drive,to=exc,indegree=5,weight=3,delay=1,receptor=ge
   --projection from=drive,to=inh,indegree=5,weight=3,delay=1,receptor=ge)
"$G" -q -o pnet.h5 "${P[@]}"
# --poisson cells=POP: a population's cells, the same inputs as its id range
# (inh: cells 80..100), and fewer spikes elsewhere than with every cell driven
"$S" -q pnet.h5 -o pp_pop --time 50 --poisson rate=200,weight=2,receptor=ge,cells=inh
"$S" -q pnet.h5 -o pp_ids --time 50 --poisson rate=200,weight=2,receptor=ge,cells=80:100
"$A" compare -q pp_pop pp_ids || fail "--poisson cells=inh differs from cells=80:100"
"$S" -q pnet.h5 -o pp_all --time 50 --poisson rate=200,weight=2,receptor=ge
"$A" compare -q pp_pop pp_all && fail "--poisson cells=inh drove every cell"
refused "--poisson cells=nope: pnet.h5 has no population nope (it has exc, inh, drive)" \
  "$S" pnet.h5 -o pp_bad --time 10 --poisson rate=5,weight=1,receptor=ge,cells=nope
[ ! -e pp_bad ] || fail "a refused --poisson cells=POP left an output"
"$G" -q -o pnet15.h5 "${P[@]}" --param tau_m=15@exc
"$S" -q pnet.h5 -o p_opt --time 100 --param exc.tau_m=15 --param drive.rate=40
"$S" -q pnet15.h5 -o p_file --time 100
"$S" -q pnet.h5 -o p_none --time 100
"$S" -q pnet.h5 -o p_half --time 50 --param exc.tau_m=15 --param drive.rate=40
"$S" -q pnet.h5 -o p_rest --time 100 --param tau_m=15@exc --param rate=40 --restart p_half/state.h5
"$S" -q pnet.h5 -o p_other --time 100 --param exc.tau_m=12 --restart p_half/state.h5
"$G" -q -o traub.h5 --model hh_traub --cells 10 --projection from=all,to=all,p=0.3,weight=5,delay=1,receptor=ge --param I_e=600
"$G" -q -o traub2.h5 --model hh_traub --cells 10 --projection from=all,to=all,p=0.3,weight=5,delay=1,receptor=ge --param I_e=600 --param g_Na=15000
"$S" -q traub.h5 -o t_opt --time 30 --record none --param g_Na=15000
"$S" -q traub2.h5 -o t_file --time 30 --record none
"$PY" - <<'PYEOF' || fail "--param is not the run of the rewritten file"
import h5py, numpy as np
def spikes(d):   # every spike dataset of the file, whatever its populations
    out = {}
    with h5py.File(f"{d}/spikes.h5") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
        return out, f.attrs["param_overrides"]
a, pa = spikes("p_opt"); b, pb = spikes("p_file"); c, _ = spikes("p_none")
assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a), "--param exc.tau_m=15 != the rewritten file"
assert any(not np.array_equal(a[k], c[k]) for k in a), "--param exc.tau_m=15 changed nothing"
pa = pa.decode() if isinstance(pa, bytes) else pa; pb = pb.decode() if isinstance(pb, bytes) else pb
assert pa == "exc.tau_m=15,drive.rate=40" and pb == "", (pa, pb)
h, _ = spikes("p_half"); r, _ = spikes("p_rest")
t = [k for k in a if k.endswith("timestamps")]
full = np.concatenate([np.sort(a[k]) for k in t]); pieces = np.concatenate([np.sort(np.concatenate([h[k], r[k]])) for k in t])
assert np.array_equal(full, pieces), "a restart with the same --param is not the unbroken run"
assert spikes("p_other")[1] in ("exc.tau_m=12", b"exc.tau_m=12"), "a restart's other --param not recorded"
x, _ = spikes("t_opt"); y, _ = spikes("t_file")
assert x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x), "hh_traub: --param g_Na != the rewritten file"
print("--param: the same spikes as the rewritten file (lif_cuba, hh_traub), restart continues it")
PYEOF
"$BIN/olive-analyze" summary p_opt | grep -q -- "--param  *exc.tau_m=15,drive.rate=40" || fail "summary does not show the --param"
refused "--param exc.tau_x=3: population exc (lif_cuba) has no parameter 'tau_x' (its parameters: E_L, V_th" \
    "$S" pnet.h5 -o out --time 10 --param exc.tau_x=3
refused "--param tau_m=3@nope: no population 'nope' (populations: exc, inh, drive)" "$S" pnet.h5 -o out --time 10 --param tau_m=3@nope
refused "--param nope.tau_m=3: 'nope.tau_m' is not a parameter of lif_cuba or spike_source_poisson (populations: exc, inh, drive" \
    "$S" pnet.h5 -o out --time 10 --param nope.tau_m=3
refused "--param exc.tau_m=-1: population exc: tau_m must be more than 0" "$S" pnet.h5 -o out --time 10 --param exc.tau_m=-1
refused "--param exc.tau_m=abc: 'abc' is not a finite number" "$S" pnet.h5 -o out --time 10 --param exc.tau_m=abc
refused "--param drive.rate=1000000: population drive: cell 100: rate 1e+06 Hz" "$S" pnet.h5 -o out --time 10 --param drive.rate=1e6
refused "--param exc.rate=5: population exc (lif_cuba) has no parameter 'rate'" "$S" pnet.h5 -o out --time 10 --param exc.rate=5
refused "--param all.C_m=-1: population all: parameter C_m = -1 must be positive" "$S" traub.h5 -o out --time 10 --param all.C_m=-1
refused "--param g_L=3: .* InfOli network, whose cells have no parameters" "$S" io.h5 -o out --steps 10 --param g_L=3
[ ! -e out ] && ! compgen -G "out.tmp*" >/dev/null || fail "a refused --param left its output"

# Memory: the CPU delay ring has min(max delay + 1, the run's steps) slots: a
# 1 ms run of 2000 cells with 65534-step delays fits in 64 MiB (its full ring
# would take 2.7 GiB); a file declaring 2^31 - 1 cells is refused before any
# of it is read; genconn refuses p=1 over 1e6 cells before generating.
"$G" -q -o far.h5 --model lif_cuba --cells 2000 --projection from=all,to=all,p=0.001,weight=1,delay=6553.4,receptor=ge
OLIVE_MEMAVAILABLE=64M "$S" -q far.h5 -o far --time 1 --record none || fail "a 1 ms run of 65534-step delays needs more than 64 MiB"
"$G" -q -o four.h5 --model lif_cuba --cells 4
"$PY" - <<'PYEOF'
import h5py, numpy as np, shutil
shutil.copy("four.h5", "huge.h5")
n = 2**31 - 1
with h5py.File("huge.h5", "r+") as f:
    f["cells"].attrs["count"] = n
    f["cells"].attrs["dims"] = np.array([n, 1, 1])
    f["cells/populations/all"].attrs["count"] = n
    del f["gap_junctions/row_ptr"]
    f["gap_junctions"].create_dataset("row_ptr", shape=(n + 1,), dtype="i8", chunks=(1 << 20,), compression="gzip")
PYEOF
OLIVE_MEMAVAILABLE=4G refused "not enough memory: huge.h5 with 2147483647 cells (2147483647 on rank 0), 0 synapses into them" \
    "$S" huge.h5 -o out --time 1
OLIVE_MEMAVAILABLE=1G refused "not enough memory: bad.h5 (1000000 cells and about 1e+12 synapses, 1e+12 of them from --projection" \
    "$G" -o bad.h5 --model lif_cuba --cells 1000000 --projection from=all,to=all,p=1,weight=1,delay=1,receptor=ge
[ ! -e bad.h5 ] && ! compgen -G "bad.h5.tmp-*" >/dev/null || fail "a refused genconn left bad.h5"
[ ! -e out ] || fail "a refused run left its output directory"
echo "bad spiking input refused, nothing left behind"

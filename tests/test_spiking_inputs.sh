#!/usr/bin/env bash
# Spiking networks: what olive-genconn's synapse generators produce, and bad
# input refused with a message naming the fault and nothing left behind.
# - p: every ordered pair once, the count within 5 sigma of Binomial(pairs, p);
#   indegree K: exactly K per target of the target population, none elsewhere;
#   total N: exactly N; autapses=no: no synapse onto its own source; weights
#   and delays inside their ranges; v0 inside its range; the same seed gives
#   the same datasets, another seed others;
# - negative delays, negative conductance weights, unknown models and
#   receptors, delays beyond the 65535-step buffer, in genconn options and in
#   files written by hand (h5py), and options that do not apply to a model.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
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

refused() {  # expected-message command...
  local want=$1; shift
  local out
  if out=$("$@" 2>&1); then fail "accepted: $*"; fi
  echo "$out" | grep -q -- "$want" || fail "message for '$*' lacks '$want': $out"
}
B=(-o bad.h5 --model lif_cuba --cells 100)
refused "delay '-1' is negative" "$G" "${B[@]}" --projection from=all,to=all,p=0.1,weight=1,delay=-1,receptor=ge
refused "cannot be negative" "$G" -o bad.h5 --model lif_coba --cells 100 --projection from=all,to=all,p=0.1,weight=-1,delay=1,receptor=ge
refused "has no receptor 'gx'" "$G" "${B[@]}" --projection from=all,to=all,p=0.1,weight=1,delay=1,receptor=gx
refused "is not lif_cuba, lif_coba, lif_cuba_alpha, lif_coba_alpha, hh_traub, hh_cable or hh_swc" "$G" -o bad.h5 --model lif_nope --cells 100
refused "delay (the delay buffer) = 7000 ms is 70000 steps of 0.1 ms, outside 0..65535" "$G" "${B[@]}" --projection from=all,to=all,p=0.1,weight=1,delay=7000,receptor=ge
refused "no population 'x'" "$G" "${B[@]}" --projection from=x,to=all,p=0.1,weight=1,delay=1,receptor=ge
refused "not a parameter of lif_cuba" "$G" "${B[@]}" --param g_L=3
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
echo "bad spiking input refused, nothing left behind"

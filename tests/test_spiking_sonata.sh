#!/usr/bin/env bash
# SONATA for spiking networks: olive-genconn --model ... --export-sonata writes
# nodes, edges (syn_weight, delay in ms), node and edge types and a circuit
# config; --import-synapses of that export rebuilds the same projections
# (sources, weights, delays, receptors) and the same run, bit for bit; a
# bmtk-style file (weights and delays only in the edge types table, receptor
# from the weight's sign) imports; faults are named. When the pinned
# libsonata of test_sonata_readers is installed (build/venv-readers), it
# reads the export too.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
P=(--model lif_cuba --population exc:400 --population inh:100 --v0 -60:-50)
"$G" -q -o a.h5 "${P[@]}" --projection from=exc,to=all,p=0.05,weight=1:2,delay=0:3,receptor=ge \
    --projection from=inh,to=all,indegree=10,weight=-9,delay=1,receptor=gi --export-sonata ex
for f in ex_nodes.h5 ex_edges.h5 ex_node_types.csv ex_edge_types.csv ex_circuit_config.json; do
  [ -s $f ] || fail "--export-sonata did not write $f"
done
"$G" -q -o b.h5 "${P[@]}" --import-synapses ex_edges.h5 --import-edge-types ex_edge_types.csv
"$PY" - <<'PYEOF'
import h5py, numpy as np
a, b = h5py.File("a.h5"), h5py.File("b.h5")
assert sorted(a["synapses"]) == sorted(b["synapses"]), (list(a["synapses"]), list(b["synapses"]))
for p in a["synapses"]:
    ga, gb = a["synapses"][p], b["synapses"][p]
    n = len(ga["col"])
    assert n > 1000, n
    for k in ("row_ptr", "col"):
        assert np.array_equal(ga[k][:], gb[k][:]), (p, k)
    wa = ga["weight"][:] if "weight" in ga else np.full(n, ga.attrs["weight"])
    da = ga["delay"][:] if "delay" in ga else np.full(n, ga.attrs["delay"])
    assert np.array_equal(wa, gb["weight"][:]) and np.array_equal(da, gb["delay"][:]), p
    assert ga.attrs["receptor"] == gb.attrs["receptor"], p
e = h5py.File("ex_edges.h5")["edges/io"]
assert e["0/delay"][:].max() == 3.0 and e["0/syn_weight"][:].min() == -9.0
print("export -> import: the same projections")
PYEOF
"$S" -q a.h5 -o ra --time 300
"$S" -q b.h5 -o rb --time 300
"$A" compare -q ra rb || fail "the imported network runs differently"

# bmtk style: weights and delays in the edge types table, no receptor column
"$PY" - <<'PYEOF'
import h5py, numpy as np
rng = np.random.default_rng(1)
n = 3000
src, tgt = rng.integers(0, 500, n), rng.integers(0, 500, n)
typ = (src >= 400).astype(np.uint32)          # inhibitory sources: type 1
with h5py.File("bmtk_edges.h5", "w") as f:
    g = f.create_group("edges/ext")
    g["source_node_id"] = src.astype(np.uint64); g["target_node_id"] = tgt.astype(np.uint64)
    g["edge_type_id"] = typ
open("bmtk_edge_types.csv", "w").write("edge_type_id syn_weight delay model_template\n0 1.5 2.0 static_synapse\n1 -7 0.5 static_synapse\n")
PYEOF
"$G" -q -o c.h5 "${P[@]}" --import-synapses bmtk_edges.h5 --import-edge-types bmtk_edge_types.csv
"$PY" - <<'PYEOF'
import h5py, numpy as np
f = h5py.File("c.h5")
t0, t1 = f["synapses/type_0"], f["synapses/type_1"]
assert t0.attrs["receptor"] in (b"ge", "ge") and t1.attrs["receptor"] in (b"gi", "gi")
assert np.all(t0["weight"][:] == 1.5) and np.all(t0["delay"][:] == 20) and np.all(t1["delay"][:] == 5)
assert len(t0["col"]) + len(t1["col"]) == 3000 and t1["col"][:].min() >= 400
print("bmtk-style edge types imported")
PYEOF
refused() {
  local want=$1; shift
  local out
  if out=$("$@" 2>&1); then fail "accepted: $*"; fi
  echo "$out" | grep -q -- "$want" || fail "message for '$*' lacks '$want': $out"
}
refused "has no receptor" "$G" -o bad.h5 --model lif_coba --cells 500 --import-synapses bmtk_edges.h5 --import-edge-types bmtk_edge_types.csv
sed 's/0 1.5 2.0/0 1.5 -2.0/' bmtk_edge_types.csv > neg.csv
refused "negative delay" "$G" -o bad.h5 "${P[@]}" --import-synapses bmtk_edges.h5 --import-edge-types neg.csv
refused "no finite syn_weight" "$G" -o bad.h5 "${P[@]}" --import-synapses bmtk_edges.h5
refused "the network has 100 cells" "$G" -o bad.h5 --model lif_cuba --cells 100 --import-synapses bmtk_edges.h5 --import-edge-types bmtk_edge_types.csv
[ ! -e bad.h5 ] || fail "a refused import left bad.h5"

# ids and types are read as the integers they are stored as: a -1 is not
# clamped to cell 0, a float id or type is not truncated; a projection name
# the network file cannot hold is refused here, not by olive-simulate
"$PY" - <<'PYEOF'
import h5py, numpy as np, shutil
def case(name, ds, values):
    shutil.copy("bmtk_edges.h5", f"e_{name}.h5")
    with h5py.File(f"e_{name}.h5", "r+") as f:
        g = f["edges/ext"]; del g[ds]; g[ds] = values
with h5py.File("bmtk_edges.h5") as f:
    g = f["edges/ext"]; src, tgt, typ = g["source_node_id"][:], g["target_node_id"][:], g["edge_type_id"][:]
case("src_neg", "source_node_id", np.where(np.arange(len(src)) == 7, -1, src.astype(np.int64)))
case("tgt_float", "target_node_id", tgt.astype(np.float64) + 0.5)
case("type_float", "edge_type_id", typ.astype(np.float64))
open("slash_edge_types.csv", "w").write("edge_type_id syn_weight delay projection\n0 1.5 2.0 a/b\n1 -7 0.5 inh\n")
PYEOF
import_refused() {  # WANT EDGES [TYPES]: refused, naming the file, without output
  local want=$1 edges=$2 types=${3:-bmtk_edge_types.csv} out rc=0
  out=$("$G" -o bad.h5 "${P[@]}" --import-synapses "$edges" --import-edge-types "$types" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "$edges: exit status $rc: $out"
  echo "$out" | grep -qF -- "$want" || fail "$edges: message lacks '$want': $out"
  [ ! -e bad.h5 ] && ! compgen -G "bad.h5.tmp-*" >/dev/null || fail "$edges: output left behind"
  echo "ok: $out"
}
import_refused "e_src_neg.h5: dataset /edges/ext/source_node_id[7] = -1 is negative" e_src_neg.h5
import_refused "e_tgt_float.h5: dataset /edges/ext/target_node_id is stored as a floating-point number" e_tgt_float.h5
import_refused "e_type_float.h5: dataset /edges/ext/edge_type_id is stored as a floating-point number" e_type_float.h5
import_refused "slash_edge_types.csv: line 2: projection name 'a/b' holds a '/'" bmtk_edges.h5 slash_edge_types.csv
refused "not a valid name" "$G" -o bad.h5 "${P[@]}" --projection from=exc,to=all,p=0.1,weight=1,delay=1,receptor=ge,name=a/b
[ ! -e bad.h5 ] || fail "a refused projection name left bad.h5"

venv="$TOP/$BUILD/venv-readers"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import libsonata" 2>/dev/null; then
  "$venv/bin/python" - <<'PYEOF' || fail "libsonata could not read the spiking export"
import h5py, libsonata, numpy as np
e = libsonata.EdgeStorage("ex_edges.h5").open_population("io")
sel = libsonata.Selection([(0, e.size)])
with h5py.File("a.h5") as f:
    n = sum(len(g["col"]) for g in f["synapses"].values())
    w = np.concatenate([g["weight"][:] if "weight" in g else np.full(len(g["col"]), g.attrs["weight"]) for g in f["synapses"].values()])
assert e.size == n, (e.size, n)
assert np.array_equal(e.get_attribute("syn_weight", sel), w)
assert e.get_attribute("delay", sel).max() == 3.0
cfg = libsonata.CircuitConfig.from_file("ex_circuit_config.json")
assert cfg.edge_population("io").size == n and cfg.node_population("io").size == 500
print("libsonata reads the spiking export")
PYEOF
else
  echo "libsonata: not installed here (tests/test_sonata_readers.sh installs it); the h5py checks above ran"
fi

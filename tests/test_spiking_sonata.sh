#!/usr/bin/env bash
# SONATA for spiking networks: olive-genconn --model ... --export-sonata writes
# nodes, edges (syn_weight, delay in ms), node and edge types and a circuit
# config; --import-synapses of that export rebuilds the same projections
# (sources, weights, delays, receptors) and the same run, bit for bit; a
# bmtk-style file (weights and delays only in the edge types table, receptor
# from the weight's sign) imports; plastic projections export as NEST's
# synapse models with their parameters (model_template, dynamics_params) and
# import back to the same run; faults are named. When the pinned
# libsonata of test_sonata_readers is installed (build/venv-readers), it
# reads the export too.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
P=(--model lif_cuba --population exc:400 --population inh:100 --v0 -60:-50)
# (normal weights and delays, as NEST's microcircuit draws them, and an
# out-degree: per-edge values in SONATA; names in creation order, as the
# export's edge types and h5py's listing both go)
"$G" -q -o a.h5 "${P[@]}" --projection from=exc,to=all,p=0.05,weight=1:2,delay=0:3,receptor=ge \
    --projection from=inh,to=all,indegree=10,weight=-9,delay=1,receptor=gi \
    --projection from=exc,to=inh,total=3000,weight=normal:2:0.5:0:inf,delay=normal:1.5:0.75:0.1:inf,receptor=ge,name=x_normal \
    --projection from=inh,to=exc,outdegree=20,weight=normal:-4:1:-inf:0,delay=0.5:2,receptor=gi,name=y_outdegree --export-sonata ex
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
dmax = max(a["synapses"][p]["delay"][:].max() for p in a["synapses"] if "delay" in a["synapses"][p])
assert abs(e["0/delay"][:].max() - dmax * 0.1) < 1e-12 and e["0/syn_weight"][:].min() == -9.0
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
  grep -q -- "$want" <<< "$out" || fail "message for '$*' lacks '$want': $out"
}
refused "has no receptor" "$G" -o bad.h5 --model lif_coba --cells 500 --import-synapses bmtk_edges.h5 --import-edge-types bmtk_edge_types.csv
sed 's/0 1.5 2.0/0 1.5 -2.0/' bmtk_edge_types.csv > neg.csv
refused "negative delay" "$G" -o bad.h5 "${P[@]}" --import-synapses bmtk_edges.h5 --import-edge-types neg.csv
refused "no finite syn_weight" "$G" -o bad.h5 "${P[@]}" --import-synapses bmtk_edges.h5
refused "the network has 100 cells" "$G" -o bad.h5 --model lif_cuba --cells 100 --import-synapses bmtk_edges.h5 --import-edge-types bmtk_edge_types.csv
[ ! -e bad.h5 ] || fail "a refused import left bad.h5"

# plastic projections: --export-sonata writes each as its NEST synapse model (model_template) with
# its parameters in PREFIX_PROJ_synapse.json (dynamics_params, bmtk's PointNet form); the import
# reads them back: the same projections, rules and parameters, and the same run bit for bit
"$G" -q -o pa.h5 "${P[@]}" \
    --projection from=exc,to=all,p=0.05,weight=1:2,delay=1:3,receptor=ge,plasticity=stdp,Wmax=5,lambda=0.02,tau_minus=25 \
    --projection from=inh,to=all,p=0.05,weight=-9,delay=1,receptor=gi \
    --projection from=exc,to=inh,p=0.05,weight=2,delay=1.5,receptor=ge,name=stp,plasticity=tsodyks2,U=0.3,tau_fac=100 \
    --export-sonata px
mkdir -p models && cp px_*_synapse.json models/
"$G" -q -o pb.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types px_edge_types.csv
"$G" -q -o pc.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types px_edge_types.csv --import-synaptic-models models
"$PY" - <<'PYEOF'
import h5py, json, numpy as np
lines = [l.split() for l in open("px_edge_types.csv")]
assert lines[0] == ["edge_type_id", "model_template", "receptor", "projection", "dynamics_params"], lines[0]
assert [l[1] for l in lines[1:]] == ["stdp_synapse", "static_synapse", "tsodyks2_synapse"], lines
assert lines[1][4] == "px_exc_to_all_synapse.json" and lines[2][4] == "NULL"
assert json.load(open("px_exc_to_all_synapse.json")) == dict(tau_plus=20, **{"lambda": 0.02}, alpha=1, mu_plus=1, mu_minus=1,
                                                            Wmax=5, tau_minus=25)
assert json.load(open("px_circuit_config.json"))["components"] == {"synaptic_models_dir": "$BASE_DIR"}
a = h5py.File("pa.h5")["synapses"]
for other in ("pb.h5", "pc.h5"):
    b = h5py.File(other)["synapses"]
    assert sorted(a) == sorted(b)
    for p in a:
        pa = {k: v for k, v in a[p].attrs.items() if k.startswith("plasticity")}
        pb = {k: v for k, v in b[p].attrs.items() if k.startswith("plasticity")}
        assert pa == pb, (p, pa, pb)
        n = len(a[p]["col"])
        wa = a[p]["weight"][:] if "weight" in a[p] else np.full(n, a[p].attrs["weight"])
        assert np.array_equal(a[p]["col"][:], b[p]["col"][:]) and np.array_equal(wa, b[p]["weight"][:]), p
assert a["exc_to_all"].attrs["plasticity"] in ("stdp", b"stdp") and a["stp"].attrs["plasticity"] in ("tsodyks2", b"tsodyks2")
print("plastic export -> import: the same rules and parameters")
PYEOF
IN=(--time 300 --poisson rate=20,weight=3,receptor=ge,n=10)
"$S" -q pa.h5 -o rpa "${IN[@]}"
"$S" -q pb.h5 -o rpb "${IN[@]}"
h5diff rpa/spikes.h5 rpb/spikes.h5 /spikes /spikes || fail "the imported plastic network runs differently"
h5diff rpa/state.h5 rpb/state.h5 /state/plastic /state/plastic || fail "the imported plastic network learns differently"
"$PY" -c "
import h5py, numpy as np
w = h5py.File('rpa/state.h5')['state/plastic/exc_to_all/weight'][:]
assert len(w) > 1000 and (np.abs(w - np.round(w)) > 1e-9).sum() > 0, 'no weight moved'"
sed 's/tsodyks2_synapse/hebb_synapse/' px_edge_types.csv > hebb.csv
refused "hebb.csv: line 4: model_template 'hebb_synapse' is not a synapse model olive runs" \
    "$G" -o bad.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types hebb.csv
sed 's/px_stp_synapse.json/px_exc_to_all_synapse.json/' px_edge_types.csv > tso.csv   # stdp's parameters for tsodyks2
refused "px_exc_to_all_synapse.json: \"tau_plus\" is not a parameter of tsodyks2_synapse" \
    "$G" -o bad.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types tso.csv
echo '{"tau_plus": -1}' > models/neg.json
sed 's/px_exc_to_all_synapse.json/neg.json/' px_edge_types.csv > neg_tau.csv
refused "neg.json: stdp_synapse: tau_plus must be > 0" \
    "$G" -o bad.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types neg_tau.csv --import-synaptic-models models
sed 's/px_exc_to_all_synapse.json/missing.json/' px_edge_types.csv > missing.csv
refused "missing.csv: line 2: dynamics_params 'missing.json': missing.json cannot be read" "$G" -o bad.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types missing.csv
echo '{"Wmax": -5}' > models/negw.json
sed 's/px_exc_to_all_synapse.json/negw.json/' px_edge_types.csv > negw.csv
refused "edge type 0 has a weight of" \
    "$G" -o bad.h5 "${P[@]}" --import-synapses px_edges.h5 --import-edge-types negw.csv --import-synaptic-models models
[ ! -e bad.h5 ] || fail "a refused plastic import left bad.h5"

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
  grep -qF -- "$want" <<< "$out" || fail "$edges: message lacks '$want': $out"
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
    dmax = max(g["delay"][:].max() for g in f["synapses"].values() if "delay" in g)
assert e.size == n, (e.size, n)
assert np.array_equal(e.get_attribute("syn_weight", sel), w)
assert abs(e.get_attribute("delay", sel).max() - dmax * 0.1) < 1e-12
cfg = libsonata.CircuitConfig.from_file("ex_circuit_config.json")
assert cfg.edge_population("io").size == n and cfg.node_population("io").size == 500
print("libsonata reads the spiking export")
PYEOF
else
  echo "libsonata: not installed here (tests/test_sonata_readers.sh installs it); the h5py checks above ran"
fi

# SONATA biophysical nodes: --import-circuit makes hh_swc
# populations of a circuit's node types: morphology NAME is
# morphologies_dir/NAME.swc, dynamics_params an Allen perisomatic JSON (pas,
# hh); a mechanism olive lacks is refused; export -> import round-trips.
mkdir -p circ/morph circ/models
cp "$TESTS/data/cell.swc" circ/morph/cell.swc
cp "$TESTS/data/morphio_simple.swc" circ/morph/simple.swc
"$PY" - <<'PYEOF'
import h5py, json, numpy as np
with h5py.File("circ/nodes.h5", "w") as f:
    f.attrs["magic"] = np.uint32(0x0A7A); f.attrs["version"] = np.array([0, 1], np.uint32)
    g = f.create_group("nodes/v1")
    g["node_id"] = np.arange(5, dtype=np.uint64)
    g["node_type_id"] = np.array([100, 100, 100, 200, 200], np.uint32)
    g["node_group_id"] = np.zeros(5, np.uint32); g["node_group_index"] = np.arange(5, dtype=np.uint64)
    g0 = g.create_group("0")
    g0["morphology"] = np.array(["cell", "cell", "cell", "simple", "simple"], dtype=h5py.string_dtype())
    g0["x"] = np.zeros(5)
open("circ/node_types.csv", "w").write(
    "node_type_id model_type model_template pop_name dynamics_params\n"
    "100 biophysical ctdb:Biophys1.hoc pyr peri.json\n"
    "200 biophysical NULL bas NULL\n")
peri = {"passive": [{"ra": 138.5, "e_pas": -70.25, "cm": [{"section": "soma", "cm": 1.5}, {"section": "dend", "cm": 2.25},
                                                            {"section": "axon", "cm": 1.25}, {"section": "apic", "cm": 2.5}]}],
        "fitting": [{"junction_potential": -14.0, "sweeps": [29]}],
        "conditions": [{"celsius": 34.0, "v_init": -71.5, "erev": [{"section": "soma", "ena": 53.0, "ek": -107.0}]}],
        "genome": [{"section": "soma", "name": "g_pas", "value": 3e-4, "mechanism": ""},
                   {"section": "dend", "name": "g_pas", "value": 5e-5, "mechanism": ""},
                   {"section": "soma", "name": "gnabar_hh", "value": 0.15, "mechanism": "hh"},
                   {"section": "soma", "name": "gkbar_hh", "value": 0.04, "mechanism": "hh"},
                   {"section": "axon", "name": "gnabar_hh", "value": 0.3, "mechanism": "hh"}]}
json.dump(peri, open("circ/models/peri.json", "w"), indent=1)
peri["genome"].append({"section": "soma", "name": "gbar_NaTs", "value": 0.7, "mechanism": "NaTs"})
json.dump(peri, open("circ/models/nats.json", "w"))
json.dump({"manifest": {"$BASE_DIR": ".", "$COMP": "$BASE_DIR/morph"},
           "components": {"morphologies_dir": "$COMP", "biophysical_neuron_models_dir": "$BASE_DIR/models"},
           "networks": {"nodes": [{"nodes_file": "$BASE_DIR/nodes.h5", "node_types_file": "$BASE_DIR/node_types.csv",
                                                "populations": {"v1": {"type": "biophysical"}}}],
                        "edges": []}}, open("circ/circuit_config.json", "w"))
PYEOF
"$G" -q -o bio.h5 --model hh_swc --import-circuit circ/circuit_config.json --export-sonata bioex \
     --projection from=pyr,to=bas,p=1,weight=0.005,delay=1,receptor=ge
"$G" -q -o bio2.h5 --model hh_swc --import-circuit bioex_circuit_config.json
"$PY" - "$PWD" <<'PYEOF'
import h5py, sys
here = sys.argv[1]
def pops(path):
    with h5py.File(path) as f:
        return {n: {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
                for n, g in f["cells/populations"].items()}
a, b = pops("bio.h5"), pops("bio2.h5")
assert sorted(a) == ["bas", "pyr"], sorted(a)
pyr, bas = a["pyr"], a["bas"]
assert (pyr["first"], pyr["count"], bas["first"], bas["count"]) == (0, 3, 3, 2)
assert pyr["morphology"] == here + "/circ/morph/cell.swc" and bas["morphology"] == here + "/circ/morph/simple.swc"
T = ("soma", "axon", "dend", "apic", "custom")
want = {"celsius": 34.0, "v0": -71.5, "soma.ena": 53.0, "soma.ek": -107.0, "axon.ena": 50, "dend.ek": -77,
        "soma.cm": 1.5, "dend.cm": 2.25, "axon.cm": 1.25, "apic.cm": 2.5, "custom.cm": 1,
        "soma.g_pas": 3e-4, "dend.g_pas": 5e-5, "axon.g_pas": 1e-4, "apic.g_pas": 1e-4,
        "soma.gnabar": 0.15, "soma.gkbar": 0.04, "axon.gnabar": 0.3, "axon.gkbar": 0.036, "soma.gl": 0.0003}
for t in T:   # perisomatic: ra and e_pas everywhere, pas everywhere, hh where the genome puts it
    want.update({t + ".Ra": 138.5, t + ".e_pas": -70.25, t + ".pas": 1, t + ".hh": 1 if t in ("soma", "axon") else 0})
for k, v in want.items():
    assert pyr[k] == v, (k, pyr[k], v)
# no dynamics_params: hh_swc's defaults (hh on soma and axon, pas on the rest)
for k, v in {"celsius": 6.3, "v0": -65, "soma.hh": 1, "soma.pas": 0, "dend.hh": 0, "dend.pas": 1, "dend.Ra": 100}.items():
    assert bas[k] == v, (k, bas[k], v)
# export -> import: the same populations, every parameter bit for bit
assert a == b, [(n, k, a[n][k], b[n].get(k)) for n in a for k in a[n] if a[n][k] != b[n].get(k)]
print("SONATA biophysical nodes imported; export -> import gives the same populations")
PYEOF
# the imported network runs (pyr's and bas' cells, the projection between them)
"$S" -q bio.h5 -o biorun --time 5 --pulse 1:4:0.5:0:3
[ -s biorun/spikes.h5 ] || ls biorun | grep -q . || fail "the imported network did not run"
# refused, naming the file and what is wrong, without output
import_circ_refused() {  # WANT CONFIG
  local want=$1 out rc=0
  out=$("$G" -o bad.h5 --model hh_swc --import-circuit "$2" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "$2: exit status $rc: $out"
  grep -qF -- "$want" <<< "$out" || fail "$2: message lacks '$want': $out"
  [ ! -e bad.h5 ] && ! compgen -G "bad.h5.tmp-*" >/dev/null || fail "$2: output left behind"
  echo "ok: $out"
}
sed 's/peri.json/nats.json/' circ/node_types.csv > circ/nats_types.csv
sed 's/node_types.csv/nats_types.csv/' circ/circuit_config.json > circ/nats.json
import_circ_refused "nats.json: node type 100: genome[5]: mechanism 'NaTs' (gbar_NaTs on soma): olive has hh and pas only" circ/nats.json
# JSON faults (json-c parses): a syntax fault names the file and the line, a
# value olive cannot hold (NaN) the file and the key path
printf '{\n  "manifest": {"$BASE_DIR": "."},\n  "networks": {"nodes": [] "edges": []}\n}\n' > circ/broken.json
import_circ_refused "circ/broken.json: line 3: not valid JSON: object value separator ',' expected" circ/broken.json
printf '{\n  "manifest": {\n' > circ/cut.json
import_circ_refused "circ/cut.json: line 3: not valid JSON: the text ends before the value does" circ/cut.json
sed 's/"ra": 138.5/"ra": NaN/' circ/models/peri.json > circ/models/nan.json
sed 's/peri.json/nan.json/' circ/node_types.csv > circ/nan_types.csv
sed 's/node_types.csv/nan_types.csv/' circ/circuit_config.json > circ/nan.json
import_circ_refused "models/nan.json: passive[0].ra: not valid JSON: NaN is not a finite number" circ/nan.json
# a key given twice in one object (the last would win silently): refused, naming the key and both lines
"$PY" - <<'PYEOF'
text = open("circ/circuit_config.json").read()
head, sep, rest = text.partition("{")
open("circ/dupkey.json", "w").write(head + sep + '\n  "components": {"morphologies_dir": "x",\n    "morphologies_dir": "y"},' + rest)
PYEOF
import_circ_refused 'circ/dupkey.json: line 3: key "morphologies_dir" is given twice in one object (also at line 2)' circ/dupkey.json
"$PY" - <<'PYEOF'
import h5py, json, numpy as np, shutil
c = json.load(open("circ/circuit_config.json"))
def variant(name, types=None, nodes=None):
    d = json.loads(json.dumps(c)); n = d["networks"]["nodes"][0]
    if types: open(f"circ/{name}_types.csv", "w").write(types); n["node_types_file"] = f"$BASE_DIR/{name}_types.csv"
    if nodes: shutil.copy("circ/nodes.h5", f"circ/{name}.h5"); n["nodes_file"] = f"$BASE_DIR/{name}.h5"; nodes(f"circ/{name}.h5")
    json.dump(d, open(f"circ/{name}.json", "w"))
variant("nofile", "node_type_id model_type pop_name morphology\n100 biophysical pyr nothere\n200 biophysical bas simple\n",
        lambda p: h5py.File(p, "r+")["nodes/v1/0"].__delitem__("morphology"))
def interleave(p):
    with h5py.File(p, "r+") as f:
        g = f["nodes/v1"]; del g["node_type_id"]; g["node_type_id"] = np.array([100, 200, 100, 200, 200], np.uint32)
variant("mixed", nodes=interleave)
variant("point", "node_type_id model_type pop_name\n100 point_neuron pyr\n200 biophysical bas\n")
PYEOF
import_circ_refused "node type 100: morphology 'nothere' is $PWD/circ/./morph/nothere.swc: No such file" circ/nofile.json
import_circ_refused "node 2 (node type 100, morphology 'cell') is not next to nodes 0-0" circ/mixed.json
import_circ_refused "node type 100 (node 0) has model_type 'point_neuron'; olive imports biophysical nodes" circ/point.json
venv="$TOP/$BUILD/venv-readers"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import libsonata" 2>/dev/null; then
  "$venv/bin/python" - <<'PYEOF' || fail "libsonata could not read the circuits"
import libsonata
for path, pop, m in (("circ/circuit_config.json", "v1", "cell"), ("bioex_circuit_config.json", "io", None)):
    cfg = libsonata.CircuitConfig.from_file(path)
    p = cfg.node_population(pop)
    assert p.size == 5, p.size
    if m:   # libsonata reads node attributes of the nodes file, not the node types table
        assert p.get_attribute("morphology", libsonata.Selection([0])) == [m]
    props = cfg.node_population_properties(pop)
    assert props.morphologies_dir.endswith("morph") or m is None, props.morphologies_dir
    print(path, p.size, props.type, props.morphologies_dir)
print("libsonata reads the biophysical circuits")
PYEOF
fi

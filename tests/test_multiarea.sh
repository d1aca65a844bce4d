#!/usr/bin/env bash
# The multi-area model (examples/multiarea/multiarea.py, docs/MULTIAREA.md).
# Always: a model object of the shape MultiAreaModel has (two areas, one
# without layer 4 as TH, an inter-area distance, the DC of down-scaling),
# made here, goes to olive-genconn's lines as NEST's simulation.py builds
# it: int() of every synapse count and cell count, weights |W| with W_sd onto
# the port of W's sign, delays delay_e / delay_i within an area and
# distance / interarea_speed between areas with SD delay_rel x mean, the
# Poisson drive as ceil(K_ext) inputs of NEST's total rate; the network it
# writes holds those populations, I_e and synapse counts and runs; an
# inhibitory cortico-cortical weight is refused.
# With OLIVE_MAM_CHECKOUT=DIR (a checkout of INM-6/multi-area-model with its
# config.py; its data are CC BY-NC-SA, so none is kept here): the model's own
# code derives the network at N_scaling = K_scaling = 0.01, NEST 3.10 runs it
# with the model's Simulation class twice (two draws) and olive once, 1 s:
# olive against NEST must agree as often as NEST against NEST (less 2 %;
# scripts/multiarea_nest_compare.py --baseline; about 3 minutes on the VM).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "${SANITIZED:-0}" = 1 ]; then echo "skipped under the sanitizer pass (the plugin is compiled by the test)"; exit 0; fi
"$PY" - "$TOP/examples/multiarea" <<'PYEOF' > lines.txt || fail "the model's numbers are not NEST's network"
import sys, types, math
import numpy as np
sys.path.insert(0, sys.argv[1])
import multiarea as mam
S = {"A": ["23E", "23I", "4E", "4I"], "TH": ["23E", "23I"]}
vec = [(a, p) for a in ("A", "TH") for p in S[a]]
N = {"A": {"23E": 100.7, "23I": 30.2, "4E": 80.9, "4I": 20.5}, "TH": {"23E": 60.99, "23I": 15.01}}
syn = {ta: {tp: {sa: {sp: 0.0 for sp in S[sa]} for sa in S} for tp in S[ta]} for ta in S}
W = {ta: {tp: {sa: {sp: 0.0 for sp in S[sa]} for sa in S} for tp in S[ta]} for ta in S}
Wsd = {ta: {tp: {sa: {sp: 0.0 for sp in S[sa]} for sa in S} for tp in S[ta]} for ta in S}
syn["A"]["23E"]["A"]["23E"], W["A"]["23E"]["A"]["23E"], Wsd["A"]["23E"]["A"]["23E"] = 1000.9, 87.8, 8.78
syn["A"]["23E"]["A"]["23I"], W["A"]["23E"]["A"]["23I"], Wsd["A"]["23E"]["A"]["23I"] = 500.5, -351.2, 35.1
syn["TH"]["23I"]["A"]["4E"], W["TH"]["23I"]["A"]["4E"], Wsd["TH"]["23I"]["A"]["4E"] = 77.7, 175.6, 17.6
syn["A"]["4I"]["TH"]["23E"], W["A"]["4I"]["TH"]["23E"] = 0.99, 87.8   # int() = 0: no projection
K = {a: {p: {"external": {"external": 1234.5 + i}} for i, p in enumerate(S[a])} for a in S}
for a in S:
    for p in S[a]:
        W[a][p]["external"] = {"external": 87.8}
M = types.SimpleNamespace(area_list=["A", "TH"], structure=S, N=N, synapses=syn, W=W, W_sd=Wsd, K=K,
                          distances={"TH": {"A": 7.0}, "A": {"TH": 7.0}}, add_DC_drive=np.arange(6) * 10.0,
                          params={"neuron_params": {"single_neuron_dict": dict(E_L=-65.0, V_th=-50.0, V_reset=-65.0,
                                  C_m=250.0, tau_m=10.0, tau_syn_ex=0.5, tau_syn_in=0.5, t_ref=2.0), "V0_mean": -150.0,
                                  "V0_sd": 50.0},
                                  "delay_params": dict(delay_e=1.5, delay_i=0.75, delay_rel=0.5, interarea_speed=3.5),
                                  "input_params": {"rate_ext": 10.0}})
m = mam.derive(M)
assert [(q["name"], q["count"], q["first"]) for q in m["populations"]] == [
    ("A_23E", 100, 0), ("A_23I", 30, 100), ("A_4E", 80, 130), ("A_4I", 20, 210), ("TH_23E", 60, 230), ("TH_23I", 15, 290)]
assert [q["I_e"] for q in m["populations"]] == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
L = mam.projection_lines(m)
assert L == [
    "from=A_23E,to=A_23E,total_out=1000,weight=normal:87.799999999999997:8.7799999999999994:0:inf,delay=normal:1.5:0.75:0.1:inf,receptor=exc_spikes",
    "from=A_23I,to=A_23E,total_out=500,weight=normal:351.19999999999999:35.100000000000001:0:inf,delay=normal:0.75:0.375:0.1:inf,receptor=inh_spikes",
    "from=A_4E,to=TH_23I,total_out=77,weight=normal:175.59999999999999:17.600000000000001:0:inf,delay=normal:2:1:0.1:inf,receptor=exc_spikes",
], L
cmd = mam.simulate_cmd(m, "n.h5", "r", 100, 1)
po = [cmd[i + 1] for i, c in enumerate(cmd) if c == "--poisson"]
assert len(po) == 6 and po[0] == f"rate={10 * 1234.5 / 1235:.17g},weight=87.799999999999997,receptor=exc_spikes,n=1235,cells=0:100", po[0]
assert po[5] == f"rate={10 * 1235.5 / 1236:.17g},weight=87.799999999999997,receptor=exc_spikes,n=1236,cells=290:305", po[5]
dc = mam.derive(M, dc=True)
assert abs(dc["populations"][1]["I_e"] - (10.0 + 1235.5 * 87.8 * 0.5 * 1e-3 * 10.0)) < 1e-9
assert "--poisson" not in mam.simulate_cmd(dc, "n.h5", "r", 100, 1)
W["TH"]["23I"]["A"]["4E"] = -5.0
try:
    mam.derive(M)
    raise AssertionError("an inhibitory cortico-cortical weight accepted")
except SystemExit as e:
    assert "its redraws would not end" in str(e), e
# the names NumPy 2 removed, given back (as on a host whose scipy needs NumPy 2) and nothing else touched
for name in ("Inf", "NINF", "in1d"):
    if hasattr(np, name):
        delattr(np, name)
mam.numpy2_names()
assert np.Inf == np.inf and np.NINF == -np.inf and np.isneginf(np.NINF), (np.Inf, np.NINF)
assert list(np.in1d(np.array(["23E", "4I", "6E"]), ["4I", "6E"])) == [False, True, True]
print("\n".join(L))
g = mam.genconn_cmd(m, "PLUGIN", "net.h5", "proj.txt", 3)
print("GENCONN " + " ".join(g[1:]))
PYEOF
grep -q "^GENCONN" lines.txt || fail "no genconn command"
grep -v "^GENCONN" lines.txt > proj.txt
# the plugin's parameters and ports are NESTML's; lif_cuba's stand in here (its receptors ge/gi, its I_e)
read -r -a args <<< "$(sed -n 's/^GENCONN //p' lines.txt | sed 's/--model PLUGIN//; s/--param [^ ]*//g; s/--v0 [^ ]*//')"
sed -i 's/exc_spikes/ge/; s/inh_spikes/gi/' proj.txt
"$BIN/olive-genconn" "${args[@]}" --model lif_cuba --param I_e=0 --v0 -65:-55 > /dev/null
"$PY" - <<'PYEOF' || fail "the written network is not the model's"
import h5py, numpy as np
f = h5py.File("net.h5")
pops = f["cells"]["populations"]
assert [(k, int(pops[k].attrs["count"])) for k in ("A_23E", "A_23I", "A_4E", "A_4I", "TH_23E", "TH_23I")] == \
    [("A_23E", 100), ("A_23I", 30), ("A_4E", 80), ("A_4I", 20), ("TH_23E", 60), ("TH_23I", 15)]
s = f["synapses"]
assert sorted(k for k in s if isinstance(s[k], h5py.Group)) == ["ge", "gi"]
rp, col = s["ge"]["row_ptr"][:], s["ge"]["col"][:]
deg = np.diff(rp)
assert deg[0:100].sum() == 1000 and deg[290:305].sum() == 77 and deg.sum() == 1077, deg.sum()
assert ((col[rp[290]:] >= 130) & (col[rp[290]:] < 210)).all()
d = s["ge"]["delay"][:]
assert 10 <= d[rp[290]:].mean() * 1 <= 30, d[rp[290]:].mean()       # ~2 ms = 20 steps
assert np.diff(s["gi"]["row_ptr"][:]).sum() == 500
print("net.h5: 6 populations, 1077 + 500 synapses, the inter-area ones from A_4E into TH_23I")
PYEOF
"$BIN/olive-simulate" -q net.h5 -o run --time 50 || fail "the network does not run"
echo "the model's numbers become NEST's network (a made-up model of the model's shape)"
if [ -z "${OLIVE_MAM_CHECKOUT:-}" ]; then
  echo "OLIVE_MAM_CHECKOUT not set: the comparison with NEST on the model's own code is skipped"
  exit 0
fi
source "$TESTS/nestml_venv.sh"   # (the plugin: NESTML's iaf_psc_exp_neuron, as the microcircuit's)
"$nestml_venv/bin/python" "$TOP/examples/microcircuit/microcircuit.py" --make-model \
    "$nestml_venv/models/neurons/iaf_psc_exp_neuron.nestml" iaf_psc_exp_v0_neuron.nestml
export OLIVE_MODEL_CACHE="$PWD/cache"
so=$(PYTHONPATH="$TOP/python" OLIVE_MODEL_CUDA=0 "$nestml_venv/bin/python" -m olive.nestml build \
     iaf_psc_exp_v0_neuron.nestml 2> build.log) || { cat build.log >&2; fail "the model did not build"; }
source "$TESTS/multiarea_venv.sh"
"$venv/bin/python" "$TOP/scripts/multiarea_nest_compare.py" --mam "$OLIVE_MAM_CHECKOUT" --bin "$BIN" --plugin "$so" \
    --scale 0.01 --time 1000 --baseline --work mac > compare.txt 2> compare.err || {
  grep -v "^\[INFO\]" compare.txt | tail -30 >&2; tail -20 compare.err >&2; fail "olive and NEST disagree"; }
grep "agree within\|mean rate\|real-time" compare.txt

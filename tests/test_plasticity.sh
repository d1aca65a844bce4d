#!/usr/bin/env bash
# Plastic synapses (docs/MODELS.md, "Plastic synapses"; common/models/plasticity.h):
# - olive-genconn writes a projection's rule and parameters as attributes
#   (docs/FORMAT.md), NEST's defaults for those left out;
# - NEST 3.10 (pinned PyPI, tests/peer_venv.sh) runs olive's network read from
#   olive's file (scripts/nest_plasticity_compare.py): with stdp_synapse
#   (additive and multiplicative), tsodyks_synapse and tsodyks2_synapse, 100
#   neurons for 1 s give identical spike steps (stdp_nn_symm_synapse too), and every plastic synapse's
#   final weight (stdp) or x, y, u (Tsodyks-Markram) equals NEST's to 1e-12
#   relative; the same network with static synapses is the control;
# - 1 = 3 ranks = 1 thread: the same spikes and the same final weights and
#   states, bit for bit; a restart from a state in mid-window, on another
#   rank count, continues the unbroken run bit for bit;
# - weights.h5 (--record-weights) holds every frame's weights as state.h5
#   would after its step, on any rank count and across a restart;
# - faults are refused, named;
# - Python's table of the rules (olive.writer.PLASTICITY) is the C one
#   (common/models/plasticity_rules.h and the rules' files).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
"$PY" "$TESTS/check_plasticity_tables.py" "$TOP" || fail "Python's plasticity table differs from the C one"
expect_fail() {  # message, command...
  local msg=$1; shift
  if "$@" > out.txt 2>&1; then fail "accepted: $*"; fi
  grep -q -- "$msg" out.txt || { cat out.txt; fail "no '$msg' in the message of: $*"; }
}

# the file: the rule and every parameter (Wmax given, the others NEST's defaults)
"$G" -q -o one.h5 --model lif_cuba --population e:20 \
    --projection from=e,to=e,p=0.2,weight=1,delay=1,receptor=ge,plasticity=stdp,Wmax=4.5 \
    --projection from=e,to=e,p=0.2,weight=2,delay=2,receptor=ge,name=short,plasticity=tsodyks,tau_fac=50
"$PY" - <<'PYEOF' || fail "the plasticity attributes are not what was asked"
import h5py
g = h5py.File("one.h5")["synapses"]
s, t = g["e_to_e"].attrs, g["short"].attrs
def val(x): return x.decode() if isinstance(x, bytes) else x
assert val(s["plasticity"]) == "stdp" and val(t["plasticity"]) == "tsodyks", (s["plasticity"], t["plasticity"])
want = dict(tau_plus=20, **{"lambda": 0.01}, alpha=1, mu_plus=1, mu_minus=1, Wmax=4.5, tau_minus=20)
assert {k[11:]: float(v) for k, v in s.items() if k.startswith("plasticity_")} == want, dict(s)
want = dict(U=0.5, tau_psc=3, tau_rec=800, tau_fac=50, x=1, y=0, u=0)
assert {k[11:]: float(v) for k, v in t.items() if k.startswith("plasticity_")} == want, dict(t)
PYEOF

# NEST on the same network (the normal build: the sanitizer pass runs olive's own checks)
if [ "$BUILD" != build-san ]; then
  source "$TESTS/peer_venv.sh"
  for rule in static stdp stdp_nn_symm tsodyks tsodyks2; do
    OMP_NUM_THREADS=1 "$venv/bin/python" "$TOP/scripts/nest_plasticity_compare.py" --bin "$BIN" --rule $rule \
        --time 1000 --work nest_$rule --json nest_$rule.json | tee nest_$rule.txt || fail "$rule: olive differs from NEST"
    grep -q PASS nest_$rule.txt || fail "$rule: no verdict"
  done
  "$PY" - <<'PYEOF' || fail "the NEST comparisons compared too little"
import json
for rule, spikes, values in (("static", 1000, 0), ("stdp", 500, 1500), ("stdp_nn_symm", 500, 1500), ("tsodyks", 100, 3000),
                             ("tsodyks2", 200, 2000)):
    r = json.load(open(f"nest_{rule}.json"))
    assert r["passed"] and r["cells_differing"] == 0 and r["olive_spikes"] == r["nest_spikes"] >= spikes, (rule, r)
    assert r["values"] >= values and r["max_rel"] <= 1e-12, (rule, r)
    assert rule == "static" or r["changed"] > r["values"] // 3, (rule, r)   # the rule did change them
PYEOF
  net=nest_stdp/net.h5
else
  # the comparison's network, made here (the same olive-genconn command)
  "$G" -q -o stdp.h5 --model lif_cuba --seed 3 --dt 0.1 --source-poisson inp:50:20:1 --population e:80 --population i:20 \
      --param E_L=-70 --param V_th=-55 --param V_reset=-70 --param t_ref=2.1 --param tau_m=10 --param tau_e=2 \
      --param tau_i=2 --param I_e=14 --param v0=-70 \
      --projection from=inp,to=e,p=0.3,weight=2.0,delay=1.5,receptor=ge,plasticity=stdp,Wmax=6,lambda=0.05,alpha=1.05,tau_plus=16.8,tau_minus=33.7,mu_plus=0,mu_minus=0 \
      --projection from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no,plasticity=stdp,Wmax=3,lambda=0.02,alpha=0.9,tau_plus=16.8,tau_minus=33.7 \
      --projection from=e,to=i,p=0.1,weight=1.0,delay=1.0,receptor=ge \
      --projection from=i,to=e,p=0.2,weight=-3.0,delay=0.8,receptor=gi \
      --projection from=i,to=i,p=0.2,weight=-3.0,delay=0.8,receptor=gi,autapses=no
  net=stdp.h5
fi

# 1 rank = 3 ranks = 1 thread, bit for bit (spikes, weights, traces)
"$S" -q "$net" --time 500 -o r1 --backend cpu
OMP_NUM_THREADS=1 "$S" -q "$net" --time 500 -o t1 --backend cpu
mpirun -np 3 "$S" -q "$net" --time 500 -o r3 --backend cpu
OLIVE_SETUP_SOURCE_ARRAY=1 "$S" -q "$net" --time 500 -o sa --backend cpu   # (the lists' other making: spk_setup.c)
for other in t1 r3 sa; do
  h5diff r1/spikes.h5 $other/spikes.h5 /spikes /spikes || fail "$other: the spikes differ from 1 rank's"
  h5diff r1/state.h5 $other/state.h5 /state/plastic /state/plastic || fail "$other: the plastic synapses differ from 1 rank's"
done
"$PY" - <<'PYEOF' || fail "the weights did not move"
import h5py, numpy as np
g = h5py.File("r1/state.h5")["state/plastic"]
w = g["inp_to_e/weight"][:]
assert len(w) > 1000 and np.sum(w != 2.0) > len(w) // 2 and w.min() >= 0 and w.max() <= 6, (len(w), w.min(), w.max())
assert (g["inp_to_e/last_spike_step"][:] >= 10).all()   # every source spiked (from 1 ms on)
PYEOF

# checkpoint and restart: a state in mid-window (step 3333, windows of 8 steps), continued on 3 ranks,
# gives the unbroken run's spikes and final state, bit for bit; checkpoints do not change the run
"$S" -q "$net" --time 1000 -o whole --backend cpu
"$S" -q "$net" --time 333.3 -o first --backend cpu
mpirun -np 3 "$S" -q "$net" --time 1000 -o rest --restart first/state.h5
"$S" -q "$net" --time 1000 -o ckpt --checkpoint-every 2501
for v in v ge gi ref plastic plastic_history_step plastic_history_kminus plastic_queue_sums plastic_window; do
  h5diff whole/state.h5 rest/state.h5 /state/$v /state/$v || fail "the restarted run's /state/$v differs from the unbroken run's"
  h5diff whole/state.h5 ckpt/state.h5 /state/$v /state/$v || fail "a run with checkpoints has another /state/$v"
done
"$PY" - <<'PYEOF' || fail "the restarted run's spikes are not the unbroken run's"
import h5py, numpy as np
def spikes(d, after=0):
    f = h5py.File(d + "/spikes.h5")
    return sorted((round(t / 0.1), int(g.attrs["first_cell"]) + int(i)) for g in f["spikes"].values()
                  for t, i in zip(g["timestamps"][:], g["node_ids"][:]) if t > after)
w, r, f = spikes("whole", 333.3), spikes("rest"), h5py.File("first/state.h5")["state"]
assert w == r and len(r) > 500, (len(w), len(r))
# the state in mid-window: spikes not exchanged yet, events queued
assert f["plastic_window"][0] == 3328 and (f["in_flight_step"][:] >= 3328).any() and len(f["plastic_queue_cell"]) > 0
PYEOF
cp first/state.h5 bad_state.h5
"$PY" -c "
import h5py
with h5py.File('bad_state.h5', 'a') as f: f['state/plastic_window'][0] = 3000"
expect_fail "bad_state.h5: /state/plastic_window = 3000 is not the start of an exchange window" \
    "$S" -q "$net" --time 1000 -o x7 --restart bad_state.h5
cp first/state.h5 bad_state.h5
"$PY" -c "
import h5py
with h5py.File('bad_state.h5', 'a') as f: f['state/plastic/inp_to_e/weight'][5] = -1.0"
expect_fail "bad_state.h5: /state/plastic/inp_to_e/weight\[5\] = -1: a weight and Wmax must have the same sign" \
    "$S" -q "$net" --time 1000 -o x8 --restart bad_state.h5
# the CUDA engine keeps plastic synapses' queued events on the device: a restart there is refused, named
# (a build without CUDA refuses --backend cuda itself)
expect_fail "plastic synapses' queued events stay on the device\|built without CUDA" \
    "$S" -q "$net" --time 1000 -o x9 --restart first/state.h5 --backend cuda

# weights.h5 (--record-weights): every frame holds the weights state.h5 holds after its step (the
# runs of 400 ms and the restart's), on 1 rank and 3 (bit for bit, mapping included), continued
# by a restart bit for bit; the mapping is the file's synapses (targets, sources, indices)
W="--record-weights inp_to_e --record-weights e_to_e:10:300 --record-weights-every 80"
"$S" -q "$net" --time 480 -o w1 --backend cpu $W
mpirun -np 3 "$S" -q "$net" --time 480 -o w3 --backend cpu $W
h5diff w1/weights.h5 w3/weights.h5 /report /report || fail "weights.h5 differs between 1 and 3 ranks"
"$S" -q "$net" --time 400 -o w400 --backend cpu
mpirun -np 2 "$S" -q "$net" --time 480 -o wr --restart first/state.h5 $W
"$PY" - "$net" <<'PYEOF' || fail "weights.h5 is not the weights state.h5 holds, or not the file's synapses"
import sys, h5py, numpy as np
net = h5py.File(sys.argv[1])["synapses"]
r = h5py.File("w1/weights.h5")["report"]
for proj, a, b in (("inp_to_e", 0, len(net["inp_to_e/col"])), ("e_to_e", 10, 300)):
    g, m = r[proj], r[proj]["mapping"]
    d = g["data"][:]
    assert d.shape == (60, b - a) and g["data"].dtype == np.float64, d.shape
    assert list(m["time"][:]) == [8.0, 488.0, 8.0], m["time"][:]
    assert g.attrs["plasticity"] in ("stdp", b"stdp") and g.attrs["synapses"] == len(net[proj + "/col"])
    assert (m["element_ids"][:] == np.arange(a, b)).all()
    rp, col = net[proj + "/row_ptr"][:], net[proj + "/col"][:]
    tgt = np.repeat(np.arange(len(rp) - 1), np.diff(rp))[a:b]
    assert (m["source_ids"][:] == col[a:b]).all()
    ids, ptr = m["node_ids"][:].astype(np.int64), m["index_pointers"][:].astype(np.int64)
    assert (np.repeat(ids, np.diff(ptr)) == tgt).all() and ptr[0] == 0 and ptr[-1] == b - a
    # frame 49 is after step 4000, the last after step 4800: the runs' final states, bit for bit
    for frame, state in ((49, "w400"), (59, "w1")):
        w = h5py.File(state + "/state.h5")["state/plastic/" + proj + "/weight"][a:b]
        assert (d[frame] == w).all(), (proj, frame, np.abs(d[frame] - w).max())
    assert (d[0] != d[-1]).sum() > (b - a) // 4, "the weights did not move"
    # the restart from step 3333 continues the frames from the first after it (step 3360), bit for bit
    c = h5py.File("wr/weights.h5")["report/" + proj]
    assert list(c["mapping/time"][:]) == [336.0, 488.0, 8.0] and (c["data"][:] == d[41:]).all(), proj
PYEOF
expect_fail "not a multiple of $net's exchange window, 8 step(s)" "$S" -q "$net" --time 10 -o x9 --record-weights inp_to_e --record-weights-every 12
expect_fail "projection e_to_i of $net is static" "$S" -q "$net" --time 10 -o x10 --record-weights e_to_i
expect_fail "$net has no plastic projection nope" "$S" -q "$net" --time 10 -o x11 --record-weights nope
expect_fail "projection e_to_e of $net has" "$S" -q "$net" --time 10 -o x12 --record-weights e_to_e:0:99999999
expect_fail "':A:B' with 0 <= A < B" "$S" -q "$net" --time 10 -o x13 --record-weights e_to_e:5:5
expect_fail "without --record-weights" "$S" -q "$net" --time 10 -o x14 --record-weights-every 8
for d in x9 x10 x11 x12 x13 x14; do [ ! -e $d ] || fail "a refused run left $d"; done

# faults, named
P="from=e,to=e,p=0.2,weight=1,delay=1,receptor=ge"
expect_fail "tau_plus must be > 0" "$G" -q -o bad.h5 --model lif_cuba --population e:5 --projection $P,plasticity=stdp,tau_plus=-1
expect_fail "tau_rec is not a parameter of plasticity=stdp" "$G" -q -o bad.h5 --model lif_cuba --population e:5 --projection $P,plasticity=stdp,tau_rec=5
expect_fail "give plasticity=RULE first" "$G" -q -o bad.h5 --model lif_cuba --population e:5 --projection $P,tau_plus=5
expect_fail "plasticity='hebb' is not" "$G" -q -o bad.h5 --model lif_cuba --population e:5 --projection $P,plasticity=hebb
expect_fail "same sign" "$G" -q -o bad.h5 --model lif_cuba --population e:5 --projection $P,plasticity=stdp,Wmax=-1
expect_fail "tau_psc must differ from tau_rec" "$G" -q -o bad.h5 --model lif_cuba --population e:5 --projection $P,plasticity=tsodyks,tau_psc=5,tau_rec=5
[ ! -e bad.h5 ] || fail "a refused network left bad.h5"
cp one.h5 damaged.h5
"$PY" -c "
import h5py
with h5py.File('damaged.h5', 'a') as f: f['synapses/short'].attrs['plasticity'] = 'hebb'"
expect_fail "damaged.h5: /synapses/short: plasticity 'hebb' is not a rule olive knows" "$S" -q damaged.h5 --time 10 -o x1
cp one.h5 damaged.h5
"$PY" -c "
import h5py
with h5py.File('damaged.h5', 'a') as f: del f['synapses/e_to_e'].attrs['plasticity_tau_plus']"
expect_fail "damaged.h5: /synapses/e_to_e: plasticity stdp needs the attribute 'plasticity_tau_plus'" "$S" -q damaged.h5 --time 10 -o x2
cp one.h5 damaged.h5
"$PY" -c "
import h5py
with h5py.File('damaged.h5', 'a') as f: f['synapses/short'].attrs['plasticity_tau_plus'] = 3.0"
expect_fail "damaged.h5: /synapses/short: attribute 'plasticity_tau_plus' is not a projection attribute" "$S" -q damaged.h5 --time 10 -o x3
cp one.h5 damaged.h5
"$PY" -c "
import h5py
with h5py.File('damaged.h5', 'a') as f: f['synapses/short'].attrs['plasticity_U'] = 1.5"
expect_fail "plasticity tsodyks: U must be in \[0, 1\]" "$S" -q damaged.h5 --time 10 -o x4
"$G" -q -o tau.h5 --model lif_cuba --population e:20 \
    --projection from=e,to=e,p=0.5,weight=1,delay=1,receptor=ge,plasticity=stdp,tau_minus=20 \
    --projection from=e,to=e,p=0.5,weight=1,delay=1,receptor=ge,name=other,plasticity=stdp,tau_minus=30
expect_fail "a cell has one tau_minus" "$S" -q tau.h5 --time 10 -o x5
# a rule's parameters far out of range (alpha = -1e300: depression grows the
# weight without bound): stopped where the weight becomes non-finite, naming
# the projection, the synapse and the rule, not a cell's voltage later
"$G" -q -o alpha.h5 --model lif_cuba --population e:50 --v0 -60:-50 --param I_e=30 \
    --projection name=grow,from=e,to=e,p=0.3,weight=1,delay=1,receptor=ge,plasticity=stdp,Wmax=4.5,alpha=-1e300
if "$S" -q alpha.h5 --steps 2000 -o x9 2> alpha.err; then fail "alpha = -1e300 ran to the end"; fi
grep -Eq "plastic projection grow: synapse [0-9]+ .* got the non-finite weight -?inf at the spike of step [0-9]+ \(plasticity=stdp: .*alpha = -1e\+300" alpha.err \
  || { cat alpha.err >&2; fail "alpha = -1e300: the message does not name the projection, synapse and rule"; }
# --record-weights of a projection that is not there names those that are;
# olive.read_run reads a run that recorded weights (spikes, reports, weights)
"$G" -q -o rw.h5 --model lif_cuba --population e:40 --v0 -60:-50 --param I_e=30 \
    --projection name=ee,from=e,to=e,p=0.3,weight=1,delay=1,receptor=ge,plasticity=stdp,Wmax=4.5
if "$S" -q rw.h5 --steps 300 -o x10 --record-weights exc 2> rw.err; then fail "--record-weights exc accepted"; fi
grep -q "has no plastic projection exc (its plastic projections: ee)" rw.err || { cat rw.err >&2; fail "--record-weights exc: the projections are not named"; }
"$S" -q rw.h5 --steps 300 -o rw --record-weights ee --record v
PYTHONPATH="$TOP/python" "$PY" - <<'PYEOF' || fail "olive.read_run of a run with weights.h5"
import h5py, numpy as np, olive
r = olive.read_run("rw")
assert len(r.spikes.times) > 0 and "v" in r.reports and list(r.weights) == ["ee"], (list(r.reports), list(r.weights))
w = r.weights["ee"]
with h5py.File("rw/weights.h5") as f:
    assert w.frames == f["report/ee/data"].shape[0] and w.index_pointers[-1] == f["report/ee/data"].shape[1]
print("ok read_run: spikes", len(r.spikes.times), "weights of ee:", w.frames, "frames")
PYEOF
for d in x1 x2 x3 x4 x5 x7 x8 x9 x10; do [ ! -e $d ] || fail "a refused run left $d"; done
echo "plasticity: NEST comparisons, ranks, refusals ok"

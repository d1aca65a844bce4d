#!/usr/bin/env bash
# Checkpoint/restart of spiking networks: a run continued from a state file
# is bit-identical to an unbroken one (spikes, reports, final state), also
# when the state's step is inside an exchange window and events are still in
# flight (delays 0.2-4 ms), for a state written on 1 rank continued on 2 and
# one of 2 ranks writing checkpoints continued on 3; cable cells (every compartment, synapse
# and site) alike. A state that does not match the run
# (other cells, synapses, weights, model or method) is refused, naming the
# file and the fault; so are the engines and models
# without a restart. State files are sealed by a checksum (byte flips refused
# or harmless), spikes in flight must be integers, in range, each once; after
# kill -9 the checkpoint's spikes.h5 and a restart give the unbroken run.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$BIN/olive-genconn" -o net.h5 --model lif_cuba --population exc:800 --population inh:200 --v0 -60:-50 --seed 3 -q \
  --projection from=exc,to=all,p=0.04,weight=0.6,delay=0.5:3,receptor=ge \
  --projection from=inh,to=all,p=0.04,weight=-2,delay=0.2:4,receptor=gi
IN=(--poisson rate=200,weight=5,receptor=ge,n=2 --pulse 20:25:30:0:100 --record v,ge,gi --record-every 10)
run() {  # P OUT STEPS [extra args]
  local P=$1 out=$2 steps=$3; shift 3
  mpirun -np "$P" --oversubscribe "$S" net.h5 -o "$out" --steps "$steps" "${IN[@]}" "$@" -q
}
. "$TESTS/same_run.sh"
same() { same_run v,ge,gi 100 "$@"; }   # REF FIRST-STEP PART...

# ---- the reference: 1200 steps unbroken, 1 rank
run 1 ref 1200
# ---- stopped at step 613 (inside a 2-step window, events in flight), continued on 2 ranks
run 1 a 613
n=$("$PY" -c "import h5py; print(len(h5py.File('a/state.h5')['state/in_flight_step']))")
[ "$n" -gt 50 ] || fail "only $n spikes in flight at step 613: a weak test"
run 2 b 1200 --restart a/state.h5
same ref 0 a b || fail "1 rank to 613, then 2 ranks: not the unbroken run"
# ---- pieces shorter than the longest delay (40 steps): the spikes a restart
# brought in are still in flight at the next state
run 2 p1 620 --restart a/state.h5
run 1 p2 623 --restart p1/state.h5
run 3 p3 1200 --restart p2/state.h5
same ref 0 a p1 p2 p3 || fail "pieces of 7 and 3 steps: not the unbroken run"
# ---- checkpoints every 300 steps on 2 ranks up to step 900, continued on 3
run 2 ck 900 --checkpoint-every 300
[ "$("$PY" -c "import h5py; print(h5py.File('ck/state.h5')['state'].attrs['step'])")" = 900 ] || fail "ck/state.h5 is not at step 900"
run 3 c 1200 --restart ck/state.h5
same ref 0 ck c || fail "2 ranks with checkpoints to 900, then 3 ranks: not the unbroken run"

# ---- refusals: each names the file or option and the fault, exit non-zero, no output
refuse() {  # EXPECTED-MESSAGE ARGS...
  local want=$1; shift
  rm -rf bad
  if "$S" "$@" -o bad -q 2>err.txt; then fail "accepted: $*"; fi
  grep -q -- "$want" err.txt || { cat err.txt; fail "'$*': expected '$want'"; }
  [ ! -e bad ] || fail "'$*' left bad behind"
}
"$BIN/olive-genconn" -o other.h5 --model lif_cuba --population exc:800 --population inh:200 --seed 4 -q \
  --projection from=exc,to=all,p=0.04,weight=0.6,delay=0.5:3,receptor=ge
refuse "a/state.h5: the state belongs to a network of" other.h5 --steps 1200 --restart a/state.h5
"$BIN/olive-genconn" -o weights.h5 --model lif_cuba --population exc:800 --population inh:200 --v0 -60:-50 --seed 3 -q \
  --projection from=exc,to=all,p=0.04,weight=0.61,delay=0.5:3,receptor=ge \
  --projection from=inh,to=all,p=0.04,weight=-2,delay=0.2:4,receptor=gi
refuse "a/state.h5: the state belongs to a network with other synapses" weights.h5 --steps 1200 --restart a/state.h5
refuse "a/state.h5: the state is at step 613" net.h5 --steps 600 --restart a/state.h5
refuse "the state was computed with --method" net.h5 --steps 1200 --restart a/state.h5 --method euler
# (the CUDA engine continues this network, on one rank: scripts/gpu-checkpoint-check.sh; here no GPU)
refuse "sees no CUDA device\|built without CUDA" net.h5 --steps 1200 --restart a/state.h5 --backend cuda
rm -rf bad
if mpirun -np 2 --oversubscribe "$S" net.h5 --steps 1200 --restart a/state.h5 --backend cuda -o bad -q > err.txt 2>&1; then
  fail "accepted: a restart with --backend cuda on 2 ranks"; fi
grep -q "on several ranks the spikes go through host push\|built without CUDA" err.txt || { cat err.txt; fail "2 ranks, --backend cuda: the restart's refusal"; }
[ ! -e bad ] || fail "the refused 2-rank restart left bad behind"
"$BIN/olive-genconn" -o coba.h5 --model lif_coba --population exc:1000 -q
refuse "a/state.h5: the state is of a lif_cuba network" coba.h5 --steps 1200 --restart a/state.h5
"$BIN/olive-genconn" -o cable.h5 --model hh_cable --population exc:2 -q
refuse "a/state.h5: the state is of a lif_cuba network, cable.h5 is a hh_cable network" cable.h5 --steps 10 --restart a/state.h5

# ---- cable cells (hh_cable, Exp2Syn at dendrite sites, synapses at the soma, a Poisson drive): every
# compartment, synapse and site in the state (/state/cable_x); stopped at step 1237 on 1 rank, continued on 3;
# checkpoints of 2 ranks continued on 1: the unbroken run's spikes, compartment report and state, bit for bit
"$BIN/olive-genconn" -q -o cab.h5 --model hh_cable --population a:12 --population b:6 --seed 5 \
  --param tau_rise_e=0.5 --v0 -70:-60 \
  --projection from=all,to=a,indegree=20,weight=0.002:0.004,delay=0.5:2,receptor=ge,sites=dend:20:200 \
  --projection from=a,to=all,indegree=8,weight=0.002,delay=1,receptor=gi,sites=soma:0:10
CIN=(--poisson rate=1000,weight=0.01,receptor=ge,n=3 --record-every 5)
crun() {  # P OUT STEPS [extra args]
  local P=$1 out=$2 steps=$3; shift 3
  mpirun -np "$P" --oversubscribe "$S" cab.h5 -o "$out" --steps "$steps" "${CIN[@]}" "$@" -q
}
crun 1 cref 2400 --record-compartments v
crun 1 ca 1237
crun 3 cb 2400 --restart ca/state.h5 --record-compartments v
crun 2 cc 2400 --checkpoint-every 700
crun 2 cd1 1400 --checkpoint-every 700
crun 1 cd2 2400 --restart cd1/state.h5 --record-compartments v
refuse "--record-compartments and --checkpoint-every" cab.h5 --steps 10 --checkpoint-every 5 --record-compartments v
"$PY" - <<'PY' || fail "cable cells: a restarted run differs from the unbroken one"
import h5py, numpy as np
def ds(p):
    out = {}
    with h5py.File(p) as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out
ref = ds("cref/state.h5")
assert {"state/cable_x", "state/cable_len"} <= set(ref) and len(ref["state/cable_x"]) > 18 * 30, sorted(ref)
for other in ("cb", "cc", "cd2"):
    st = ds(f"{other}/state.h5")
    bad = [k for k in ref if not np.array_equal(ref[k], st[k])]
    assert not bad, (other, bad)
sr = h5py.File("cref/spikes.h5")["spikes"]
for other, t0 in (("cb", 1237 * 0.025), ("cd2", 1400 * 0.025)):
    so = h5py.File(f"{other}/spikes.h5")["spikes"]
    for p in ("a", "b"):
        t, i = sr[p]["timestamps"][:], sr[p]["node_ids"][:]
        keep = t >= t0 - 1e-9
        a = sorted(zip(t[keep], i[keep])); b = sorted(zip(so[p]["timestamps"][:], so[p]["node_ids"][:]))
        assert a == b and len(a) > 10, (other, p, len(a), len(b))
    rv, ov = h5py.File("cref/v_compartments.h5")["report/a/data"], h5py.File(f"{other}/v_compartments.h5")["report/a/data"]
    assert rv[-ov.shape[0]:].tobytes() == ov[:].tobytes(), other
print("cable restart: 1 -> 3 ranks and 2 -> 1 ranks = the unbroken run")
PY
# a --param that changes the cells' segments (a restart may change parameters): their records no longer fit
if mpirun -np 1 "$S" cab.h5 -o cbad --steps 2400 --restart ca/state.h5 --param dend_nseg=7 -q > cbad.txt 2>&1; then
  fail "a state of cells of other segments was accepted"; fi
grep -q "ca/state.h5: cell 0's compartments and synapses take [0-9]* values here, [0-9]* in the state" cbad.txt \
  || fail "cells of other segments: $(cat cbad.txt)"
[ ! -e cbad ] || fail "a refused restart left cbad behind"

# ---- a state file is sealed by a checksum: byte flips (most inside the data)
# are refused naming the copy, or change nothing; bad spikes in flight are
# refused naming the dataset and entry before the checksum is looked at
run 1 r640 640 --restart a/state.h5
if [ "$SANITIZED" = 1 ]; then nflip=(6 4); else nflip=(30 15); fi
"$PY" "$TESTS/flip_state.py" a/state.h5 r640 "${nflip[@]}" -- "$S" net.h5 -o {out} --steps 640 "${IN[@]}" -q \
  --restart {state} || fail "byte flips in a/state.h5"
"$PY" - <<'PY'
import h5py, numpy as np, shutil
with h5py.File("a/state.h5") as f:
    st, ce = f["state/in_flight_step"][:], f["state/in_flight_cell"][:]
def edit(name, change):
    shutil.copy("a/state.h5", f"{name}.h5")
    with h5py.File(f"{name}.h5", "a") as f:
        change(f["state"])
def put(g, name, data):
    del g[name]
    g[name] = data
edit("float", lambda g: put(g, "in_flight_step", st.astype("f8") + 0.25))
edit("negstep", lambda g: g["in_flight_step"].__setitem__(3, -1))
edit("oldstep", lambda g: g["in_flight_step"].__setitem__(3, 613 - 41))
edit("negcell", lambda g: g["in_flight_cell"].__setitem__(5, -2))
edit("bigcell", lambda g: g["in_flight_cell"].__setitem__(5, 1000))
edit("dup", lambda g: (put(g, "in_flight_step", np.append(st, st[7])), put(g, "in_flight_cell", np.append(ce, ce[7]))))
edit("nosum", lambda g: g.attrs.__delitem__("checksum"))
edit("changed", lambda g: g["v"].__setitem__(0, g["v"][0] + 1e-9))
PY
m=$("$PY" -c "import h5py; print(len(h5py.File('a/state.h5')['state/in_flight_step']))")
refuse "float.h5: /state/in_flight_step is not an integer dataset" net.h5 --steps 1200 --restart float.h5
refuse "negstep.h5: /state/in_flight_step\[3\] = -1 is negative" net.h5 --steps 1200 --restart negstep.h5
refuse "oldstep.h5: /state/in_flight_step\[3\] = 572 is not a step of the 40 before" net.h5 --steps 1200 --restart oldstep.h5
refuse "negcell.h5: /state/in_flight_cell\[5\] = -2 is not a cell" net.h5 --steps 1200 --restart negcell.h5
refuse "bigcell.h5: /state/in_flight_cell\[5\] = 1000 is not a cell" net.h5 --steps 1200 --restart bigcell.h5
refuse "dup.h5: .*entries 7 and $m are the same spike" net.h5 --steps 1200 --restart dup.h5
refuse "nosum.h5: /state has no 'checksum' attribute" net.h5 --steps 1200 --restart nosum.h5
refuse "changed.h5: /state checksum [0-9a-f]* does not match the file's contents" net.h5 --steps 1200 --restart changed.h5

# ---- kill -9 after a checkpoint: OUTDIR keeps state.h5 and spikes.h5 up to
# (at least) its step; the restart continues, and the two parts are exactly
# the unbroken run's spikes and final state
"$S" net.h5 -o k9 --steps 2000000 "${IN[@]}" --checkpoint-every 500 -q 2>/dev/null &
pid=$!
for _ in $(seq 600); do [ -e k9/state.h5 ] && break; sleep 0.05; done
kill -KILL $pid
{ wait $pid; } 2>/dev/null || true
[ -e k9/state.h5 ] && [ -e k9/spikes.h5 ] || fail "kill -9: k9 holds $(ls k9)"
k=$("$PY" -c "import h5py; print(h5py.File('k9/state.h5')['state'].attrs['step'])")
run 1 k9r $((k + 300)) --restart k9/state.h5
run 1 k9ref $((k + 300))
"$PY" - "$k" <<'PY' || fail "kill -9 at the checkpoint of step $k: spikes.h5 + the restart are not the unbroken run"
import sys, h5py, numpy as np
k = int(sys.argv[1])
def spikes(d):
    with h5py.File(f"{d}/spikes.h5") as f:
        g = f["spikes"][list(f["spikes"])[0]]
        return g["timestamps"][:], g["node_ids"][:], f.attrs["end_step"]
kt, ki, kend = spikes("k9")
assert kend >= k and (kt <= kend * 0.1 + 1e-9).all(), (kend, k)
keep = kt <= k * 0.1 + 1e-9   # spike of step i at (i + 1) dt: steps < k
rt, ri, _ = spikes("k9r")
ut, ui, _ = spikes("k9ref")
assert np.array_equal(np.concatenate([kt[keep], rt]), ut) and np.array_equal(np.concatenate([ki[keep], ri]), ui)
with h5py.File("k9r/state.h5") as a, h5py.File("k9ref/state.h5") as b:
    for v in ["v", "ge", "gi", "ref"]:
        assert np.array_equal(a["state"][v][:], b["state"][v][:]), v
assert keep.sum() > 100 and len(rt) > 100, (keep.sum(), len(rt))
print(f"kill -9 at step {k}: {keep.sum()} durable spikes + {len(rt)} continued = the unbroken run")
PY
echo "PASS: spiking restart"

#!/usr/bin/env bash
# Noise and random initial states (docs/MODEL.md "Noise and random
# initial states"):
# - --noise MEAN,0,TAU is the constant current MEAN into the dendrite: the
#   same bits as --pulse 0:T:MEAN (the noise enters where I_app does);
# - with noise and random initial potentials, 1, 2, 3 and 4 ranks (and 1 or 2
#   threads) give identical spikes, reports and state;
# - a run continued from a state (written on 2 ranks, continued on 1) equals
#   the unbroken run, and so does one continued through --checkpoint-every;
# - the OU current the simulator holds (/state/i_noise of 4096 cells) has the
#   stationary mean and standard deviation, and its correlation between two
#   states tau apart is exp(-1), each within 5 standard errors;
# - the seed changes the run, the random potentials lie in [LO, HI];
# - bad --noise / --init-voltage values and a damaged noise state are refused.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
"$BIN/olive-genconn" -q -o net.h5 --cells 300 --generator uniform --density 8 --seed 5 \
    --conductance 0.01:0.05 --gcal 0.6:1.2

# 1. zero sigma: a constant current, bit for bit the pulse
"$S" -q net.h5 -o dc_noise --steps 3000 --noise 0.5,0,10 --record v_dend
"$S" -q net.h5 -o dc_pulse --steps 3000 --pulse 0:150:0.5 --record v_dend
"$A" compare -q dc_noise/v_dend.h5 dc_pulse/v_dend.h5 || fail "--noise 0.5,0,10 differs from --pulse 0:150:0.5"
"$A" compare -q dc_noise/spikes.h5 dc_pulse/spikes.h5 || fail "spikes of --noise 0.5,0,10 differ from the pulse's"

# 2. rank and thread invariance
NZ=(--noise 0.2,0.9,20 --init-voltage -70:-50 --seed 11 --record v_axon,v_dend --record-every 4)
"$S" -q net.h5 -o p1 --steps 3000 "${NZ[@]}"
n=$("$PY" -c "import h5py; print(len(h5py.File('p1/spikes.h5')['spikes/io/node_ids']))")
[ "$n" -gt 20 ] || fail "the noisy run spiked only $n times: the test needs spikes"
ranks="2 3 4"
[ "${SANITIZED:-0}" = 1 ] && ranks=3   # (the sanitizer pass: one odd split; tests/run.sh)
for P in $ranks; do
  mpirun -np $P --oversubscribe "$S" -q net.h5 -o p$P --steps 3000 "${NZ[@]}"
  "$A" compare -q p1 p$P || fail "noise: $P ranks differ from 1 rank"
done
OMP_NUM_THREADS=2 "$S" -q net.h5 -o t2 --steps 3000 "${NZ[@]}"
"$A" compare -q p1 t2 || fail "noise: 2 threads differ from 1"
"$S" -q net.h5 -o other --steps 3000 --noise 0.2,0.9,20 --init-voltage -70:-50 --seed 12 --record v_axon,v_dend --record-every 4
if "$A" compare -q p1/state.h5 other/state.h5; then fail "--seed 12 gave the same run as --seed 11"; fi

# 3. restart: first 1500 steps on 2 ranks, the rest on 1; and through checkpoints
mpirun -np 2 --oversubscribe "$S" -q net.h5 -o half --steps 1500 "${NZ[@]}"
"$S" -q net.h5 -o rest --steps 3000 --noise 0.2,0.9,20 --seed 11 --record v_axon,v_dend --record-every 4 \
    --restart half/state.h5
"$A" compare -q p1/state.h5 rest/state.h5 || fail "noise: the restarted run's final state differs from the unbroken run's"
"$PY" - <<'PY' || fail "noise: the restarted run's spikes differ"
import h5py, numpy as np
def sp(d):
    with h5py.File(f"{d}/spikes.h5") as f: return f["spikes/io/timestamps"][:], f["spikes/io/node_ids"][:]
a, b, c = sp("p1"), sp("half"), sp("rest")
assert np.array_equal(a[0], np.concatenate([b[0], c[0]])) and np.array_equal(a[1], np.concatenate([b[1], c[1]]))
PY
"$S" -q net.h5 -o ck --steps 3000 "${NZ[@]}" --checkpoint-every 700
"$A" compare -q p1/state.h5 ck/state.h5 || fail "noise: the checkpointed run differs"

# 4. the OU statistics the simulator holds: 4096 uncoupled cells
"$BIN/olive-genconn" -q -o big.h5 --cells 4096 --generator uniform --density 0
"$S" -q big.h5 -o ou1 --steps 400 --noise -0.3,0.6,5 --seed 3 --record none --gj ngj
"$S" -q big.h5 -o ou2 --steps 500 --noise -0.3,0.6,5 --seed 3 --record none --gj ngj --restart ou1/state.h5
"$PY" - <<'PY' || fail "the OU current's statistics"
import h5py, numpy as np
a = h5py.File("ou1/state.h5")["state/i_noise"][:]
b = h5py.File("ou2/state.h5")["state/i_noise"][:]
n, mu, sigma = len(a), -0.3, 0.6
checks = [("mean", a.mean(), mu, 5 * sigma / n**0.5),
          ("standard deviation", a.std(), sigma, 5 * sigma / (2 * n)**0.5),
          ("correlation 5 ms apart", np.corrcoef(a, b)[0, 1], np.exp(-1), 5 * (1 - np.exp(-2)) / n**0.5)]
bad = 0
for name, got, want, tol in checks:
    print(f"OU {name}: {got:.5f} (theory {want:.5f} +- {tol:.5f})")
    bad |= abs(got - want) > tol
assert not bad
PY

# 5. random initial potentials: after one step they still spread over [LO, HI]
"$S" -q net.h5 -o init --steps 1 --init-voltage -70:-50 --seed 4 --record v_soma --record-precision double
"$PY" - <<'PY' || fail "--init-voltage -70:-50"
import h5py
f = h5py.File("init/v_soma.h5")
v = f["report/io/data"][0]
assert v.min() > -71 and v.max() < -49 and v.max() - v.min() > 15, (v.min(), v.max())
p = h5py.File("init/spikes.h5").attrs
assert p["init_voltage"] == b"-70:-50" or p["init_voltage"] == "-70:-50", p["init_voltage"]
assert p["seed"] == 4
PY

# 6. refused inputs: an error naming the fault, no output
bad() {  # EXPECTED-MESSAGE ARGS...
  local want=$1; shift
  local steps=(--steps 10) a
  for a in "$@"; do [ "$a" = --steps ] && steps=(); done   # (an option given twice is refused)
  if "$S" net.h5 -o refused "${steps[@]}" "$@" 2>err.txt; then fail "accepted: $*"; fi
  grep -q -- "$want" err.txt || { cat err.txt; fail "'$*': no message '$want'"; }
  [ ! -e refused ] || fail "'$*' left refused/"
}
bad "must be MEAN,SIGMA,TAU" --noise 1,2
bad "must be MEAN,SIGMA,TAU" --noise 1,2,3,4
bad "SIGMA: -1 is out of range" --noise 0,-1,5
bad "TAU must be more than 0" --noise 0,1,0
bad "not a finite number" --noise 0,nan,5
bad "range -50:-70 is empty" --init-voltage -50:-70
bad "-250 is out of range" --init-voltage -250:-50
bad "a restart continues the state's potentials" --init-voltage -70:-50 --restart half/state.h5
cp half/state.h5 damaged.h5
"$PY" -c "
import h5py, numpy as np
with h5py.File('damaged.h5', 'r+') as f: f['state/i_noise'][7] = np.nan"
bad "/state/i_noise of cell 7 is not finite" --noise 0.2,0.9,20 --seed 11 --restart damaged.h5 --steps 2000
echo "noise: ok"

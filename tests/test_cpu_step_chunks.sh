#!/usr/bin/env bash
# The CPU engine's chunks of steps (tools/simulate/infoli/engine_cpu.c): the
# threads stay in one parallel region for up to SIM_CHECK_STEPS steps, and
# where no cell has a junction term (a network without junctions on one
# rank, or --gj ngj) they meet only where I_app is rebuilt. Checked:
#  - an uncoupled network with pulses that start and stop inside chunks, on
#    2 and 3 threads (3 splits 120 cells unevenly), against the independent
#    numpy model (tests/ref_model.py via compare_ref.py, 1500 steps, every
#    cell's voltages within 1e-9 of their scale, spikes identical);
#  - the same network with --noise: 1, 2 and 3 threads, and chunks of one
#    step (a report every step) against chunks of 256 (a report every 700
#    steps) give identical spikes and final state;
#  - a coupled network (RGJ, and NGJ, which takes the uncoupled path) on 1, 2
#    and 3 threads: identical spikes, reports and final state.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
MK="$PY $TESTS/make_network.py"
$MK coupled.h5 --cells 120 --seed 7 --degree 6 --wmin 0.005 --wmax 0.08 --gcal 0.6:0.8 --bits 32
"$PY" - <<'PYEOF'
import h5py, os, sys
sys.path.insert(0, os.environ["TESTS"])
import make_network as mk
with h5py.File("coupled.h5", "r") as f:
    gcal = f["cells/g_CaL"][:]
mk.write_network("lone.h5", 120, [], bits=32, gcal=gcal)
PYEOF
# pulses starting and ending mid-chunk (chunks end at multiples of 256 steps, 12.8 ms)
P=(--pulse 3:14.1:6:0:40 --pulse 20.05:22.5:-3:30:90 --pulse 40:64.3:5:60:120)
sim() {  # NET OUT THREADS STEPS [args...]
  local net=$1 out=$2 t=$3 steps=$4; shift 4
  "$S" "$net" -o "$out" --steps "$steps" --threads "$t" "$@" 2>"$out.log" ||
    { tail -5 "$out.log"; fail "olive-simulate $net -o $out --threads $t exited with an error"; }
}
same() {  # A B WHAT: spikes and final state identical
  h5diff -r "$1/state.h5" "$2/state.h5" /state >/dev/null || fail "$3: final states differ ($1, $2)"
  "$PY" - "$1" "$2" "$3" <<'PYEOF'
import h5py, numpy as np, sys
a, b, what = sys.argv[1:]
def spikes(d):
    with h5py.File(d + "/spikes.h5", "r") as f:
        g = f["spikes/io"]
        return np.asarray(g["node_ids"][:]), np.asarray(g["timestamps"][:])
(ia, ta), (ib, tb) = spikes(a), spikes(b)
if not (np.array_equal(ia, ib) and np.array_equal(ta, tb)):
    sys.exit(f"FAIL: {what}: spikes differ ({a}: {len(ia)}, {b}: {len(ib)})")
if len(ia) == 0:
    sys.exit(f"FAIL: {what}: no spikes, a weak comparison")
PYEOF
}
for t in 2 3; do
  sim lone.h5 "lone-t$t" "$t" 1500 --gj rgj "${P[@]}" --record v_dend,v_soma,v_axon --record-precision double
  "$PY" "$TESTS/compare_ref.py" lone.h5 "lone-t$t" --steps 1500 --gj rgj "${P[@]}" --spikes --min-spikes 20 ||
    fail "uncoupled network, $t threads: differs from ref_model.py"
done
N=(--noise 0.2,0.9,20 --seed 11)
sim lone.h5 noise-t1 1 1500 "${N[@]}" "${P[@]}" --record none
for t in 2 3; do
  sim lone.h5 "noise-t$t" "$t" 1500 "${N[@]}" "${P[@]}" --record none
  same noise-t1 "noise-t$t" "uncoupled network with noise, $t threads against 1"
done
sim lone.h5 noise-every1 2 1500 "${N[@]}" "${P[@]}" --record v_axon --record-every 1
sim lone.h5 noise-every700 2 1500 "${N[@]}" "${P[@]}" --record v_axon --record-every 700
same noise-every1 noise-t1 "chunks of one step (a report every step)"
same noise-every700 noise-t1 "chunks of up to 256 steps (a report every 700)"
for gj in rgj ngj; do
  for t in 1 2 3; do
    sim coupled.h5 "c-$gj-t$t" "$t" 1500 --gj "$gj" "${P[@]}" --record v_dend,v_axon --record-every 10 --record-precision double
  done
  for t in 2 3; do
    "$BIN/olive-analyze" compare -q "c-$gj-t1" "c-$gj-t$t" >cmp.log 2>&1 ||
      { cat cmp.log; fail "coupled network --gj $gj: $t threads differ from 1"; }
    same "c-$gj-t1" "c-$gj-t$t" "coupled network --gj $gj, $t threads against 1"
  done
done
echo "cpu step chunks ok"

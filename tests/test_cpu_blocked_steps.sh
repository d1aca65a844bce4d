#!/usr/bin/env bash
# The CPU engine's blocked steps (engine_cpu.c, sim_update_steps): on one
# rank, cells without a junction term whose I_app stays +0.0 over a chunk of
# steps take the whole chunk a block of cells at a time. On 9000 uncoupled
# cells (chunks of 4096, 4096 and 808 cells: several a thread, one short),
# with random initial voltages and two pulses into parts of the network (so
# that chunks before, between and after them are blocked, and the steps of
# a pulse and the one that clears it are not), --record none (chunks of up
# to 256 steps):
#  - spikes and final state bit for bit those of 2 and 3 ranks, where no
#    step is blocked (a rank there has neighbours), and of 2 and 3 threads;
#  - the same in single precision, and with --gj ngj on a coupled network
#    (junctions present but without terms), against 2 ranks;
#  - a bad cell is reported at the same step and cell as step by step.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$BIN/olive-genconn" -o lone.h5 --cells 9000 --generator uniform --density 0 --seed 4 --force >/dev/null
"$BIN/olive-genconn" -o coupled.h5 --cells 9000 --generator uniform --density 6 --conductance 0.04 --seed 4 --force >/dev/null
A=(--steps 3000 --record none --init-voltage -62:-58 --seed 3 --pulse 5:15:6:0:3000 --pulse 20:40:-6:3000:9000)
run() {  # NET OUT [args...]
  local net=$1 out=$2; shift 2
  "$S" "$net" -o "$out" "${A[@]}" "$@" >"$out.log" 2>&1 || { tail -5 "$out.log"; fail "olive-simulate $net -o $out $*: exited with an error"; }
}
runmpi() {  # NP NET OUT [args...]
  local np=$1 net=$2 out=$3; shift 3
  mpirun -np "$np" --oversubscribe "$S" "$net" -o "$out" "${A[@]}" "$@" >"$out.log" 2>&1 ||
    { tail -5 "$out.log"; fail "mpirun -np $np olive-simulate $net -o $out: exited with an error"; }
}
same() {  # A B WHAT
  "$BIN/olive-analyze" compare -q --tolerance 0 "$1" "$2" >cmp.log 2>&1 || { cat cmp.log; fail "$3: $1 and $2 differ"; }
}
run lone.h5 t1
nsp=$(sed -n 's/.* \([0-9]*\) spikes, .*/\1/p' t1.log | tail -1)
[ "${nsp:-0}" -ge 6000 ] || fail "only ${nsp:-0} spikes: a weak comparison"
"$PY" - <<'PYEOF'
import h5py, numpy as np, sys
with h5py.File("t1/spikes.h5", "r") as f:
    t = np.asarray(f["spikes/io/timestamps"][:])
# the first pulse's chunk (steps 0-255, to 12.8 ms); blocked chunks from step 1024 (51.2 ms) on
early, late = int((t < 12.8).sum()), int((t > 51.2).sum())
if early < 1000 or late < 1000:
    sys.exit(f"FAIL: {early} spikes during the first pulse, {late} in blocked chunks: a weak comparison")
PYEOF
for t in 2 3; do run lone.h5 "t$t" --threads $t; same t1 "t$t" "$t threads against 1"; done
for np in 2 3; do runmpi $np lone.h5 "np$np"; same t1 "np$np" "blocked steps against $np ranks (step by step)"; done
run lone.h5 single1 --precision single
runmpi 2 lone.h5 single-np2 --precision single
same single1 single-np2 "single precision, blocked against 2 ranks"
run coupled.h5 ngj1 --gj ngj
runmpi 2 coupled.h5 ngj-np2 --gj ngj
same ngj1 ngj-np2 "--gj ngj on a coupled network, blocked against 2 ranks"
same t1 ngj1 "--gj ngj on a coupled network against the uncoupled one"
# a cell that blows up (initial voltages far from rest) stops the run at the same step and cell either way
"$S" lone.h5 -o bad1 --steps 600 --record none --init-voltage -90:-20 --seed 3 2>bad1.log && fail "a blown-up cell was not reported"
mpirun -np 2 --oversubscribe "$S" lone.h5 -o bad2 --steps 600 --record none --init-voltage -90:-20 --seed 3 2>bad2.log &&
  fail "a blown-up cell was not reported on 2 ranks"
w1=$(grep -o 'at step [0-9]* .* in cell [0-9]*' bad1.log | head -1)
w2=$(grep -o 'at step [0-9]* .* in cell [0-9]*' bad2.log | head -1)
[ -n "$w1" ] && [ "$w1" = "$w2" ] || fail "blown-up cell: '$w1' (blocked) against '$w2' (2 ranks)"
echo "cpu blocked steps ok: $nsp spikes, 1-3 threads and 2-3 ranks identical, single precision and ngj identical, bad cell '$w1' alike"

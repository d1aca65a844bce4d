#!/usr/bin/env bash
# Submit a parameter sweep: the job array of sweep-array.sbatch, one task per
# point of $SWEEP/grid.csv, then sweep-collect.sbatch once every task
# succeeded (afterok) for the one table $SWEEP/sweep.csv.
#
# usage: examples/slurm/submit-sweep.sh [SBATCH_OPTION...]   (given to both sbatch)
# First write the grid, e.g.
#   python3 -m olive.sweep grid $WORKDIR/sweep exc.tau_m=10,15,20 drive.rate=10,20,40
# Environment: WORKDIR [$PWD/olive-work], NET [$WORKDIR/net.h5], SWEEP
#   [$WORKDIR/sweep], TIME, RECORD, SIM_ARGS, OLIVE_BIN (sweep-array.sbatch's);
#   MAX_PARALLEL []: at most that many tasks at once (--array=0-N%MAX);
#   DRY_RUN [0]: 1 prints the sbatch commands only.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORKDIR=${WORKDIR:-$PWD/olive-work}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
SWEEP=${SWEEP:-$WORKDIR/sweep}
export WORKDIR SWEEP NET=${NET:-$WORKDIR/net.h5}
die() { echo "submit-sweep: $*" >&2; exit 2; }
[ -f "$SWEEP/grid.csv" ] || die "$SWEEP/grid.csv is missing (python3 -m olive.sweep grid $SWEEP KEY=V1,V2,...)"
n=$(($(wc -l < "$SWEEP/grid.csv") - 1))
[ "$n" -ge 1 ] || die "$SWEEP/grid.csv has no points"
array=0-$((n - 1))${MAX_PARALLEL:+%$MAX_PARALLEL}
run() { if [ "${DRY_RUN:-0}" = 1 ]; then echo "+ $*" >&2; echo "dry"; else "$@"; fi; }
j1=$(run sbatch --parsable --chdir="$WORKDIR" --export=ALL --array="$array" "$@" "$here/sweep-array.sbatch")
j2=$(run sbatch --parsable --chdir="$WORKDIR" --export=ALL --dependency="afterok:${j1%%;*}" --kill-on-invalid-dep=yes \
     "$@" "$here/sweep-collect.sbatch")
echo "submit-sweep: $n points: array job ${j1%%;*} -> collect ${j2%%;*}; result: $SWEEP/sweep.csv"

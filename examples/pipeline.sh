#!/usr/bin/env bash
# olive pipeline: the four phases chained on one machine, each handing the next
# an HDF5 file (see docs/ARCHITECTURE.md and docs/FORMAT.md):
#
#   1. olive-genconn   CELLS cells, uniform random gap junctions, DENSITY per cell
#                      on average, seed 1                      -> $OUT/net.h5
#   2. olive-disperse  split the cells into RANKS contiguous blocks balanced by
#                      junctions, with the halo send/receive lists of every rank
#                                                              -> $OUT/map.h5
#   3. olive-simulate  under mpirun -np RANKS with that map, STEPS steps of
#                      dt = 0.05 ms, the classic pulse (6 uA/cm2 to every cell,
#                      1000..1025 ms), V_axon recorded every 20 steps (1 ms)
#                                                              -> $OUT/run/
#                      (spikes.h5, v_axon.h5, state.h5: SONATA layout)
#   4. olive-analyze   summary of $OUT/run on stdout
#
# Every program gets --force: rerunning replaces the previous results.
# Any failing phase stops the pipeline with its exit status (set -e).
#
# Environment (defaults in brackets):
#   CELLS [5000]       number of cells
#   DENSITY [10]       mean gap junctions per cell
#   RANKS [2]          MPI ranks of the simulation (and the world size of the map)
#   STEPS [24000]      simulation steps, dt = 0.05 ms; the pulse starts at step
#                      20000, so fewer steps simulate the spontaneous activity only
#   OUT [pipeline-out] output directory (created if missing)
#   BIN [<repo>/build/bin]  where the olive-* programs are
#   PULSE [1000:1024.95:6]  --pulse START_MS:STOP_MS:AMP[:FIRST:LAST]; empty: no pulse
#   RECORD [v_axon]    --record variables (comma-separated, all, none)
#   RECORD_EVERY [20]  --record-every K
#   BACKEND []         --backend auto|cpu|cuda for olive-simulate; empty: its default
#   OVERSUBSCRIBE [0]  1: mpirun --oversubscribe (more ranks than cores)
#   MPIRUN [mpirun]    MPI launcher; empty: run olive-simulate directly (RANKS=1 only)
#   MPIRUN_ARGS []     extra launcher options, split on spaces (e.g. "--bind-to none")
#   OMP_NUM_THREADS    OpenMP threads per rank [cores / RANKS, at least 1]
#
# Examples:
#   examples/pipeline.sh
#   CELLS=2000 DENSITY=10 RANKS=2 STEPS=2000 OUT=/tmp/pipe-test examples/pipeline.sh
#   RANKS=8 OVERSUBSCRIBE=1 CELLS=100000 DENSITY=100 examples/pipeline.sh
set -euo pipefail

prog=${0##*/}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

CELLS=${CELLS:-5000}
DENSITY=${DENSITY:-10}
RANKS=${RANKS:-2}
STEPS=${STEPS:-24000}
OUT=${OUT:-pipeline-out}
BIN=${BIN:-$top/build/bin}
PULSE=${PULSE-1000:1024.95:6}
RECORD=${RECORD:-v_axon}
RECORD_EVERY=${RECORD_EVERY:-20}
BACKEND=${BACKEND:-}
OVERSUBSCRIBE=${OVERSUBSCRIBE:-0}
MPIRUN=${MPIRUN-mpirun}
MPIRUN_ARGS=${MPIRUN_ARGS:-}

die() { echo "$prog: $*" >&2; exit 2; }
is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }

is_count "$CELLS"   || die "CELLS must be a positive integer, not '$CELLS'"
is_count "$RANKS"   || die "RANKS must be a positive integer, not '$RANKS'"
is_count "$STEPS"   || die "STEPS must be a positive integer, not '$STEPS'"
[[ $DENSITY =~ ^[0-9]+([.][0-9]+)?$ ]] || die "DENSITY must be a non-negative number, not '$DENSITY'"
[ -n "$MPIRUN" ] || [ "$RANKS" -eq 1 ] || die "MPIRUN is empty: RANKS must be 1, not $RANKS"
for p in genconn disperse simulate analyze; do
  [ -x "$BIN/olive-$p" ] || die "$BIN/olive-$p is missing; run 'make' in $top (or set BIN)"
done
if [ -n "$MPIRUN" ] && ! command -v "$MPIRUN" >/dev/null; then
  die "MPI launcher '$MPIRUN' not found (set MPIRUN, or MPIRUN= with RANKS=1)"
fi

# OpenMP threads per rank: share the cores among the ranks unless told.
if [ -z "${OMP_NUM_THREADS:-}" ]; then
  cores=$(nproc 2>/dev/null || echo 1)
  OMP_NUM_THREADS=$(( cores / RANKS > 0 ? cores / RANKS : 1 ))
fi
export OMP_NUM_THREADS

mkdir -p "$OUT"
net=$OUT/net.h5 map=$OUT/map.h5 run=$OUT/run

t_start=$SECONDS
phase() { printf '\n== %s: %s\n' "$prog" "$*" >&2; t_phase=$SECONDS; }
done_phase() { printf '== %s: %d s\n' "$prog" $((SECONDS - t_phase)) >&2; }

phase "1/4 olive-genconn: $CELLS cells, uniform, $DENSITY junctions per cell -> $net"
"$BIN/olive-genconn" -o "$net" --cells "$CELLS" --generator uniform --density "$DENSITY" \
  --seed 1 --force
done_phase

phase "2/4 olive-disperse: $RANKS ranks, balanced by junctions -> $map"
"$BIN/olive-disperse" "$net" --ranks "$RANKS" -o "$map" --balance junctions --force
done_phase

sim=("$BIN/olive-simulate" "$net" --map "$map" -o "$run" --steps "$STEPS")
[ -z "$PULSE" ] || sim+=(--pulse "$PULSE")
sim+=(--record "$RECORD" --record-every "$RECORD_EVERY" --force)
[ -z "$BACKEND" ] || sim+=(--backend "$BACKEND")
launch=()
if [ -n "$MPIRUN" ]; then
  launch=("$MPIRUN" -np "$RANKS")
  [ "$OVERSUBSCRIBE" = 1 ] && launch+=(--oversubscribe)
  if [ -n "$MPIRUN_ARGS" ]; then
    read -r -a extra <<<"$MPIRUN_ARGS"
    launch+=("${extra[@]}")
  fi
  # Open MPI refuses to start as root unless told it is on purpose (containers).
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
fi
phase "3/4 olive-simulate: $STEPS steps on $RANKS rank(s) x $OMP_NUM_THREADS thread(s) -> $run/"
echo "+ ${launch[*]:+${launch[*]} }${sim[*]}" >&2
"${launch[@]}" "${sim[@]}"
done_phase

phase "4/4 olive-analyze summary $run"
"$BIN/olive-analyze" summary "$run"
done_phase

printf '\n%s: done in %d s; files in %s/:\n' "$prog" $((SECONDS - t_start)) "$OUT" >&2
ls -l "$OUT" "$run" >&2

#!/usr/bin/env bash
# olive demo (run by `make demo`): the whole pipeline on a small network.
#   1. olive-genconn: 4096 cells on a 64x64 sheet, 10 gap junctions drawn per
#      cell (gaussian in lattice distance), then mirrored (w_ij = w_ji), so
#      about 20 per cell, all w = 0.04 mS/cm2;
#   2. olive-simulate: 1.5 s of biological time, every cell gets a 6 uA/cm2
#      pulse at 1000 ms (the classic experiment of MODEL.md), V_axon recorded
#      every 20 steps (1 ms);
#   3. olive-analyze summary: spike count, rate, first spikes, histogram.
# Everything goes to demo-out/ (override with OUT=dir); rerunning overwrites
# it (every program gets --force). Environment: BUILD (binaries in
# $BUILD/bin, default build), RANKS (MPI ranks for the simulation, default 1;
# more than 1 runs it under mpirun), OMP_NUM_THREADS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
BIN="$top/$BUILD/bin"
OUT=${OUT:-demo-out}
RANKS=${RANKS:-1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc 2>/dev/null || echo 2)}

for p in genconn simulate analyze; do
  [ -x "$BIN/olive-$p" ] || { echo "demo: $BIN/olive-$p is missing; run 'make' (or 'make demo') first" >&2; exit 1; }
done
mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }
t0=$SECONDS

step "1/3 olive-genconn: 4096 cells (64x64), gaussian, 10 junctions drawn per cell, mirrored"
if ! "$BIN/olive-genconn" -o "$OUT/net.h5" --dims 64x64x1 --generator gaussian --density 10 \
       --conductance 0.04 --symmetric --seed 1 --force; then
  echo "demo: the gaussian generator failed; using uniform instead" >&2
  "$BIN/olive-genconn" -o "$OUT/net.h5" --cells 4096 --generator uniform --density 10 \
    --conductance 0.04 --symmetric --seed 1 --force
fi

step "2/3 olive-simulate: 1500 ms, pulse 6 uA/cm2 at 1000..1025 ms, V_axon every 1 ms"
sim=("$BIN/olive-simulate" "$OUT/net.h5" -o "$OUT/run" --time 1500 --pulse 1000:1024.95:6
     --record v_axon --record-every 20 --force)
if [ "$RANKS" -gt 1 ]; then
  export OMPI_MCA_rmaps_base_oversubscribe=1
  [ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun -np "$RANKS" "${sim[@]}"
else
  "${sim[@]}"
fi

step "3/3 olive-analyze summary $OUT/run"
"$BIN/olive-analyze" summary "$OUT/run"

printf '\ndemo: done in %d s; files in %s/:\n' $((SECONDS - t0)) "$OUT"
ls -l "$OUT" "$OUT/run"
cat <<EOF

Next: look inside with h5py (docs/FORMAT.md), e.g.
  python3 -c "import h5py; f = h5py.File('$OUT/run/v_axon.h5'); print(f['report/io/data'].shape)"
EOF

#!/usr/bin/env bash
# olive demo (run by `make demo`): the whole pipeline on a small network, and
# what the gap junctions do to it.
#   1. olive-genconn: 1024 cells on a 32x32 sheet, 10 gap junctions drawn per
#      cell (gaussian in lattice distance), mirrored (w_ij = w_ji, about 20 per
#      cell, w = 0.04 mS/cm2); every cell gets its own g_CaL, uniform in
#      0.6..1.2 mS/cm2 (heterogeneous cells, as the original InfOli runs use:
#      identical cells would oscillate alike with or without coupling);
#   2. olive-simulate, twice: coupled (--gj rgj) and uncoupled (--gj ngj),
#      1.5 s each, a 6 uA/cm2 pulse to every cell at 1000 ms (MODEL.md's
#      experiment), V_axon and V_dend recorded every 1 ms;
#   3. olive-analyze: the spike summary of the coupled run, the synchrony of
#      the subthreshold oscillation before the pulse (Kuramoto R) and the
#      spread of the first spikes after it, with and without junctions, and
#      a raster plot of each run.
# Everything goes to demo-out/ (override with OUT=dir); rerunning overwrites
# it (every program gets --force). Environment: BUILD (binaries in
# $BUILD/bin, default build), RANKS (MPI ranks for the simulations, default
# 1; more than 1 runs them under mpirun), OMP_NUM_THREADS.
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

step "1/3 olive-genconn: 1024 cells (32x32), gaussian, 10 junctions drawn per cell, mirrored, g_CaL 0.6..1.2"
"$BIN/olive-genconn" -o "$OUT/net.h5" --dims 32x32x1 --generator gaussian --density 10 \
  --conductance 0.04 --symmetric --gcal 0.6:1.2 --seed 1 --force

simulate() {  # GJ OUTDIR
  local sim=("$BIN/olive-simulate" "$OUT/net.h5" -o "$2" --time 1500 --pulse 1000:1024.95:6 --gj "$1"
             --record v_axon,v_dend --record-every 20 --force)
  if [ "$RANKS" -gt 1 ]; then
    export OMPI_MCA_rmaps_base_oversubscribe=1
    [ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpirun -np "$RANKS" "${sim[@]}"
  else
    "${sim[@]}"
  fi
}
step "2/3 olive-simulate, coupled and uncoupled: 1500 ms, pulse 6 uA/cm2 at 1000..1025 ms"
simulate rgj "$OUT/coupled"
simulate ngj "$OUT/uncoupled"

step "3/3 olive-analyze: the coupled run, then what the junctions changed"
"$BIN/olive-analyze" summary "$OUT/coupled"
csv_value() { sed -n "s/^$2,//p" "$1" | head -n 1; }   # FILE KEY
for run in coupled uncoupled; do
  "$BIN/olive-analyze" sync "$OUT/$run" --t1 990 --csv > "$OUT/$run-sync.csv"
  "$BIN/olive-analyze" summary "$OUT/$run" --csv > "$OUT/$run-summary.csv"
  # first spike of every cell after the pulse: their spread (ms)
  "$BIN/olive-analyze" rates "$OUT/$run" --bin 1 --csv > "$OUT/$run-rate.csv"
  "$BIN/olive-analyze" plot "$OUT/$run" -o "$OUT/$run-raster.png" --kind raster --force >/dev/null
done
spread() {  # RATE.csv: ms from the first to the last 1-ms bin with spikes in 1000..1100 ms
  awk -F, 'NR > 1 && $1 >= 1000 && $1 < 1100 && $3 > 0 { if (a == "") a = $1; b = $2 } END { printf "%.0f", b - a }' "$1"
}
printf '\n%-46s %12s %12s\n' "" "coupled" "uncoupled"
printf '%-46s %12s %12s\n' "synchrony R before the pulse (1 = in phase)" \
  "$(csv_value "$OUT/coupled-sync.csv" R_mean)" "$(csv_value "$OUT/uncoupled-sync.csv" R_mean)"
printf '%-46s %12s %12s\n' "oscillation frequency (Hz)" \
  "$(csv_value "$OUT/coupled-sync.csv" frequency_hz)" "$(csv_value "$OUT/uncoupled-sync.csv" frequency_hz)"
printf '%-46s %12s %12s\n' "spikes in 1.5 s" \
  "$(csv_value "$OUT/coupled-summary.csv" spikes)" "$(csv_value "$OUT/uncoupled-summary.csv" spikes)"
printf '%-46s %12s %12s\n' "first spike (ms)" \
  "$(csv_value "$OUT/coupled-summary.csv" first_spike_ms)" "$(csv_value "$OUT/uncoupled-summary.csv" first_spike_ms)"
printf '%-46s %12s %12s\n' "spread of the spikes after the pulse (ms)" \
  "$(spread "$OUT/coupled-rate.csv")" "$(spread "$OUT/uncoupled-rate.csv")"
if "$BIN/olive-analyze" compare "$OUT/coupled" "$OUT/uncoupled" >/dev/null; then
  echo "demo: the coupled and uncoupled runs are equal: the junctions changed nothing" >&2; exit 1
fi
echo "olive-analyze compare: the runs differ (exit 1), as they should; rasters: $OUT/coupled-raster.png, $OUT/uncoupled-raster.png"

printf '\ndemo: done in %d s; files in %s/:\n' $((SECONDS - t0)) "$OUT"
ls -l "$OUT"
cat <<EOF

Next: look inside with h5py (docs/FORMAT.md), e.g.
  python3 -c "import h5py; f = h5py.File('$OUT/coupled/v_dend.h5'); print(f['report/io/data'].shape)"
EOF

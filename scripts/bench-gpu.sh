#!/usr/bin/env bash
# GPU benchmark of olive, run on a GPU host with a CUDA build:
#   1. the device's copy bandwidth (olive-bwprobe): the yardstick;
#   2. the step loop of olive-simulate --backend cuda: cell-steps/s for
#      0/10/100/1000 junctions per cell at CELLS cells (default 1M), double and
#      single, the kernels the engine chose (fused: sum and update in one; rows:
#      the sums by gathers, then the update; tiles: the sums from shared-memory
#      tiles, then the update), with the bytes the floor of docs/BENCHMARKS.md says a step must move
#      (2 x 19 state values + per junction a 4-byte index, the conductance
#      code and a neighbour voltage) per second, and that as % of the probe
#      (80%: whether that meets issue 58's goal of >= 80 %);
#   3. generation junctions/s (olive-genconn --backend cuda, the step-2
#      networks): the generator's own rate (device work and copies to the
#      host, from -v) and the whole program's (conductances, file write).
# Usage: bash scripts/bench-gpu.sh [CELLS] [STEPS]   (env: BIN, KS="0 10 100 1000",
# BITS=8, GEN_RANKS (olive-genconn under mpirun -np GEN_RANKS, default 1), WORK,
# GENERATOR=uniform (K distinct partners drawn from all cells: no locality, the
# worst case for the gathers) or gaussian (K distinct partners near each cell
# on a square lattice of CELLS cells, a square number, width SIGMA lattice
# units, default 5 up to 100 junctions and 20 above, as bench-pipeline.sh's
# 4M x 1000: the inferior olive's own local coupling))
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/${BUILD:-build}/bin}
CELLS=${1:-1048576}
STEPS=${2:-200}
KS=${KS:-0 10 100 1000}
BITS=${BITS:-8}
GENERATOR=${GENERATOR:-uniform}
case $GENERATOR in
  uniform) shape=(--cells "$CELLS" --generator uniform --fixed-degree) ;;
  gaussian)
    side=$(awk -v n="$CELLS" 'BEGIN { s = int(sqrt(n) + 0.5); print (s * s == n) ? s : 0 }')
    [ "$side" -gt 0 ] || { echo "bench-gpu.sh: GENERATOR=gaussian needs a square CELLS (got $CELLS)" >&2; exit 2; }
    shape=(--dims "${side}x${side}" --generator gaussian) ;;
  *) echo "bench-gpu.sh: GENERATOR=$GENERATOR: expected uniform or gaussian" >&2; exit 2 ;;
esac
work=${WORK:-$(mktemp -d /tmp/olive-bench-gpu.XXXXXX)}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gen() { if [ "${GEN_RANKS:-1}" -gt 1 ]; then mpirun -np "$GEN_RANKS" --oversubscribe --bind-to none "$BIN/olive-genconn" "$@";
        else "$BIN/olive-genconn" "$@"; fi; }
bw=$("$BIN/../bench/olive-bwprobe" 2 | tee /dev/stderr | sed -n 's/.*, \([0-9.]*\) GB\/s.*/\1/p')
printf '# olive GPU benchmark, %s, %s, %d cells (%s), %d steps, conductances in %d bits, RGJ, --record none\n' \
  "$(date -u +%F)" "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" "$CELLS" "${shape[*]}" "$STEPS" "$BITS"
printf '# probe: %s GB/s device copy bandwidth\n' "$bw"
printf '%-6s %-7s %-6s %14s %12s %8s %5s %12s %12s\n' junc prec sums cell-steps/s floor-GB/s %probe 80% gen-junc/s genconn-j/s
for K in $KS; do
  t0=$(date +%s.%N)
  width=(); [ "$GENERATOR" = gaussian ] && width=(--sigma "${SIGMA:-$([ "$K" -le 100 ] && echo 5 || echo 20)}")
  gen -o "$work/net.h5" "${shape[@]}" "${width[@]}" --density "$K" \
      --conductance 0.01:0.05 --conductance-bits "$BITS" --seed 1 --force -v >"$work/gen.log" 2>&1 ||
    { cat "$work/gen.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  gr=$(sed -n 's/.*cuda generation.*(\([0-9.e+]*\) junctions\/s.*/\1/p' "$work/gen.log" | head -1)
  gw=$(awk -v a="$t0" -v b="$t1" -v n="$CELLS" -v k="$K" 'BEGIN { printf "%.3g", n * k / (b - a) }')
  for prec in double single; do
    line=$("$BIN/olive-simulate" "$work/net.h5" -o "$work/out" --steps "$STEPS" --precision "$prec" \
           --record none --backend cuda --force -v 2>"$work/sim.log") || { cat "$work/sim.log" >&2; exit 1; }
    rate=$(sed -n 's/.* \([0-9.e+]*\) cell-steps\/s.*/\1/p' <<<"$line")
    form=$(sed -n 's/.*sliced-ELL rows, \(one kernel\|junction sums in shared-memory tiles\|junction sums and cell updates in two kernels\).*/\1/p' "$work/sim.log" | head -1)
    case $form in "one kernel") form=fused ;; *tiles*) form=tiles ;; *two*) form=rows ;; *) form=? ;; esac
    el=8; [ "$prec" = single ] && el=4
    awk -v r="$rate" -v k="$K" -v el="$el" -v p="$prec" -v f="$form" -v bits="$BITS" -v bw="$bw" -v g="${gr:--}" -v w="$gw" \
      'BEGIN { b = r * (38 * el + k * (4 + bits / 8 + el)) / 1e9;
               printf "%-6d %-7s %-6s %14.3g %12.1f %7.1f%% %5s %12s %12s\n", k, p, f, r, b, 100 * b / bw,
                      (100 * b / bw >= 80 ? "yes" : "no"), g, w }'
  done
done
echo '# 80%: issue 58 goal, the step loop at >= 80 % of the floor (floor-GB/s over the probe'"'"'s copy bandwidth)'

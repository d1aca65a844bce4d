#!/usr/bin/env bash
# CPU benchmark of olive-simulate: cell-steps/s for 0/10/100 junctions per
# cell, double and single precision, 1 and 2 threads, plus the bytes the step
# loop must move at least (DESIGN.md performance model) per second.
# Usage: BUILD=build bash scripts/bench.sh [CELLS] [STEPS]
set -euo pipefail
BIN=${BIN:-$(cd "$(dirname "$0")/.." && pwd)/${BUILD:-build}/bin}
CELLS=${1:-65536}
STEPS=${2:-200}
work=$(mktemp -d /tmp/olive-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
printf '# olive CPU benchmark, %s, %s, %d cells, %d steps\n' "$(date -u +%F)" "$(uname -n)" "$CELLS" "$STEPS"
printf '%-6s %-7s %-8s %-7s %14s %12s\n' junc prec threads bits cell-steps/s floor-GB/s
for K in 0 10 100; do
  "$BIN/olive-genconn" -o "$work/net$K.h5" --cells "$CELLS" --generator uniform --density "$K" \
      --fixed-degree --conductance 0.04 --seed 1 --force >/dev/null
  for prec in double single; do
    for T in 1 2; do
      line=$("$BIN/olive-simulate" "$work/net$K.h5" -o "$work/out" --steps "$STEPS" --precision "$prec" \
             --record none --threads "$T" --force)
      rate=$(sed -n 's/.* \([0-9.e+]*\) cell-steps\/s.*/\1/p' <<<"$line")
      # floor: 2 x 19 state values + per junction a 4-byte index and a neighbour voltage (bits 0: no conductance bytes)
      el=8; [ "$prec" = single ] && el=4
      awk -v r="$rate" -v k="$K" -v el="$el" -v p="$prec" -v t="$T" \
        'BEGIN { printf "%-6d %-7s %-8d %-7d %14.3g %12.2f\n", k, p, t, 0, r, r * (38 * el + k * (4 + el)) / 1e9 }'
    done
  done
done

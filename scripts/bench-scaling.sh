#!/usr/bin/env bash
# Strong scaling of olive-simulate --backend cuda over the GPUs of one node:
# one network, the same steps, 1, 2, 4, ... ranks (one GPU each) up to
# NGPU (default: all GPUs nvidia-smi lists), with the step-loop rate, the
# speed-up over one GPU and the slowest rank's exchange and compute seconds.
# The outputs of every rank count must be bit-identical (checked: spikes.h5
# and state.h5 datasets with h5diff), or the script fails.
# Usage: bash scripts/bench-scaling.sh NAME STEPS GENCONN-ARGS...
#   e.g. bash scripts/bench-scaling.sh g4M 500 --dims 2000x2000 --generator gaussian --density 1000 --sigma 20
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/${BUILD:-build}/bin}
name=${1:?usage: bench-scaling.sh NAME STEPS GENCONN-ARGS...}; steps=${2:?}; shift 2
NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
work=${WORK:-$(mktemp -d /tmp/olive-scaling.XXXXXX)}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$BIN/olive-genconn" -o "$work/net.h5" "$@" --force >"$work/gen.log" 2>&1 || { cat "$work/gen.log" >&2; exit 1; }
printf '# %s: %s, %d steps, --backend %s, %s\n' "$name" "$*" "$steps" "${BACKEND:-cuda}" "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
printf '%-6s %14s %8s %10s %10s %10s %s\n' ranks cell-steps/s speedup exchange-s compute-s setup-s identical
base=""
for P in 1 2 4 8 16; do
  [ "$P" -le "$NGPU" ] || break
  mpirun -np "$P" --oversubscribe "$BIN/olive-simulate" "$work/net.h5" -o "$work/out$P" --steps "$steps" \
    --backend "${BACKEND:-cuda}" --record none --force -v >"$work/sim$P.log" 2>&1 || { cat "$work/sim$P.log" >&2; exit 1; }
  rate=$(sed -n 's/.* \([0-9.e+]*\) cell-steps\/s.*/\1/p' "$work/sim$P.log")
  read -r ex co se < <(sed -n 's/.*setup \([0-9.]*\) s, exchange \([0-9.]*\) s, compute \([0-9.]*\) s.*/\2 \3 \1/p' "$work/sim$P.log")
  [ -n "$base" ] || base=$rate
  same=yes
  if [ "$P" -gt 1 ]; then
    for f in spikes.h5 state.h5; do
      for d in $(h5ls -r "$work/out1/$f" | awk '$2 == "Dataset" { print $1 }'); do
        h5diff -q "$work/out1/$f" "$work/out$P/$f" "$d" "$d" >/dev/null 2>&1 || same="NO ($f $d)"
      done
    done
  fi
  awk -v p="$P" -v r="$rate" -v b="$base" -v e="$ex" -v c="$co" -v s="$se" -v i="$same" \
    'BEGIN { printf "%-6d %14.3g %8.2f %10.2f %10.2f %10.2f %s\n", p, r, r / b, e, c, s, i }'
  [ "$same" = yes ] || exit 1
done

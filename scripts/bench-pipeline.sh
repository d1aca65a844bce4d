#!/usr/bin/env bash
# The whole olive pipeline, timed per program (targets of docs/BENCHMARKS.md: 1M cells x
# 1000 uniform junctions, 2000 steps, <= 30 s; 4M x 1000 gaussian <= 60 s, one
# H100): olive-genconn -> olive-simulate -> olive-analyze summary, each as a
# user would run it (HDF5 files in between), with their --verbose phase
# timings kept in $WORK/*.log.
# Usage: bash scripts/bench-pipeline.sh NAME GENCONN-ARGS... -- SIMULATE-ARGS...
#   e.g. bash scripts/bench-pipeline.sh u1M --cells 1000000 --generator uniform --density 1000 \
#        -- --steps 2000 --backend cuda --record none
# Env: BIN (default build/bin), WORK (scratch, default a temporary folder),
# RANKS (olive-simulate under mpirun -np RANKS when > 1), KEEP=1 keeps WORK.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/${BUILD:-build}/bin}
name=${1:?usage: bench-pipeline.sh NAME GENCONN-ARGS... -- SIMULATE-ARGS...}; shift
gen=() sim=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do gen+=("$1"); shift; done
[ $# -gt 0 ] && shift
sim=("$@")
work=${WORK:-$(mktemp -d /tmp/olive-pipeline.XXXXXX)}
mkdir -p "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
now() { date +%s.%N; }
run_sim() { if [ "${RANKS:-1}" -gt 1 ]; then mpirun -np "$RANKS" --oversubscribe --bind-to none "$BIN/olive-simulate" "$@";
            else "$BIN/olive-simulate" "$@"; fi; }
show() { grep -h "junctions, mean degree\|generation\|written in\|set-up\|timings\|cell-steps/s\|energy\|error" "$@" |
         grep -v pmix | sed 's/^/    /'; }
t0=$(now)
"$BIN/olive-genconn" -o "$work/net.h5" "${gen[@]}" --force -v >"$work/genconn.log" 2>&1 || { cat "$work/genconn.log" >&2; exit 1; }
show "$work/genconn.log"
t1=$(now)
run_sim "$work/net.h5" -o "$work/out" "${sim[@]}" --force -v >"$work/simulate.log" 2>&1 || { cat "$work/simulate.log" >&2; exit 1; }
show "$work/simulate.log"
t2=$(now)
"$BIN/olive-analyze" summary "$work/out" >"$work/analyze.log" 2>&1 || { cat "$work/analyze.log" >&2; exit 1; }
t3=$(now)
size=$(du -h "$work/net.h5" | cut -f1)
awk -v n="$name" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v sz="$size" 'BEGIN {
  printf "%-10s genconn %7.2f s  simulate %7.2f s  analyze %5.2f s  total %7.2f s  (network file %s)\n",
         n, b - a, c - b, d - c, d - a, sz }'

#!/usr/bin/env bash
# Start-up cost of each program, run as a shell pipeline or a parameter sweep
# runs them: not under mpirun, N times in a row; prints the median wall time
# of --version and of a tiny job (64 cells, 20 steps). Usage:
#   BUILD=build bash scripts/bench-startup.sh [N]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN="$top/${BUILD:-build}/bin"
N=${1:-21}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export OMP_NUM_THREADS=1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$BIN/olive-genconn" -q -o net.h5 --cells 64 --generator uniform --density 4 --seed 1
median() {  # CMD...: median wall seconds of N runs
  local i t0 t1
  for i in $(seq "$N"); do
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
  done | sort -g | awk '{a[NR] = $1} END {printf "%.4f", a[int((NR + 1) / 2)]}'
}
printf '%-44s %10s\n' "command (median of $N)" "seconds"
for p in genconn disperse simulate analyze; do
  printf '%-44s %10s\n' "olive-$p --version" "$(median "$BIN/olive-$p" --version)"
done
printf '%-44s %10s\n' "olive-genconn 64 cells" "$(median "$BIN/olive-genconn" -q -o g.h5 --cells 64 --generator uniform --density 4 --seed 1 --force)"
printf '%-44s %10s\n' "olive-simulate 64 cells x 20 steps" "$(median "$BIN/olive-simulate" -q net.h5 -o r --steps 20 --force)"
printf '%-44s %10s\n' "same, OMPI_MCA_pml= (Open MPI picks: the old)" "$(median env OMPI_MCA_pml= "$BIN/olive-simulate" -q net.h5 -o r --steps 20 --force)"

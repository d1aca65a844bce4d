#!/usr/bin/env bash
# Strong or weak scaling of olive-simulate over the GPUs of one node:
# 1, 2, 4, ... ranks (one GPU each) up to NGPU (default: all GPUs nvidia-smi
# lists). Per rank count: the step-loop rate, the efficiency, the slowest
# rank's exchange seconds and, of those, the seconds inside MPI, the
# exchange's share of the step loop, set-up and the whole olive-simulate
# process (reading the network, set-up, loop, writing).
#
# Strong (default): one network, generated once; the outputs of every rank
# count must be bit-identical (spikes.h5 and state.h5 datasets, h5diff), or
# the script fails. Efficiency = rate(P) / (P rate(1)).
# Weak (WEAK=1): a network per rank count, P times the cells: in the
# genconn arguments {X} becomes X*P and {/X} becomes X/P (e.g. --dims
# 2000x{2000}, --population exc:{800000}, p={/0.001} to keep the in-degree).
# Efficiency = rate(P) / (P rate(1)), the same rate per GPU being 1.
#
# Usage: bash scripts/bench-scaling.sh NAME STEPS GENCONN-ARGS...
#   e.g. bash scripts/bench-scaling.sh g4M 2000 --dims 2000x2000 --generator gaussian --density 1000 --sigma 20
#        WEAK=1 bash scripts/bench-scaling.sh g4M-per-gpu 2000 --dims 2000x{2000} --generator gaussian ...
# Env: BIN, NGPU, BACKEND (cuda), SIMARGS (more olive-simulate arguments),
# WORK (scratch; default a temporary folder, removed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/${BUILD:-build}/bin}
name=${1:?usage: bench-scaling.sh NAME STEPS GENCONN-ARGS...}; steps=${2:?}; shift 2
NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
WEAK=${WEAK:-0}
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/olive-scaling.XXXXXX")}
mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
now() { date +%s.%N; }

# the genconn arguments for P ranks ({X} -> X*P, {/X} -> X/P in weak mode)
gen_args() {
  local P=$1 a; shift
  for a in "$@"; do
    while [[ $a =~ \{(/?)([0-9.eE+-]+)\} ]]; do
      local v
      if [ -n "${BASH_REMATCH[1]}" ]; then v=$(awk -v x="${BASH_REMATCH[2]}" -v p="$P" 'BEGIN { printf "%.10g", x / p }')
      else v=$(awk -v x="${BASH_REMATCH[2]}" -v p="$P" 'BEGIN { printf "%.10g", x * p }'); fi
      a=${a/"${BASH_REMATCH[0]}"/$v}
    done
    printf '%s\n' "$a"
  done
}
generate() {  # generate P OUT: the network for P ranks, its genconn seconds on stdout
  local P=$1 out=$2 t0 args
  mapfile -t args < <(gen_args "$P" "$@")
  args=("${args[@]:2}")
  t0=$(now)
  "$BIN/olive-genconn" -o "$out" "${args[@]}" --force -v >"$work/gen$P.log" 2>&1 || { cat "$work/gen$P.log" >&2; exit 1; }
  awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'
}

mode=strong; [ "$WEAK" = 1 ] && mode=weak
printf '# %s (%s scaling): %s, %d steps, --backend %s %s, %s\n' "$name" "$mode" "$*" "$steps" "${BACKEND:-cuda}" \
  "${SIMARGS:-}" "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
if [ "$mode" = strong ]; then
  gsec=$(generate 1 "$work/net.h5" "$@")
  printf '# olive-genconn: %s s (%s)\n' "$gsec" "$(grep -h "synapses in\|junctions" "$work/gen1.log" | head -1 | sed 's/^ *//')"
fi
printf '%-5s %10s %12s %6s %8s %8s %7s %6s %8s %9s %s\n' ranks cells cell-steps/s eff loop-s exch-s mpi-s exch-% setup-s process-s identical
base=""
for P in 1 2 4 8 16; do
  [ "$P" -le "$NGPU" ] || break
  net="$work/net.h5"
  if [ "$mode" = weak ]; then
    net="$work/net$P.h5"
    gsec=$(generate "$P" "$net" "$@")
    printf '# %d rank(s): olive-genconn %s s (%s)\n' "$P" "$gsec" "$(grep -h "synapses in\|junctions" "$work/gen$P.log" | head -1 | sed 's/^ *//')"
  fi
  t0=$(now)
  # --bind-to none: Open MPI binds each of 1 or 2 ranks to one core, and the
  # OpenMP threads of set-up (reading, turning synapses around) then share it
  # (1M-cell LIF network on the 2-GPU host: set-up 95.7 s bound, 13.7 s unbound)
  # shellcheck disable=SC2086
  mpirun -np "$P" --oversubscribe --bind-to none "$BIN/olive-simulate" "$net" -o "$work/out$P" --steps "$steps" \
    --backend "${BACKEND:-cuda}" --record none --force -v ${SIMARGS:-} >"$work/sim$P.log" 2>&1 || { cat "$work/sim$P.log" >&2; exit 1; }
  proc=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  cells=$(sed -n 's/^olive-simulate: \([0-9]*\) cells x.*/\1/p' "$work/sim$P.log")
  rate=$(sed -n 's/.* \([0-9.e+]*\) cell-steps\/s.*/\1/p' "$work/sim$P.log")
  read -r se ex mp co < <(sed -n 's/.*setup \([0-9.]*\) s, exchange \([0-9.]*\) s (MPI \([0-9.]*\) s), compute \([0-9.]*\) s.*/\1 \2 \3 \4/p' "$work/sim$P.log")
  [ -n "$base" ] || base=$rate
  same=yes
  if [ "$mode" = weak ]; then
    same=-
    rm -f "$net"
  elif [ "$P" -gt 1 ]; then
    for f in spikes.h5 state.h5; do
      for d in $(h5ls -r "$work/out1/$f" | awk '$2 == "Dataset" { print $1 }'); do
        h5diff -q "$work/out1/$f" "$work/out$P/$f" "$d" "$d" >/dev/null 2>&1 || same="NO ($f $d)"
      done
    done
  fi
  awk -v p="$P" -v n="$cells" -v r="$rate" -v b="$base" -v e="$ex" -v m="$mp" -v c="$co" -v s="$se" -v t="$proc" -v i="$same" \
    'BEGIN { l = e + c; printf "%-5d %10d %12.3g %6.2f %8.2f %8.2f %7.2f %6.1f %8.2f %9.2f %s\n",
             p, n, r, r / (p * b), l, e, m, (l > 0 ? 100 * e / l : 0), s, t, i }'
  grep -h "timings\|set-up\|engine\|CUDA device" "$work/sim$P.log" | grep -v pmix | head -n 4 | cut -c1-300 | sed 's/^/#   /'
  [ "$P" = 1 ] || [ "$mode" = weak ] || rm -rf "$work/out$P"
  case $same in yes|-) ;; *) exit 1 ;; esac
done

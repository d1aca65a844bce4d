#!/usr/bin/env bash
# olive-simulate's default thread count against 1 and all threads, on a busy
# machine (docs/BENCHMARKS.md, "Threads"): the tutorial's and the demo's
# networks and a 100k-cell network, each run REPS times per setting while a
# load keeps the cores busy: LOAD=spin (default: one busy loop a core, as a
# `make check` beside it does), LOAD=check (a `make check` of this tree in a
# copy) or LOAD=none. The default is olive-simulate with neither --threads
# nor OMP_NUM_THREADS/OMP_WAIT_POLICY set; the settings take turns. Prints
# wall seconds (median) and
# the default's ratio to the best setting.
# Usage: bash scripts/bench-threads.sh   (env: BIN, REPS=5, LOAD=spin)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin} REPS=${REPS:-5} LOAD=${LOAD:-spin}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
ncpu=$(nproc)
cd "$work"
"$BIN/olive-genconn" -q -o demo.h5 --dims 32x32x1 --generator gaussian --density 10 --conductance 0.04 \
  --symmetric --gcal 0.6:1.2 --seed 1
"$BIN/olive-genconn" -q -o ei.h5 --model lif_cuba --population exc:200 --population inh:50 --param E_L=-60 \
  --param V_reset=-60 --param t_ref=2 --v0 -60:-50 --seed 1 \
  --projection from=exc,to=all,p=0.1,weight=1.0,delay=1.5,receptor=ge --projection from=inh,to=all,p=0.1,weight=-4,delay=1.5,receptor=gi
"$BIN/olive-genconn" -q -o cuba.h5 --model lif_cuba --population exc:3200 --population inh:800 --seed 1 \
  --projection from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=ge --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi \
  --v0 -60:-50 --param I_e=0 --param E_L=-49
"$BIN/olive-genconn" -q -o big.h5 --model lif_cuba --population exc:80000 --population inh:20000 --seed 1 --v0 -60:-50 \
  --projection from=exc,to=all,indegree=80,weight=0.5,delay=1:3,receptor=ge --projection from=inh,to=all,indegree=20,weight=-2,delay=1:3,receptor=gi
nets=("demo InfOli 1024 cells, 1.5 s|demo.h5 --time 1500 --pulse 1000:1024.95:6"
      "tutorial lif_cuba 250 cells, 0.5 s, Poisson|ei.h5 --time 500 --poisson rate=20,weight=2.5mV,receptor=ge,n=50 --record none"
      "tutorial_cuba 4000 cells, 1 s|cuba.h5 --time 1000 --record none"
      "lif_cuba 100k cells x 100, 0.2 s, Poisson|big.h5 --time 200 --poisson rate=8,weight=1,receptor=ge,n=100 --record none")
case $LOAD in
  spin) for _ in $(seq "$ncpu"); do setsid bash -c 'while :; do :; done' & pids+=($!); done ;;
  check) git -C "$top" worktree list >/dev/null 2>&1; cp -r "$top" "$work/tree" && rm -rf "$work/tree/build" "$work/tree/build-san"
         (cd "$work/tree" && setsid env JOBS=2 make check >/dev/null 2>&1) & pids+=($!) ; sleep 60 ;;
  none) ;;
  *) echo "LOAD=$LOAD: spin, check or none" >&2; exit 2 ;;
esac
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timed() {  # ARGS...: wall seconds of one run
  local t0 t1
  t0=$(date +%s.%N)
  env -u OMP_NUM_THREADS -u OMP_WAIT_POLICY -u OLIVE_NO_REEXEC "$BIN/olive-simulate" "$@" -o out --force -q >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
printf '%s: %d cores, load %s, %s, median of %d\n' "$(hostname)" "$ncpu" "$LOAD" "$(date -u +%Y-%m-%d)" "$REPS"
printf '%-46s %10s %10s %10s %8s\n' network default "1 thread" "$ncpu threads" "default/best"
for n in "${nets[@]}"; do
  name=${n%%|*} args=${n#*|}
  declare -A med=() runs=()
  for _ in $(seq "$REPS"); do   # the settings in turn, so that a change of load touches each alike
    for setting in default 1 "$ncpu"; do
      extra=(); [ "$setting" = default ] || extra=(--threads "$setting")
      # shellcheck disable=SC2086
      runs[$setting]+="$(timed $args "${extra[@]}") "
    done
  done
  for setting in default 1 "$ncpu"; do med[$setting]=$(printf '%s\n' ${runs[$setting]} | median); done
  best=$(printf '%s\n' "${med[1]}" "${med[$ncpu]}" "${med[default]}" | sort -g | head -1)
  printf '%-46s %10.2f %10.2f %10.2f %8.2f\n' "$name" "${med[default]}" "${med[1]}" "${med[$ncpu]}" "$(awk -v a="${med[default]}" -v b="$best" 'BEGIN { print a / b }')"
  unset med runs
done

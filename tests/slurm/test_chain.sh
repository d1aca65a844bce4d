#!/usr/bin/env bash
# The examples/slurm job chain against a live SLURM cluster (`make slurm-test`
# starts a private single-node one first with scripts/slurm-setup.sh).
#
# 1. submit-chain.sh on a small network: the four jobs are submitted with
#    afterok dependencies, all end COMPLETED (exit 0:0), each starting only
#    after the previous one ended, and leave net.h5, map.h5, run/{spikes,
#    v_axon,state}.h5, summary.txt/.csv and the four logs in WORKDIR; the
#    summary names the cell count and the world size.
# 2. 03-simulate submitted alone (as in examples/README.md) with
#    LAUNCHER=mpirun gives results identical to the srun run of step 1
#    (olive-analyze compare, exact).
# 3. A long 03-simulate with CHECKPOINT_EVERY, sent SIGTERM by scancel while
#    running (as at a time limit): it ends FAILED with exit 143 and a saved
#    state; resubmitted with RESTART=.../state.h5 it completes, and its final
#    state equals an unbroken run's (h5diff, every state dataset).
# 4. A chain whose first job fails (CELLS=-5): genconn ends FAILED, the three
#    dependent jobs end CANCELLED (DependencyNeverSatisfied, through
#    --kill-on-invalid-dep) without ever running (no logs, no net.h5).
#
# Environment: BUILD [build]; SLURM_CONF [the one of scripts/slurm-setup.sh,
#   /tmp/olive-slurm/etc/slurm.conf, when present]; CELLS [2000] DENSITY [10]
#   RANKS [2] STEPS [2000]; SLURM_TEST_TIMEOUT [300] seconds per chain;
#   SLURM_TEST_MPIRUN [1]: 0 skips step 2; KEEP [0]: 1 keeps the work
#   directory (it is kept anyway when the test fails).
# Exit status 0: all passed; 1: a check failed; 2: no usable cluster.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) BIN=$BUILD/bin ;; *) BIN=$top/$BUILD/bin ;; esac
CELLS=${CELLS:-2000}
DENSITY=${DENSITY:-10}
RANKS=${RANKS:-2}
STEPS=${STEPS:-2000}
TIMEOUT=${SLURM_TEST_TIMEOUT:-300}
TEST_MPIRUN=${SLURM_TEST_MPIRUN:-1}
KEEP=${KEEP:-0}
export PATH=$PATH:/usr/sbin:/sbin

if [ -z "${SLURM_CONF:-}" ] && [ -f "${OLIVE_SLURM_DIR:-/tmp/olive-slurm}/etc/slurm.conf" ]; then
  export SLURM_CONF=${OLIVE_SLURM_DIR:-/tmp/olive-slurm}/etc/slurm.conf
fi

fails=0
ok()   { echo "ok:   $*"; }
bad()  { echo "FAIL: $*"; fails=$((fails + 1)); }
check() {  # description command...
  local what=$1; shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
skip() { echo "slurm-test: $*" >&2; exit 2; }

command -v sbatch >/dev/null || skip "sbatch not found: run scripts/slurm-setup.sh first"
scontrol ping >/dev/null 2>&1 ||
  skip "no slurmctld answers (SLURM_CONF=${SLURM_CONF:-unset}): run scripts/slurm-setup.sh first"
for p in genconn disperse simulate analyze; do
  [ -x "$BIN/olive-$p" ] || skip "$BIN/olive-$p is missing: run make"
done

# The node: enough CPUs for RANKS single-threaded ranks; the 16G --mem of
# 01/02 replaced by 1G when the node has less.
node_line=$(scontrol show node -o | head -n 1)
cpus=$(grep -o 'CPUTot=[0-9]*' <<<"$node_line" | cut -d= -f2)
mem=$(grep -o 'RealMemory=[0-9]*' <<<"$node_line" | cut -d= -f2)
[ "${cpus:-0}" -ge "$RANKS" ] || skip "the node has ${cpus:-?} CPUs, fewer than RANKS=$RANKS"
sbatch_opts=()
[ "${mem:-0}" -ge 16384 ] || sbatch_opts+=(--mem=1G)

# srun with Open MPI needs SLURM's PMIx plugin; without it, mpirun.
if srun --mpi=list 2>&1 | grep -qw pmix; then
  chain_env=(LAUNCHER=srun LAUNCHER_ARGS=--mpi=pmix)
else
  echo "note: srun has no pmix plugin: the chain uses LAUNCHER=mpirun"
  chain_env=(LAUNCHER=mpirun LAUNCHER_ARGS=)
  TEST_MPIRUN=0
fi

scratch=$(mktemp -d /tmp/olive-slurm-test.XXXXXX)
our_jobs=()
cleanup() {
  [ ${#our_jobs[@]} -eq 0 ] || scancel "${our_jobs[@]}" 2>/dev/null
  if [ "$fails" -eq 0 ] && [ "$KEEP" != 1 ]; then rm -rf "$scratch"
  else echo "work directories kept in $scratch"; fi
}
trap cleanup EXIT

# field JOBID NAME: a field of `scontrol show job -o` (empty if none).
field() {
  scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}
terminal() {
  case $1 in
    COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE) return 0 ;;
    *) return 1 ;;
  esac
}
# wait_jobs ID...: until every job is in a terminal state (TIMEOUT seconds).
wait_jobs() {
  local t0=$SECONDS id st all
  while :; do
    all=1
    for id in "$@"; do
      st=$(field "$id" JobState)
      terminal "$st" || all=0
    done
    [ $all = 1 ] && return 0
    if [ $((SECONDS - t0)) -ge "$TIMEOUT" ]; then
      echo "jobs $* not finished after ${TIMEOUT}s:" >&2
      squeue -j "$(IFS=,; echo "$*")" >&2
      return 1
    fi
    sleep 0.5
  done
}
# submit_chain WORKDIR VAR=VALUE...: runs submit-chain.sh, sets ids=(4 job ids).
submit_chain() {
  local wd=$1 out; shift
  out=$(env "$@" WORKDIR="$wd" OLIVE_BIN="$BIN" CPUS_PER_TASK=1 \
        bash "$top/examples/slurm/submit-chain.sh" "${sbatch_opts[@]}" 2>&1)
  local rc=$?
  echo "$out" | sed 's/^/    | /'
  ids=()
  [ $rc -eq 0 ] || { bad "submit-chain.sh exited $rc"; return 1; }
  read -r -a ids < <(sed -n 's/^submit-chain: jobs \([0-9]*\) (genconn) -> \([0-9]*\) (disperse) -> \([0-9]*\) (simulate.*) -> \([0-9]*\) (analyze)$/\1 \2 \3 \4/p' <<<"$out")
  [ ${#ids[@]} -eq 4 ] || { bad "submit-chain.sh did not report four job ids"; return 1; }
  our_jobs+=("${ids[@]}")
  ok "submit-chain.sh submitted jobs ${ids[*]}"
}
show_logs() {  # WORKDIR
  local f
  for f in "$1"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
}

phases=(genconn disperse simulate analyze)
t_start=$SECONDS

# --- 1. the chain ----------------------------------------------------------
echo "== chain: CELLS=$CELLS DENSITY=$DENSITY RANKS=$RANKS STEPS=$STEPS ${chain_env[*]}"
wd=$scratch/chain
t0=$SECONDS
if submit_chain "$wd" CELLS="$CELLS" DENSITY="$DENSITY" RANKS="$RANKS" STEPS="$STEPS" "${chain_env[@]}"; then
  # Right after submission the later jobs wait for their predecessor.
  for k in 1 2 3; do
    dep=$(field "${ids[k]}" Dependency) st=$(field "${ids[k]}" JobState)
    if [ "$st" = PENDING ]; then
      check "job ${ids[k]} (${phases[k]}) pending on afterok:${ids[k-1]} ($dep)" \
        grep -q "^afterok:${ids[k-1]}[(_]" <<<"$dep"
    elif [ $k = 1 ]; then
      ok "job ${ids[k]} (${phases[k]}) already $st (genconn was fast)"
    else
      bad "job ${ids[k]} (${phases[k]}) is $st right after submission, not PENDING"
    fi
  done
  if wait_jobs "${ids[@]}"; then
    ok "the four jobs finished in $((SECONDS - t0))s"
    prev_end=
    for k in 0 1 2 3; do
      id=${ids[k]}
      st=$(field "$id" JobState) ec=$(field "$id" ExitCode)
      s=$(field "$id" StartTime) e=$(field "$id" EndTime)
      check "job $id (${phases[k]}) COMPLETED with exit 0:0 (got $st $ec, $s .. $e)" \
        test "$st:$ec" = COMPLETED:0:0
      if [ -n "$prev_end" ] && [ "$st" = COMPLETED ]; then
        check "job $id (${phases[k]}) started after its predecessor ended ($s >= $prev_end)" \
          test ! "$s" \< "$prev_end"
      fi
      prev_end=
      [ "$st" != COMPLETED ] || prev_end=$e
      check "log olive-${phases[k]}-$id.out" test -s "$wd/olive-${phases[k]}-$id.out"
    done
  else
    bad "the chain did not finish"
  fi
  for f in net.h5 map.h5 run/spikes.h5 run/v_axon.h5 run/state.h5 summary.txt summary.csv; do
    check "output $f" test -s "$wd/$f"
  done
  check "no run.tmp-* left" test -z "$(find "$wd" -maxdepth 1 -name 'run.tmp-*' -print -quit)"
  check "summary: $CELLS cells" grep -Eq "^cells +$CELLS( |\$)" "$wd/summary.txt"
  check "summary: world size $RANKS" grep -Eq "^world size +$RANKS( |\$)" "$wd/summary.txt"
  check "summary: $STEPS steps" grep -q "= $STEPS x " "$wd/summary.txt"
  sim_log=$wd/olive-simulate-${ids[2]}.out
  check "03-simulate ran $RANKS rank(s) with ${chain_env[0]#LAUNCHER=}" \
    grep -q "^+ ${chain_env[0]#LAUNCHER=} " "$sim_log"
  check "olive-simulate reports $RANKS rank(s)" grep -q "olive-simulate: .* $RANKS rank(s)" "$sim_log"
  [ "$fails" -eq 0 ] || show_logs "$wd"

  # --- 2. 03-simulate alone with mpirun ------------------------------------
  if [ "$TEST_MPIRUN" = 1 ] && [ "$fails" -eq 0 ]; then
    echo "== 03-simulate submitted alone, LAUNCHER=mpirun"
    mv "$wd/run" "$wd/run-srun"
    t0=$SECONDS
    if j=$(cd "$wd" && sbatch --parsable --ntasks="$RANKS" --cpus-per-task=1 "${sbatch_opts[@]}" \
             --export="ALL,WORKDIR=$wd,OLIVE_BIN=$BIN,STEPS=$STEPS,LAUNCHER=mpirun" \
             "$top/examples/slurm/03-simulate.sbatch"); then
      j=${j%%;*}; our_jobs+=("$j")
      if wait_jobs "$j"; then
        st=$(field "$j" JobState) ec=$(field "$j" ExitCode)
        check "job $j (simulate, mpirun) COMPLETED with exit 0:0 (got $st $ec) in $((SECONDS - t0))s" \
          test "$st:$ec" = COMPLETED:0:0
        check "job $j ran mpirun" grep -q '^+ mpirun ' "$wd/olive-simulate-$j.out"
        check "srun and mpirun runs identical (olive-analyze compare)" \
          "$BIN/olive-analyze" compare "$wd/run-srun" "$wd/run" --quiet
      else
        bad "job $j did not finish"
      fi
      [ "$fails" -eq 0 ] || show_logs "$wd"
    else
      bad "sbatch 03-simulate.sbatch (mpirun) failed"
    fi
  fi
fi

# --- 3. killed by SIGTERM, resumed from its state -----------------------------
if [ "$fails" -eq 0 ] && [ -f "$scratch/chain/map.h5" ]; then
  echo "== 03-simulate with checkpoints, SIGTERM while running, then RESTART"
  wd=$scratch/chain
  LONG=${SLURM_TEST_LONG_STEPS:-60000}
  ce=$(IFS=,; echo "${chain_env[*]}")
  if j=$(cd "$wd" && sbatch --parsable --ntasks="$RANKS" --cpus-per-task=1 "${sbatch_opts[@]}" \
           --export="ALL,WORKDIR=$wd,OLIVE_BIN=$BIN,STEPS=$LONG,OUT=long,CHECKPOINT_EVERY=1000,RECORD=none,$ce" \
           "$top/examples/slurm/03-simulate.sbatch"); then
    j=${j%%;*}; our_jobs+=("$j")
    t0=$SECONDS
    while [ ! -f "$wd/long/state.h5" ] && [ $((SECONDS - t0)) -lt "$TIMEOUT" ] && ! terminal "$(field "$j" JobState)"; do
      sleep 0.2
    done
    check "job $j wrote a checkpoint while running" test -f "$wd/long/state.h5"
    scancel --signal=TERM "$j.0"   # the job step: its ranks save their state and stop
    if wait_jobs "$j"; then
      st=$(field "$j" JobState) ec=$(field "$j" ExitCode)
      check "job $j stopped by SIGTERM: FAILED with exit 143 (got $st $ec)" test "$st:${ec%%:*}" = FAILED:143
      check "its log says how to continue" grep -q -- "--restart" "$wd/olive-simulate-$j.out"
      k0=$(h5dump -a /state/step "$wd/long/state.h5" 2>/dev/null | sed -n 's/^ *(0): //p' | head -n 1)
      check "the saved state is part-way (step ${k0:-?} of $LONG)" test "${k0:-0}" -gt 0 -a "${k0:-0}" -lt "$LONG"
      cp "$wd/long/state.h5" "$wd/long-state.h5"
      if j2=$(cd "$wd" && sbatch --parsable --ntasks="$RANKS" --cpus-per-task=1 "${sbatch_opts[@]}" \
                --export="ALL,WORKDIR=$wd,OLIVE_BIN=$BIN,STEPS=$LONG,OUT=long-2,RESTART=$wd/long-state.h5,RECORD=none,$ce" \
                "$top/examples/slurm/03-simulate.sbatch"); then
        j2=${j2%%;*}; our_jobs+=("$j2")
        if wait_jobs "$j2"; then
          st=$(field "$j2" JobState) ec=$(field "$j2" ExitCode)
          check "resumed job $j2 COMPLETED with exit 0:0 (got $st $ec)" test "$st:$ec" = COMPLETED:0:0
          OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpirun -np "$RANKS" --oversubscribe "$BIN/olive-simulate" "$wd/net.h5" --map "$wd/map.h5" -o "$wd/long-ref" \
            --steps "$LONG" --pulse 1000:1024.95:6 --record none >/dev/null 2>&1
          same=1
          [ -f "$wd/long-ref/state.h5" ] || { same=0; echo "    the unbroken reference run failed"; }
          for d in $(h5ls -r "$wd/long-ref/state.h5" | awk '$2 == "Dataset" { print $1 }'); do
            h5diff -q "$wd/long-ref/state.h5" "$wd/long-2/state.h5" "$d" "$d" >/dev/null 2>&1 || { same=0; echo "    differs: $d"; }
          done
          check "the resumed run's final state equals an unbroken run's" test "$same" = 1 -a -f "$wd/long-2/state.h5"
        else
          bad "resumed job $j2 did not finish"
        fi
      else
        bad "sbatch of the resumed 03-simulate failed"
      fi
    else
      bad "job $j did not end after SIGTERM"
    fi
    [ "$fails" -eq 0 ] || show_logs "$wd"
  else
    bad "sbatch 03-simulate.sbatch (checkpoints) failed"
  fi
fi

# --- 4. a failing first job --------------------------------------------------
echo "== chain with a failing first job: CELLS=-5"
wd=$scratch/fail
t0=$SECONDS
if submit_chain "$wd" CELLS=-5 DENSITY="$DENSITY" RANKS="$RANKS" STEPS="$STEPS" "${chain_env[@]}"; then
  if wait_jobs "${ids[@]}"; then
    ok "the four jobs ended in $((SECONDS - t0))s"
    st=$(field "${ids[0]}" JobState) ec=$(field "${ids[0]}" ExitCode)
    check "job ${ids[0]} (genconn) FAILED with a non-zero exit (got $st $ec)" \
      test "$st" = FAILED -a "${ec%%:*}" != 0
    check "genconn log names the bad --cells" grep -q -- '--cells' "$wd/olive-genconn-${ids[0]}.out"
    for k in 1 2 3; do
      id=${ids[k]}
      st=$(field "$id" JobState) r=$(field "$id" Reason)
      check "job $id (${phases[k]}) CANCELLED, DependencyNeverSatisfied (got $st $r)" \
        test "$st:$r" = CANCELLED:DependencyNeverSatisfied
      check "job $id (${phases[k]}) never ran (no log, no batch host)" \
        test ! -e "$wd/olive-${phases[k]}-$id.out" -a -z "$(field "$id" BatchHost)"
    done
    check "no net.h5, map.h5, run/ or summary" \
      test ! -e "$wd/net.h5" -a ! -e "$wd/map.h5" -a ! -e "$wd/run" -a ! -e "$wd/summary.txt"
  else
    bad "the failing chain did not end"
  fi
  [ "$fails" -eq 0 ] || show_logs "$wd"
fi

echo
if [ "$fails" -eq 0 ]; then
  echo "slurm-test: all passed in $((SECONDS - t_start))s"
else
  echo "slurm-test: $fails check(s) failed"
  exit 1
fi

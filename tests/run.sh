#!/usr/bin/env bash
# olive's test runner: runs every unit binary in $BUILD/tests and every
# tests/test_*.sh script, each in a scratch directory, and prints
# "N passed, N failed". Exit status is non-zero when anything failed.
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export BUILD=${BUILD:-build}
# SANITIZED=1 (make check SANITIZE=1): the ASan + UBSan pass, where every
# mpirun costs seconds; the rank-invariance tests then run one odd split
# (3 ranks) instead of every rank count, which the plain pass covers
export SANITIZED=${SANITIZED:-0}
export BIN="$top/$BUILD/bin" TESTS="$top/tests" TOP="$top"
export PY=${PY:-/usr/bin/python3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# PMIx's munge security plugin, when munge is installed but its daemon is not
# running (scripts/slurm-setup.sh installs it), retries for 2.3 s at every
# mpirun: the tests' mpirun ranks authenticate natively instead.
export PMIX_MCA_psec=${PMIX_MCA_psec:-^munge}
# Idle OpenMP threads sleep instead of spinning: tests run beside mpirun ranks.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# Sanitizer builds: OpenMPI keeps its plugins' memory until exit; keep the
# plugins loaded (so leak stacks name them) and suppress those, not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp:print_suppressions=0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-fast_unwind_on_malloc=0}
export OMPI_MCA_mca_base_component_disable_dlclose=1
# Sanitizer pass: LeakSanitizer's scan at the exit of each mpirun rank costs
# about 0.5 s (Open MPI's own allocations, suppressed above, are many); leaks
# are looked for in the runs without mpirun, which take every code path but
# the ranks' exchange; AddressSanitizer and UBSan check the mpirun ranks too.
pattern=${1:-}
scratch=$(mktemp -d /tmp/olive-tests.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ "$SANITIZED" = 1 ] && real_mpirun=$(command -v mpirun); then
  # (a program, not a shell function: exec keeps its pid mpirun's, which
  # tests that signal the ranks look for)
  mkdir -p "$scratch/bin"
  printf '#!/bin/sh\nASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec %s "$@"\n' "$real_mpirun" > "$scratch/bin/mpirun"
  chmod +x "$scratch/bin/mpirun"
  export PATH="$scratch/bin:$PATH"
fi
# JOBS=N runs N tests at a time (CI's sanitizer pass: each test keeps about
# one core busy); each prints its line when it ends, failures' logs at the end.
jobs_max=${JOBS:-1}
names=()
run_one() {  # name, command...
  local name=$1; shift
  [ -n "$pattern" ] && [[ "$name" != *"$pattern"* ]] && return
  names+=("$name")
  local dir="$scratch/$name"
  mkdir -p "$dir" "$dir.tmp"
  (
    t0=$SECONDS
    # A temporary directory of the test's own, for Open MPI's session directories
    # (ORTE's ompi.HOST.UID tree and PMIx's, under $TMPDIR) above all: in the
    # shared /tmp one, a job's clean-up removes the tree while another job
    # creates its directory in it ("orte_session_dir failed" in MPI_Init) when
    # tests, or two make checks, run at once.
    if (cd "$dir" && TMPDIR="$dir.tmp" "$@") >"$dir.log" 2>&1; then r=PASS; else r=FAIL; fi
    printf '%s %-40s %3ds\n' "$r" "$name" $((SECONDS - t0)) | tee "$dir.result"
    [ "$jobs_max" -gt 1 ] || [ "$r" = PASS ] || sed 's/^/    | /' "$dir.log" | tail -n 40
  ) &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
}
# The slowest tests (each 40 s or more on the 2-core CI machine, plain or
# sanitized pass) start early, each followed by two of the others: with
# JOBS=2 a long test then runs beside short ones, not beside another long one
# (two tests of several MPI ranks each steal each other's cycles: their ranks
# poll), and the run does not end on one long test left running alone.
slow="test_pynn test_spiking_nest test_cable_network test_cable_neuron test_nestml_build test_pip_install
  test_spiking_ranks test_conductance64 test_import_export test_genconn_laws test_checkpoint_restart
  test_spiking_brian2 test_malformed_network test_microcircuit test_python_package test_rank_invariance
  test_sonata_readers test_cluster_build test_spike_sources test_spiking_inputs test_plasticity test_nmodl"
long=() short=()
for name in $slow; do [ -f "$top/tests/$name.sh" ] && long+=("$name"); done
for t in "$top"/tests/test_*.sh; do
  name=$(basename "$t" .sh)
  [[ " $(echo $slow) " == *" $name "* ]] || short+=("$name")
done
s=0
for name in "${long[@]}"; do
  run_one "$name" bash "$top/tests/$name.sh"
  for _ in 1 2; do
    [ $s -lt ${#short[@]} ] && { run_one "${short[$s]}" bash "$top/tests/${short[$s]}.sh"; s=$((s + 1)); }
  done
done
for ((; s < ${#short[@]}; s++)); do run_one "${short[$s]}" bash "$top/tests/${short[$s]}.sh"; done
for t in "$top/$BUILD"/tests/*; do
  [ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
wait
pass=0 fail=0 failed=()
for name in "${names[@]}"; do
  if grep -q '^PASS' "$scratch/$name.result" 2>/dev/null; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); failed+=("$name")
    if [ "$jobs_max" -gt 1 ]; then
      echo; echo "FAIL $name:"; sed 's/^/    | /' "$scratch/$name.log" | tail -n 40
    fi
  fi
done
echo
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] || { echo "failed: ${failed[*]}"; exit 1; }

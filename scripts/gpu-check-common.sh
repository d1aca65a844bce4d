# Sourced by scripts/gpu-validate-spiking.sh and scripts/gpu-validate-plugins.sh
# (the GPU host's CPU = GPU checks): their scratch directory, results file and
# the helpers both use. Set before sourcing: top, dest (the results'
# directory), check (a short name: the scratch directory's and the title's),
# results (the results file's name) and optionally logs (default
# $work/logs). Leaves the shell in the scratch directory, removed on exit.
BIN=${BIN:-$top/build/bin}
mkdir -p "$dest"
work=$(mktemp -d "/tmp/olive-gpu-$check.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
logs=${logs:-$work/logs}
mkdir -p "$logs"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8} OMP_WAIT_POLICY=passive
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
results="$dest/$results"
: >"$results"
nfail=0
say() { echo "$*" | tee -a "$results"; }
run() {  # name, command...: its output in $logs/name.log; a failure counted and reported
  local name=$1; shift
  if ! "$@" >"$logs/$name.log" 2>&1; then
    say "FAIL $name: exit status $? ($(tail -n 3 "$logs/$name.log" | tr '\n' ' '))"
    nfail=$((nfail + 1)); return 1
  fi
}
G="$BIN/olive-genconn" S="$BIN/olive-simulate" A="$BIN/olive-analyze"
say "olive gpu-validate-$check on $(hostname) $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$results"

#!/usr/bin/env bash
# olive-genconn --backend cuda against --backend cpu on a GPU host: the same
# seed must give the same network file, dataset for dataset and byte for byte.
# Builds nothing: uses the binaries in $BIN (default build/bin, a CUDA build)
# and h5diff / h5dump / h5ls (hdf5-tools); no python needed.
# On a GPU host without parallel HDF5 (the runtime libraries packed by
# scripts/gpu-runtime.sh into .gpurt), carry
# build/bin and .gpurt, then:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && bash scripts/gpu-genconn-check.sh
# Cases (PASS/FAIL each): uniform binomial, uniform --fixed-degree (also the
# complement branch K > (N-1)/2), gaussian 2-D and 3-D, --symmetric,
# conductances (drawn on the GPU too: cond_cuda.cu) at 4, 8, 16, 32 and 64 bits,
# ranges and constants, with and without --symmetric, also in tiny chunks
# (OLIVE_GENCONN_COND_CHUNK: rows and 4-bit bytes split between chunks),
# g_CaL ranges, edge cases (p = 1, K = 0, tiny p), and 2 MPI ranks (cuda on 2
# ranks vs cpu on 1). Compared: the list of objects (h5ls -r), every dataset
# (h5diff, exact), every attribute (h5dump -A) except the recorded command
# line, which names the backend, and the largest quantisation error printed.
# Then throughput with --backend cuda: 1M cells x 1000 uniform (binomial and
# --fixed-degree) and 4M cells (2000x2000) x 1000 gaussian (--sigma 20), with
# 8-bit conductances in [0.01, 0.05], from the program's own -v lines "cuda
# generation ... junctions/s" (device work and copies to the host, context
# creation excluded), "conductances in ... s" and its whole run time;
# BENCH_CPU=1 also times the 1M x 1000 binomial case with --backend cpu.
# FULL=1 also runs the complement case at 100k x 50000 (5e9 junctions: ~20 GB
# per file, needs ~60 GB of disk and RAM). SKIP_BENCH=1 skips the throughput,
# SKIP_CASES=1 the comparisons.
# Results go to ${OUT:-.}/gpu-genconn-check/results.txt (each run's log to
# logs/ beside it); exit status 0 when
# every case passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
G=$BIN/olive-genconn
dest=${OUT:-.}/gpu-genconn-check
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/olive-genconn-check.XXXXXX")
mkdir -p "$dest/logs"
trap 'cp "$work"/*.log "$dest/logs/" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_WAIT_POLICY=passive
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
results="$dest/results.txt"
: >"$results"
say() { echo "$*" | tee -a "$results"; }
nfail=0 npass=0

"$G" --version | grep -q cuda || { say "FAIL: $G was built without CUDA ($("$G" --version))"; exit 1; }
command -v h5diff >/dev/null && command -v h5dump >/dev/null && command -v h5ls >/dev/null ||
  { say "FAIL: h5diff, h5dump and h5ls (hdf5-tools) are needed"; exit 1; }

# Attributes of every object, without the command line (nested braces counted).
attrs() {
  h5dump -A "$1" | awk '
    skip == 0 && /ATTRIBUTE "command"/ { skip = 1; depth = 0 }
    skip == 1 { depth += gsub(/{/, "{"); depth -= gsub(/}/, "}"); if (depth <= 0 && /}/) skip = 0; next }
    { print }' | sed 's/^HDF5 "[^"]*"/HDF5 FILE/'
}

# same A.h5 B.h5 LOG: 0 when the files hold the same objects, datasets and attributes.
same() {
  local a=$1 b=$2 log=$3
  if ! diff <(h5ls -r "$a" | sort) <(h5ls -r "$b" | sort) >>"$log" 2>&1; then echo "objects differ" >>"$log"; return 1; fi
  local ds
  for ds in $(h5ls -r "$a" | awk '$2 == "Dataset" { print $1 }'); do
    if ! h5diff -r "$a" "$b" "$ds" "$ds" >>"$log" 2>&1; then echo "dataset $ds differs" >>"$log"; return 1; fi
  done
  if ! diff <(attrs "$a") <(attrs "$b") >>"$log" 2>&1; then echo "attributes differ" >>"$log"; return 1; fi
  return 0
}

# 1 when ARGS... store conductances (a range, or --conductance-bits not 0).
stores_w() {
  local range=0 bits=
  while [ $# -gt 0 ]; do
    case $1 in
      --conductance) [[ $2 == *:* ]] && range=1; shift ;;
      --conductance-bits) bits=$2; shift ;;
    esac
    shift
  done
  if [ -n "$bits" ]; then [ "$bits" != 0 ]; else [ $range = 1 ]; fi
}

# check NAME NP ARGS...: cpu on 1 rank vs cuda on NP ranks (NP 1: no mpirun).
# CHUNK=n before it: the cuda run draws conductances in chunks of n junctions.
check() {
  local name=$1 np=$2; shift 2
  local log="$work/$name.log" chunk=${CHUNK:-}
  local t0=$SECONDS
  if ! "$G" -o "$name-cpu.h5" --backend cpu "$@" >"$log" 2>&1; then
    say "FAIL $name: cpu run failed: $(tail -n 2 "$log" | tr '\n' ' ')"; nfail=$((nfail + 1)); return; fi
  local runner=()
  [ "$np" -gt 1 ] && runner=(mpirun -np "$np" --oversubscribe -x OMP_NUM_THREADS ${chunk:+-x OLIVE_GENCONN_COND_CHUNK})
  if ! OLIVE_GENCONN_COND_CHUNK=$chunk "${runner[@]}" "$G" -o "$name-cuda.h5" --backend cuda -v "$@" >>"$log" 2>&1; then
    say "FAIL $name: cuda run failed: $(tail -n 2 "$log" | tr '\n' ' ')"; nfail=$((nfail + 1)); return; fi
  if ! grep -q "cuda generation" "$log"; then
    say "FAIL $name: the cuda run did not generate on the GPU: $(grep -v '^$' "$log" | tail -n 2 | tr '\n' ' ')"
    nfail=$((nfail + 1)); return; fi
  if stores_w "$@" && ! grep -q "cuda conductances" "$log"; then
    say "FAIL $name: the cuda run did not draw the conductances on the GPU"; nfail=$((nfail + 1)); return; fi
  local qe
  qe=$(grep -o 'largest quantisation error.*' "$log" | sort | uniq | wc -l)
  if [ "$qe" -gt 1 ]; then
    say "FAIL $name: the largest quantisation errors differ: $(grep -o 'largest quantisation error.*' "$log" | tr '\n' ' ')"
    nfail=$((nfail + 1)); return; fi
  local nnz
  nnz=$(grep -o '[0-9]* junctions, mean' "$log" | head -n 1 | cut -d' ' -f1)
  if same "$name-cpu.h5" "$name-cuda.h5" "$log"; then
    say "PASS $name ($nnz junctions, $((SECONDS - t0)) s): $*${runner:+ [$np ranks]}${chunk:+ [chunks of $chunk]}"
    npass=$((npass + 1))
  else
    say "FAIL $name: files differ: $*${runner:+ [$np ranks]}${chunk:+ [chunks of $chunk]}"; tail -n 15 "$log" | sed 's/^/    | /' | tee -a "$results"
    nfail=$((nfail + 1))
  fi
  rm -f "$name-cpu.h5" "$name-cuda.h5"
}

say "== $(date -u +%FT%TZ) $("$G" --version); $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
if [ "${SKIP_CASES:-0}" != 1 ]; then
check uni        1 --cells 100000 --generator uniform --density 100 --seed 7
check uni-s2     1 --cells 100000 --generator uniform --density 100 --seed 8 --gcal 0.6:0.8
check uni-tinyp  1 --cells 100000 --generator uniform --density 0.5 --seed 3
check uni-p1     1 --cells 300 --generator uniform --density 299
check uni-k0     1 --cells 1000 --generator uniform --density 0
check uni-one    1 --cells 1 --generator uniform --density 0
check fix        1 --cells 100000 --generator uniform --fixed-degree --density 1000 --seed 5
check fix-small  1 --cells 5000 --generator uniform --fixed-degree --density 9 --conductance-bits 4 --conductance 0:1
if [ "${FULL:-0}" = 1 ]; then
  check fix-compl 1 --cells 100000 --generator uniform --fixed-degree --density 50000
else
  check fix-compl 1 --cells 20000 --generator uniform --fixed-degree --density 15000
fi
check fix-allbut 1 --cells 2000 --generator uniform --fixed-degree --density 1999
check gau2       1 --dims 300x300 --generator gaussian --density 50 --sigma 5
check gau3       1 --dims 40x40x40 --generator gaussian --density 100 --sigma 4 --seed 9
check gau-line   1 --cells 3000 --generator gaussian --density 6 --sigma 2.5 --seed 11
check uni-sym-c4 1 --cells 100000 --generator uniform --density 100 --symmetric --conductance 0.01:0.05 --conductance-bits 4
check fix-sym-c8 1 --cells 100000 --generator uniform --fixed-degree --density 100 --symmetric --conductance 0.01:0.05 --conductance-bits 8
check gau2-sym-c4 1 --dims 300x300 --generator gaussian --density 50 --sigma 5 --symmetric --conductance 0.01:0.05 --conductance-bits 4
check gau3-sym-c8 1 --dims 40x40x40 --generator gaussian --density 100 --sigma 4 --symmetric --conductance 0.01:0.05 --conductance-bits 8
check mpi-uni    2 --cells 100001 --generator uniform --density 100 --conductance 0.01:0.05 --conductance-bits 4 --gcal 0.6:0.8
check mpi-fix    2 --cells 100001 --generator uniform --fixed-degree --density 1000 --symmetric --conductance 0.01:0.05 --conductance-bits 8
check mpi-gau2   2 --dims 300x301 --generator gaussian --density 50 --sigma 5 --symmetric --conductance 0.01:0.05 --conductance-bits 4
check mpi-gau3   2 --dims 40x40x41 --generator gaussian --density 100 --sigma 4 --conductance 0.01:0.05 --conductance-bits 8
# Conductances at every width, ranges and constants, --symmetric (keyed by the pair's (min, max)).
for b in 4 8 16 32 64; do
  check uni-c$b     1 --cells 100001 --generator uniform --density 101 --seed 21 --conductance 0.01:0.05 --conductance-bits $b
  check uni-sym-r$b 1 --cells 100001 --generator uniform --density 101 --seed 22 --symmetric --conductance 0.02:0.03 --conductance-bits $b
  check gau-sym-c$b 1 --dims 201x203 --generator gaussian --density 37 --sigma 4 --symmetric --conductance 0.01:0.05 --conductance-bits $b
  check mpi-sym-c$b 2 --cells 100001 --generator uniform --density 99 --seed 23 --symmetric --conductance 0.01:0.05 --conductance-bits $b
done
check uni-w32      1 --cells 50001 --generator uniform --density 77 --conductance 0.01:0.05
check uni-const-c8 1 --cells 50001 --generator uniform --density 77 --conductance 0.02 --conductance-bits 8
check uni-const-c4 1 --cells 50001 --generator uniform --density 77 --conductance 0.02 --conductance-bits 4
check uni-p1-c4    1 --cells 301 --generator uniform --density 300 --conductance 0:1 --conductance-bits 4
# Tiny chunks: rows, and the bytes of 4-bit codes, split between chunks; the
# two streams take turns many times.
CHUNK=1002 check chunk-c4     1 --cells 5001 --generator uniform --density 999 --symmetric --conductance 0.01:0.05 --conductance-bits 4
CHUNK=2    check chunk2-c4    1 --cells 3001 --generator uniform --density 3 --conductance 0.01:0.05 --conductance-bits 4
CHUNK=4098 check chunk-fix-c8 1 --cells 20001 --generator uniform --fixed-degree --density 7 --conductance 0.01:0.05 --conductance-bits 8
CHUNK=1000 check chunk-gau-c16 1 --dims 150x151 --generator gaussian --density 21 --sigma 3 --symmetric --conductance 0.01:0.05 --conductance-bits 16
CHUNK=1002 check chunk-mpi-c4 2 --cells 5001 --generator uniform --density 999 --symmetric --conductance 0.01:0.05 --conductance-bits 4
CHUNK=998  check chunk-mpi-c32 2 --cells 5001 --generator uniform --density 501 --conductance 0.01:0.05 --conductance-bits 32
# More than one chunk of the default size (2^25 junctions).
check big-sym-c4  1 --cells 400001 --generator uniform --density 101 --symmetric --conductance 0.01:0.05 --conductance-bits 4
# A gaussian that cannot find its partners fails on the GPU as on the CPU, naming the same cell.
if "$G" -o imp.h5 --dims 3x3 --generator gaussian --density 8 --sigma 0.2 --backend cuda >imp.out 2>imp.err; then
  say "FAIL gau-impossible: accepted"; nfail=$((nfail + 1))
else
  "$G" -o imp.h5 --dims 3x3 --generator gaussian --density 8 --sigma 0.2 --backend cpu >imp.out 2>imp2.err
  if grep -q -- "--sigma" imp.err && diff -q <(grep -o 'cell [0-9]* found.*draws' imp.err) <(grep -o 'cell [0-9]* found.*draws' imp2.err) >/dev/null; then
    say "PASS gau-impossible: $(grep -o 'cell [0-9]* found.*draws' imp.err)"; npass=$((npass + 1))
  else say "FAIL gau-impossible: $(cat imp.err) / cpu: $(cat imp2.err)"; nfail=$((nfail + 1)); fi
fi
fi   # SKIP_CASES

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  bench() {  # NAME ARGS...
    local name=$1; shift
    local log="$work/bench-$name.log" t0
    t0=$(date +%s.%N)
    if ! "$G" -o "bench-$name.h5" -v "$@" >"$log" 2>&1; then
      say "BENCH $name: FAILED: $(tail -n 2 "$log" | tr '\n' ' ')"; nfail=$((nfail + 1)); return; fi
    local line whole cond gpucond
    line=$(grep -o 'cuda generation.*' "$log" | head -n 1)
    cond=$(grep -o 'conductances in [0-9.]* s, g_CaL in [0-9.]* s' "$log" | head -n 1)
    gpucond=$(grep -o 'cuda conductances.*' "$log" | head -n 1)
    whole=$(grep -o '[0-9.]* s (generation [0-9.]* s, write [0-9.]* s)' "$log" | head -n 1)
    say "BENCH $name: $* -> ${line:-generated on the CPU}; $cond${gpucond:+ ($gpucond)}; whole run $whole"
    rm -f "bench-$name.h5"
  }
  c8=(--conductance 0.01:0.05 --conductance-bits 8)
  bench uniform-1Mx1000 --backend cuda --cells 1000000 --generator uniform --density 1000 "${c8[@]}"
  bench fixed-1Mx1000   --backend cuda --cells 1000000 --generator uniform --fixed-degree --density 1000 "${c8[@]}"
  bench gauss-4Mx1000   --backend cuda --dims 2000x2000 --generator gaussian --density 1000 --sigma 20 "${c8[@]}"
  [ "${BENCH_CPU:-0}" = 1 ] && bench uniform-1Mx1000-cpu --backend cpu --cells 1000000 --generator uniform --density 1000 "${c8[@]}"
fi

say ""
if [ $nfail -eq 0 ]; then say "ALL PASSED ($npass cases)"; else say "$nfail FAILED, $npass passed"; fi
[ $nfail -eq 0 ]

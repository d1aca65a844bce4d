#!/usr/bin/env bash
# olive-genconn under mpirun: every rank generates its block of rows and the
# file is written collectively; the same seed must give the same file for any
# number of ranks (datasets and attributes compared with h5diff), including
# --symmetric (a cross-rank transpose), 4-bit conductances whose bytes straddle
# rank boundaries, and per-cell g_CaL.
set -euo pipefail
export OMP_NUM_THREADS=1
cases=(
  "--cells 301 --generator uniform --density 7 --conductance 0.01:0.05 --conductance-bits 4 --gcal 0.6:0.8"
  "--cells 301 --generator uniform --density 6 --fixed-degree --symmetric --conductance 0.01:0.05 --conductance-bits 32"
  "--dims 9x7x5 --generator gaussian --density 5 --sigma 2 --symmetric --conductance 0.02:0.04 --conductance-bits 4"
  "--dims 13x11 --generator grid --conductance 0.01:0.05 --conductance-bits 16 --gcal 0.7"
  "--cells 5 --generator uniform --density 1 --conductance 0.04"
)
i=0
for args in "${cases[@]}"; do
  i=$((i + 1))
  # The same relative output name in each directory, so even the recorded
  # command line attribute must match.
  mkdir -p p1
  # shellcheck disable=SC2086
  (cd p1 && "$BIN/olive-genconn" -o "net$i.h5" --seed 11 $args >/dev/null 2>&1)
  ranks="2 3 4"
  [ "${SANITIZED:-0}" = 1 ] && ranks=3   # (the sanitizer pass: one odd split; tests/run.sh)
  for P in $ranks; do
    mkdir -p "p$P"
    # shellcheck disable=SC2086
    (cd "p$P" && mpirun -np "$P" --oversubscribe "$BIN/olive-genconn" -o "net$i.h5" --seed 11 $args >/dev/null 2>&1)
    if ! h5diff "p1/net$i.h5" "p$P/net$i.h5" >diff.txt; then
      echo "FAIL: case $i ($args) on $P ranks differs from 1 rank:"; head -20 diff.txt; exit 1
    fi
  done
done
# the 4-bit case really has an odd number of junctions per some rank boundary
"$PY" - <<'PY'
import h5py
f = h5py.File('p1/net1.h5'); n = len(f['gap_junctions/col']); rp = f['gap_junctions/row_ptr'][:]
bounds = [301 * r // 3 for r in range(4)]
assert any(rp[b] % 2 for b in bounds[1:-1]), "no rank boundary splits a 4-bit byte; the test would be weak"
print("junctions", n, "rank-3 boundaries at junctions", [int(rp[b]) for b in bounds])
PY
# more ranks than cells is refused without leaving a file
if mpirun -np 6 --oversubscribe "$BIN/olive-genconn" -o small.h5 --cells 5 --generator uniform --density 1 2>err.txt; then
  echo "FAIL: 6 ranks for 5 cells accepted"; exit 1; fi
grep -q "cannot be split" err.txt || { echo "FAIL: message"; cat err.txt; exit 1; }
[ ! -e small.h5 ] || { echo "FAIL: output left behind"; exit 1; }
echo "genconn under MPI: identical files for P = 1..4"

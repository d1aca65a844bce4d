#!/usr/bin/env bash
# Results are bit-identical for every rank count and every block split
# (docs/ARCHITECTURE.md): P = 1..4 on an odd cell count, maps built in memory and read
# from olive-disperse (both balance modes), all 19 variables, spikes and the
# final state compared exactly with h5diff.
set -euo pipefail
export OMP_NUM_THREADS=1
"$BIN/olive-genconn" -o net.h5 --cells 301 --generator uniform --density 12 --seed 3 \
    --conductance 0.01:0.06 --conductance-bits 8 --gcal 0.6:0.8 >/dev/null
sim() {  # P OUT [extra args]
  local P=$1 out=$2; shift 2
  mpirun -np "$P" --oversubscribe "$BIN/olive-simulate" net.h5 -o "$out" --steps 600 \
    --pulse 0:5:6:0:150 --pulse 10:12:-3:200:301 --record all --record-precision double "$@" >/dev/null
}
same() {  # A B
  local v
  for v in v_dend q r s ca i_cah g_cal v_soma m h k l n p x_s v_axon m_a h_a x_a; do
    h5diff -q "$1/$v.h5" "$2/$v.h5" /report || { echo "FAIL: $2/$v.h5 differs from $1"; exit 1; }
  done
  h5diff -q "$1/spikes.h5" "$2/spikes.h5" /spikes || { echo "FAIL: $2 spikes differ"; exit 1; }
  h5diff -q "$1/state.h5" "$2/state.h5" /state || { echo "FAIL: $2 state differs"; exit 1; }
}
sim 1 p1
n=$("$PY" -c "import h5py; print(len(h5py.File('p1/spikes.h5')['spikes/io/timestamps']))")
[ "$n" -gt 0 ] || { echo "FAIL: the reference run has no spikes, the comparison would be weak"; exit 1; }
ranks="2 3 4"
[ "${SANITIZED:-0}" = 1 ] && ranks=3   # (the sanitizer pass: one odd split; tests/run.sh)
for P in $ranks; do
  sim "$P" "mem$P"; same p1 "mem$P"
  for bal in cells junctions; do
    "$BIN/olive-disperse" net.h5 --ranks "$P" -o "map$P$bal.h5" --balance "$bal" >/dev/null
    sim "$P" "map$P$bal" --map "map$P$bal.h5"; same p1 "map$P$bal"
  done
done
# the junction-balanced split really differs from the cell split somewhere
"$PY" - <<'PY'
import h5py, numpy as np
a = h5py.File('map3cells.h5')['bounds'][:]; b = h5py.File('map3junctions.h5')['bounds'][:]
assert a[0] == 0 and a[-1] == 301 and b[-1] == 301 and np.all(np.diff(a) > 0) and np.all(np.diff(b) > 0), (a, b)
print('bounds cells', a, 'junctions', b)
PY
# a map for another P or another network is refused, and leaves no output
if mpirun -np 2 --oversubscribe "$BIN/olive-simulate" net.h5 --map map3cells.h5 -o bad --steps 5 2>err.txt; then
  echo "FAIL: a 3-rank map was accepted by 2 ranks"; exit 1; fi
grep -q "made for 3 ranks" err.txt || { echo "FAIL: message"; cat err.txt; exit 1; }
"$BIN/olive-genconn" -o other.h5 --cells 301 --generator uniform --density 12 --seed 4 --force >/dev/null
"$BIN/olive-disperse" other.h5 --ranks 2 -o other-map.h5 >/dev/null
if mpirun -np 2 --oversubscribe "$BIN/olive-simulate" net.h5 --map other-map.h5 -o bad --steps 5 2>err.txt; then
  echo "FAIL: a map of another network was accepted"; exit 1; fi
grep -q "another network" err.txt || { echo "FAIL: message"; cat err.txt; exit 1; }
[ ! -e bad ] && ! ls -d bad.tmp-* 2>/dev/null || { echo "FAIL: partial output left"; exit 1; }
echo "rank invariance: P=1..4, in-memory and disperse maps, identical"

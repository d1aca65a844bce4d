#!/usr/bin/env bash
# olive-simulate --map cross-checks the ranks' lists: what rank r sends to q,
# in order, must be q's halo segment from r. A map whose send list has two
# entries swapped, or one entry replaced by another in-range cell, passes
# every per-rank check; before this check it gave a wrong run with exit 0.
# Each is refused on 2 and 3 ranks, naming the map, the ranks and the cells,
# with no output; the intact map runs and equals the run without a map.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" D="$BIN/olive-disperse" S="$BIN/olive-simulate" A="$BIN/olive-analyze"
"$G" -o net.h5 --cells 120 --generator uniform --density 8 --seed 11 --symmetric >/dev/null
"$S" net.h5 -o nomap --steps 60 --record v_dend >/dev/null
for P in 2 3; do
  "$D" net.h5 --ranks $P -o map$P.h5 >/dev/null
  "$PY" - map$P.h5 <<'EOF'
import sys, shutil, h5py, numpy as np
src = sys.argv[1]
with h5py.File(src, "r") as f:
    off = f["send/offsets"][:]; loc = f["send/local"][:]; counts = f["send/counts"][:]
    print("send entries", len(loc), "rank 0:", off[0], off[1])
# rank 0's first destination segment holds at least two entries
a = off[0]
assert loc[a] != loc[a + 1]
def corrupt(name, fn):
    dst = src.replace(".h5", f"-{name}.h5")
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        d = f["send/local"]; v = d[:]; fn(v); d[...] = v
corrupt("swap", lambda v: v.__setitem__(slice(a, a + 2), v[a:a + 2][::-1].copy()))
# another in-range local cell of rank 0 (one it sends anyway, so every
# per-rank check still holds)
def replace(v):
    v[a] = v[a + 5]
corrupt("replace", replace)
EOF
  mpirun -np $P --oversubscribe "$S" net.h5 --map map$P.h5 -o good$P --steps 60 --record v_dend >/dev/null \
    || fail "np $P: the intact map refused"
  "$A" compare good$P nomap >/dev/null || fail "np $P: the run with the map differs from the one without"
  for kind in swap replace; do
    rc=0
    timeout 60 mpirun -np $P --oversubscribe "$S" net.h5 --map map$P-$kind.h5 -o bad$P$kind --steps 60 \
      >out.txt 2>err.txt || rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat err.txt; fail "np $P $kind: exit $rc"; }
    grep -Eq "map$P-$kind\.h5: the ranks' lists do not match: rank 0's send list to rank 1 has cell [0-9]+ at position [0-9]+, where rank 1's halo has cell [0-9]+" err.txt \
      || { cat err.txt; fail "np $P $kind: message"; }
    [ ! -e bad$P$kind ] && ! compgen -G "bad$P$kind.tmp-*" >/dev/null || fail "np $P $kind: output left behind"
    echo "ok np $P $kind: $(grep -m1 'lists do not match' err.txt)"
  done
done

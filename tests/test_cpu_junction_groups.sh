#!/usr/bin/env bash
# The CPU junction pass's groups (tools/simulate/infoli/junction_groups.c):
# rows taken 8 at a time, their junctions slot by slot, a row shorter than
# its group's longest padded with its own column, rows ordered by degree
# within windows of 256. On a network made for its corners (603 cells: two
# windows and a last group of 3 rows; in-degrees 0 to 70, a third of the
# rows without junctions beside rows with many; 4-bit codes, two a byte,
# and float32 conductances):
#  - RGJ and SGJ against the independent numpy model (tests/ref_model.py via
#    compare_ref.py: every cell's voltages within 1e-9 of their scale over
#    1200 steps, spikes identical);
#  - every row without junctions (some share a group with rows that have
#    junctions, whose padding the group computes for them too): its cell's
#    v_dend is bit for bit that of the same cell in a network without
#    junctions (its current is +0.0);
#  - identical bits on 1, 2 and 3 threads, on 2 and 3 ranks (interior and
#    boundary rows each in their own groups), in single precision on 1 and 3
#    threads, and on every instruction set this CPU runs (OLIVE_SIMD).
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$PY" - <<'PYEOF'
import os, sys
import numpy as np
sys.path.insert(0, os.environ["TESTS"])
import make_network as mk
rng = np.random.default_rng(58)
n = 603
gcal = rng.uniform(0.6, 0.8, n)
junctions = {}
for t in range(n):
    # a third without junctions, the rest 1 to 70 (rows past one round, odd lengths)
    k = 0 if rng.random() < 0.33 else int(rng.integers(1, 71))
    for s in rng.choice(np.delete(np.arange(n), t), size=k, replace=False):
        junctions[(t, int(s))] = float(rng.uniform(0.002, 0.03))
j = [(t, s, w) for (t, s), w in junctions.items()]
for b in (4, 32):
    mk.write_network(f"g{b}.h5", n, j, bits=b, gcal=gcal)
mk.write_network("lone.h5", n, [], bits=32, gcal=gcal)
deg = np.bincount([x[0] for x in j], minlength=n)
# rows without junctions beside rows with them in one group: within a window
# (ordered by degree) the rows with junctions do not fill whole groups
mixed = [w for w in range(0, n, 256) if (deg[w:w + 256] > 0).sum() % 8 != 0]
assert mixed and (deg == 0).sum() > 150 and deg.max() >= 60, (mixed, deg)
np.save("empty_rows.npy", np.flatnonzero(deg == 0))
PYEOF
P=(--pulse 1:25:6:0:300 --pulse 20:40:-3:200:500 --pulse 30:55:5:400:603)
sim() {  # NET OUT [args...]
  local net=$1 out=$2; shift 2
  "$S" "$net" -o "$out" --steps 1200 "${P[@]}" "$@" 2>"$out.log" ||
    { tail -5 "$out.log"; fail "olive-simulate $net -o $out $*: exited with an error"; }
}
same() {  # A B WHAT
  "$BIN/olive-analyze" compare -q "$1" "$2" >cmp.log 2>&1 || { cat cmp.log; fail "$3: $1 and $2 differ"; }
}
R=(--record v_dend,v_soma,v_axon --record-precision double)
for b in 4 32; do
  for gj in rgj sgj; do
    sim "g$b.h5" "o$b-$gj" --gj $gj "${R[@]}"
    "$PY" "$TESTS/compare_ref.py" "g$b.h5" "o$b-$gj" --steps 1200 --gj $gj "${P[@]}" --spikes --min-spikes 30 ||
      fail "g$b.h5 --gj $gj: differs from ref_model.py"
  done
done
# the rows without junctions: +0.0, bit for bit the uncoupled cells
sim lone.h5 olone "${R[@]}"
"$PY" - <<'PYEOF'
import h5py, numpy as np, sys
def v(d):
    with h5py.File(d + "/v_dend.h5", "r") as f:
        return np.asarray(f["report/io/data"][:])
a, b, empty = v("o32-rgj"), v("olone"), np.load("empty_rows.npy")
bad = [int(c) for c in empty if not np.array_equal(a[:, c], b[:, c])]
if bad:
    sys.exit(f"FAIL: cells without junctions {bad[:5]} differ from their uncoupled selves")
full = np.setdiff1d(np.arange(a.shape[1]), empty)
if all(np.array_equal(a[:, c], b[:, c]) for c in full[:20]):
    sys.exit("FAIL: cells with junctions equal their uncoupled selves: a weak comparison")
PYEOF
for t in 2 3; do
  sim g4.h5 "o4-t$t" --gj rgj "${R[@]}" --threads $t
  same o4-rgj "o4-t$t" "$t threads against 1"
done
for np in 2 3; do
  mpirun -np $np --oversubscribe "$S" g4.h5 -o "o4-np$np" --steps 1200 "${P[@]}" --gj rgj "${R[@]}" 2>"np$np.log" ||
    { tail -5 "np$np.log"; fail "mpirun -np $np: olive-simulate exited with an error"; }
  same o4-rgj "o4-np$np" "$np ranks against 1"
done
sim g32.h5 single-t1 --precision single --record v_dend
sim g32.h5 single-t3 --precision single --record v_dend --threads 3
same single-t1 single-t3 "single precision, 3 threads against 1"
sets=(base)
grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && sets+=(avx2)
grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && sets+=(avx512)
for set in "${sets[@]}"; do
  OLIVE_SIMD=$set sim g32.h5 "simd-$set" --gj rgj "${R[@]}"
  same o32-rgj "simd-$set" "OLIVE_SIMD=$set"
done
echo "cpu junction groups ok: RGJ and SGJ at 4 and 32 bits against ref_model.py, an empty row exact," \
     "1-3 threads, 2-3 ranks, sets ${sets[*]} identical"

#!/usr/bin/env bash
# Gap-junction coupling against the independent numpy model (tests/ref_model.py,
# written from MODEL.md), on networks written by tests/make_network.py (not by
# olive-genconn):
#  - 120 cells, asymmetric random junctions, float32 conductances (bits 32),
#    per-cell g_CaL; 150 cells, symmetric, 8-bit quantised conductances, default
#    g_CaL; for --gj rgj, sgj and ngj: v_dend, v_soma, v_axon of every cell over
#    2000 steps (double) within 1e-9 of the variable's scale (see compare_ref.py
#    for why), and the spikes identical (cells and steps);
#  - bits 4, 16 and 0 (constant conductance = offset) with rgj, 1000 steps;
#  - NGJ on a coupled network is bit-identical to the same cells without
#    junctions; RGJ and SGJ really differ from NGJ (and from each other);
#  - --threads 2 gives bit-identical results;
#  - direction: a junction (target 0 <- source 1) moves cell 0 and leaves cell 1
#    exactly as an isolated cell.
# Pulses hit different cell ranges at different times (--pulse S:E:A:FIRST:LAST).
set -euo pipefail
export OMP_NUM_THREADS=1  # 2 threads only where said: tiny runs, loaded machines
fail() { echo "FAIL: $*" >&2; exit 1; }
MK="$PY $TESTS/make_network.py"

$MK n32.h5 --cells 120 --seed 1 --degree 6 --wmin 0.005 --wmax 0.08 --gcal 0.6:0.8 --bits 32
$MK n8.h5 --cells 150 --seed 2 --degree 4 --wmin 0.01 --wmax 0.06 --symmetric --bits 8
$MK n4.h5 --cells 60 --seed 3 --degree 5 --wmin 0.01 --wmax 0.1 --bits 4 --gcal 0.6:0.8
$MK n16.h5 --cells 60 --seed 4 --degree 5 --wmin 0.01 --wmax 0.1 --bits 16
$MK n0.h5 --cells 60 --seed 5 --degree 8 --wmin 0.04 --wmax 0.04 --bits 0
# n32's cells with the same g_CaL but no junctions
"$PY" - <<'EOF'
import h5py, sys
sys.path.insert(0, __import__("os").environ["TESTS"])
import make_network as mk
with h5py.File("n32.h5", "r") as f:
    gcal = f["cells/g_CaL"][:]
    assert len(f["gap_junctions/col"]) > 500, "n32 should have many junctions"
    assert f["gap_junctions/conductance"].dtype == "float32"
with h5py.File("n8.h5", "r") as f:
    assert f["gap_junctions/conductance"].dtype == "uint8"
    assert len(set(f["gap_junctions/conductance"][:])) > 50, "8-bit codes should be varied"
mk.write_network("n32-uncoupled.h5", 120, [], bits=32, gcal=gcal)
EOF

P32=(--pulse 5:30:6:0:40 --pulse 20:22.5:-3:50:70 --pulse 40:65:5:100:120)
P8=(--pulse 2:27:6:10:60 --pulse 50:75:6:90:150 --pulse 10:12:-4:140:150)
sim() {  # NET OUT GJ STEPS [pulses...]
  local net=$1 out=$2 gj=$3 steps=$4; shift 4
  "$BIN/olive-simulate" "$net" -o "$out" --steps "$steps" --gj "$gj" "$@" \
    --record v_dend,v_soma,v_axon --record-precision double 2>/dev/null \
    || fail "olive-simulate $net --gj $gj exited with $?"
}
check() {  # NET OUT GJ STEPS MIN_SPIKES [pulses...]
  local net=$1 out=$2 gj=$3 steps=$4 min=$5; shift 5
  echo "== $net --gj $gj, $steps steps"
  "$PY" "$TESTS/compare_ref.py" "$net" "$out" --steps "$steps" --gj "$gj" "$@" --spikes --min-spikes "$min" \
    || fail "$out: olive-simulate $net --gj $gj differs from ref_model.py"
}

for gj in rgj sgj ngj; do
  sim n32.h5 "o32-$gj" $gj 2000 "${P32[@]}"
  check n32.h5 "o32-$gj" $gj 2000 20 "${P32[@]}"
  sim n8.h5 "o8-$gj" $gj 2000 "${P8[@]}"
  check n8.h5 "o8-$gj" $gj 2000 20 "${P8[@]}"
done
for b in 4 16 0; do
  sim "n$b.h5" "o$b" rgj 1000 --pulse 1:26:6:0:30
  check "n$b.h5" "o$b" rgj 1000 10 --pulse 1:26:6:0:30
done

# NGJ == no junctions at all, bit for bit; the uncoupled run uses the default rgj
sim n32-uncoupled.h5 o32-none rgj 2000 "${P32[@]}"
for v in v_dend v_soma v_axon; do
  h5diff -q "o32-ngj/$v.h5" "o32-none/$v.h5" /report || fail "$v: --gj ngj differs from the uncoupled network"
done
h5diff -q o32-ngj/spikes.h5 o32-none/spikes.h5 /spikes || fail "spikes: --gj ngj differs from the uncoupled network"

# the OpenMP split does not change the results (neighbour sums in stored order)
sim n32.h5 o32-rgj-t2 rgj 2000 "${P32[@]}" --threads 2
for v in v_dend v_soma v_axon; do
  h5diff -q "o32-rgj/$v.h5" "o32-rgj-t2/$v.h5" /report/io/data || fail "$v: --threads 2 differs from 1 thread"
done

# coupling has an effect, and RGJ is not SGJ
"$PY" - <<'EOF'
import h5py, numpy as np
def v(o, var="v_dend"):
    with h5py.File(f"{o}/{var}.h5", "r") as f:
        return f["report/io/data"][:]
for net in ("o32", "o8"):
    r, s, n = v(f"{net}-rgj"), v(f"{net}-sgj"), v(f"{net}-ngj")
    drn, dsn, drs = np.abs(r - n).max(), np.abs(s - n).max(), np.abs(r - s).max()
    print(f"{net}: max |RGJ-NGJ| = {drn:.3f} mV, |SGJ-NGJ| = {dsn:.3f} mV, |RGJ-SGJ| = {drs:.3f} mV")
    assert drn > 1.0, f"{net}: RGJ hardly differs from NGJ ({drn} mV): coupling has no effect"
    assert dsn > 1.0, f"{net}: SGJ hardly differs from NGJ ({dsn} mV)"
    assert drs > 0.01, f"{net}: RGJ equals SGJ ({drs} mV)"
    # unpulsed cells move only through their junctions
    cells_moved = np.sum(np.abs(r - n).max(axis=0) > 1e-3)
    assert cells_moved > len(r[0]) // 2, f"{net}: only {cells_moved} cells feel the coupling"
EOF

# direction: cell 0 receives from cell 1 (pulsed); cell 3 is pulsed and isolated,
# cell 2 is unpulsed and isolated.
"$PY" - <<'EOF'
import sys, os
sys.path.insert(0, os.environ["TESTS"])
import make_network as mk
mk.write_network("dir.h5", 4, [(0, 1, 0.2)], bits=32)
EOF
sim dir.h5 odir rgj 1000 --pulse 5:30:6:1:2 --pulse 5:30:6:3:4
check dir.h5 odir rgj 1000 2 --pulse 5:30:6:1:2 --pulse 5:30:6:3:4
"$PY" - <<'EOF'
import h5py, numpy as np
with h5py.File("odir/v_dend.h5", "r") as f:
    d = f["report/io/data"][:]
assert np.array_equal(d[:, 1], d[:, 3]), "the source of a junction (cell 1) is affected by it"
dev = np.abs(d[:, 0] - d[:, 2]).max()
assert dev > 1.0, f"the target of the junction (cell 0) moves only {dev} mV"
print(f"direction ok: target moved {dev:.2f} mV, source identical to an isolated cell")
EOF
echo "gap junctions: rgj/sgj/ngj, bits 0/4/8/16/32 match ref_model.py; ngj = uncoupled; coupling matters"

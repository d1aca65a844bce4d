#!/usr/bin/env bash
# The MODEL.md reference experiment: one cell, no junctions, 30000 steps,
# I_app = 6 on steps 20000..20498 (--pulse 1000:1024.95:6). V_axon after
# steps 0, 999, 9999, 19999, 20499, 21999, 29999 (report frame k = state after
# k+1 steps) matches the MODEL.md table to 1e-9 relative; the spikes are exactly
# t = 1008.2 and 1432.3 ms (cell 0); state.h5 holds the final state after 30000
# steps. Then all 19 state variables of a 2000-step run with an early pulse (a
# complex spike inside the run) match tests/ref_model.py to 1e-9 of each
# variable's scale (catches errors in variables that the voltages do not show,
# e.g. the unused gate p, or g_CaL), and --time gives the same as --steps.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
"$PY" "$TESTS/make_network.py" cell.h5 --cells 1
"$BIN/olive-simulate" cell.h5 -o ref --steps 30000 --pulse 1000:1024.95:6 \
  --record v_axon --record-precision double || fail "olive-simulate exited with $?"
"$PY" - <<'EOF'
import sys, os, h5py, numpy as np
sys.path.insert(0, os.environ["TESTS"])
from ref_model import REFERENCE, REFERENCE_SPIKES
bad = []
with h5py.File("ref/v_axon.h5", "r") as f:
    d = f["report/io/data"]
    assert d.dtype == np.float64, d.dtype
    assert d.shape == (30000, 1), d.shape
    va = d[:, 0]
    t = f["report/io/mapping/time"][:]
    assert np.allclose(t, [0.05, 1500.05, 0.05], rtol=0, atol=1e-9), f"mapping/time {t}"
for i, ref in REFERENCE.items():
    rel = abs(va[i] - ref) / abs(ref)
    print(f"V_axon after step {i:5d}: {va[i]!r:22} MODEL.md {ref!r:22} relative {rel:.1e}")
    if not rel <= 1e-9:
        bad.append(i)
assert not bad, f"V_axon differs from MODEL.md by more than 1e-9 relative after steps {bad}"
with h5py.File("ref/spikes.h5", "r") as f:
    ts = f["spikes/io/timestamps"][:]
    ids = f["spikes/io/node_ids"][:]
print("spikes:", list(ts), "cells", list(ids))
assert len(ts) == 2 and list(ids) == [0, 0], (ts, ids)
# "exactly": the same step, and the time value (i+1)*dt to within rounding
assert np.all(np.abs(ts - np.array(REFERENCE_SPIKES)) <= 1e-9), f"spike times {ts}, MODEL.md {REFERENCE_SPIKES}"
# the report's upward crossings of 0 mV are the same spikes
up = np.nonzero((va[:-1] < 0) & (va[1:] >= 0))[0] + 2  # frame j = state after j+1 steps
assert list(up) == [20164, 28646], up
with h5py.File("ref/state.h5", "r") as f:
    assert int(f["state"].attrs["step"]) == 30000, f["state"].attrs["step"]
    assert abs(float(f["state"].attrs["time_ms"]) - 1500.0) < 1e-9
    s = f["state/v_axon"][:]
    assert s.dtype == np.float64 and s.shape == (1,) and s[0] == va[-1], (s, va[-1])
    assert f["state/g_cal"][0] == 0.68, "default g_CaL is 0.68"
print("reference cell: MODEL.md table and spike times reproduced")
EOF

# All 19 variables against the independent model, with a spike inside the run.
"$BIN/olive-simulate" cell.h5 -o all --steps 2000 --pulse 10:35:6 \
  --record all --record-precision double 2>/dev/null || fail "olive-simulate --record all exited with $?"
"$PY" "$TESTS/compare_ref.py" cell.h5 all --steps 2000 --pulse 10:35:6 --spikes --min-spikes 1 \
  --vars v_dend,q,r,s,ca,i_cah,g_cal,v_soma,m,h,k,l,n,p,x_s,v_axon,m_a,h_a,x_a \
  || fail "a state variable differs from ref_model.py"
# --time MS is --steps MS/dt
"$BIN/olive-simulate" cell.h5 -o bytime --time 100 --pulse 10:35:6 \
  --record all --record-precision double 2>/dev/null || fail "olive-simulate --time exited with $?"
for v in v_dend ca x_s v_axon; do
  h5diff -q all/$v.h5 bytime/$v.h5 /report/io/data || fail "--time 100 differs from --steps 2000 ($v)"
done
echo "reference cell ok"

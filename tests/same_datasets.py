"""Whether two olive output directories hold the same datasets, bit for bit, in the files named:
    python3 same_datasets.py [--shared] DIR_A DIR_B spikes.h5 state.h5 ...
--shared: only the datasets both files have (the CPU and CUDA engines' state files hold the
events in flight of plastic synapses differently; the cells' variables and the weights are
in both), at least the cells' variables (tests/test_session.sh, scripts/gpu-session-check.sh)."""
import sys, h5py, numpy as np
def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out
args = sys.argv[1:]
shared = args[0] == "--shared"
if shared:
    args = args[1:]
for name in args[2:]:
    a, b = datasets(f"{args[0]}/{name}"), datasets(f"{args[1]}/{name}")
    if shared:
        keep = set(a) & set(b)
        assert name != "state.h5" or {"state/v"} <= keep, (name, sorted(keep))
        a, b = {k: a[k] for k in keep}, {k: b[k] for k in keep}
    assert set(a) == set(b), (name, set(a) ^ set(b))
    # (bit for bit: equal arrays, or the same bytes, which NaNs of one pattern are)
    bad = [k for k in a if not (np.array_equal(a[k], b[k]) or (np.shape(a[k]) == np.shape(b[k]) and
           np.asarray(a[k]).dtype == np.asarray(b[k]).dtype and np.asarray(a[k]).tobytes() == np.asarray(b[k]).tobytes()))]
    assert not bad, (name, bad)
    assert len(a) > 0, name
print("same:", *args)

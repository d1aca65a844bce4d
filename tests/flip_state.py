#!/usr/bin/env python3
"""Byte flips in a state file: each copy of STATE with one byte
changed is given to CMD (its words {state} and {out} replaced by the copy and
an output directory). Every run must either be refused (exit 1..127, the
copy's name in the message) or, when the byte is one no restart reads (an
attribute such as `units`, padding), give exactly REF's outputs: never another
run with exit 0. Bytes inside the datasets' data are always read, so those
copies must all be refused.

Usage: flip_state.py STATE REF NDATA NANY -- CMD...
  NDATA flips at random inside the /state datasets' data, NANY anywhere.
"""
import os, random, subprocess, sys
import h5py, numpy as np

state, ref, ndata, nany = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cmd = sys.argv[sys.argv.index("--") + 1:]
blob = open(state, "rb").read()
spans = []
with h5py.File(state) as f:
    for d in f["state"].values():
        off = d.id.get_offset()   # contiguous: olive writes no chunked state
        assert off is not None, d.name
        spans.append((off, off + d.id.get_storage_size()))
rng = random.Random(31)
picks = [("data", rng.randrange(*rng.choice(spans))) for _ in range(ndata)]
picks += [("any", rng.randrange(len(blob))) for _ in range(nany)]


def outputs(d):
    """Every dataset of every .h5 file of run directory d, by name."""
    got = {}
    for name in sorted(os.listdir(d)):
        with h5py.File(f"{d}/{name}") as f:
            f.visititems(lambda k, o: got.__setitem__(f"{name}/{k}", o[()]) if isinstance(o, h5py.Dataset) else None)
    return got


want = outputs(ref)
refused = same = 0
for i, (where, pos) in enumerate(picks):
    path, out = f"flip{i}.h5", f"flipout{i}"
    b = bytearray(blob)
    b[pos] ^= 1 << rng.randrange(8)
    open(path, "wb").write(b)
    run = [w.replace("{state}", path).replace("{out}", out) for w in cmd]
    p = subprocess.run(run, capture_output=True, text=True, timeout=120)
    if p.returncode == 0:
        assert where != "data", f"{path}: a flip of byte {pos} inside the data was accepted"
        got = outputs(out)
        assert got.keys() == want.keys(), (path, pos)
        for k, v in want.items():
            # provenance strings (the command, the restart file) name the copy
            if v.dtype.kind in "fiub":
                assert np.array_equal(got[k], v), f"{path}: flip of byte {pos} accepted, and {k} differs"
        same += 1
    else:
        assert 0 < p.returncode < 128, f"{path}: exit {p.returncode} (a signal?) for byte {pos}:\n{p.stderr}"
        assert path in p.stderr, f"{path}: refused without naming the file (byte {pos}):\n{p.stderr}"
        assert not os.path.exists(out), f"{path}: refused but {out} left behind"
        refused += 1
    os.remove(path)
print(f"byte flips in {state}: {refused} refused, {same} harmless (same outputs), "
      f"{ndata} of them inside the data (all refused)")

#!/usr/bin/env python3
"""Write an olive CUBA network's synapses and initial potentials as the static
arrays of a Brian2CUDA project built by brian2cuda_build.py NAME:...:file,
so that Brian2CUDA runs olive's very network.

    olive_to_brian2_arrays.py NETWORK.h5 PROJECT_DIR

NETWORK.h5 is an olive-genconn file with populations exc (cells 0..ne-1) and
inh (ne..N-1) and one projection per receptor: ge from exc, gi from inh
(scripts/gpu-bench-brian2cuda.sh makes it). Writes PROJECT_DIR/static_arrays/:
_static_array__array_{exc,inh}_{sources,targets} (int32; sources relative to
their population, as Brian2's Synapses(G[:ne], G) and Synapses(G[ne:], G)
count them) and _static_array__array_cells_v (float64, volts). Needs numpy
and h5py only (the GPU host has them).
"""
import os
import sys

import h5py
import numpy as np


def fail(msg):
    sys.exit("olive_to_brian2_arrays: " + msg)


def main():
    if len(sys.argv) != 3:
        fail("usage: olive_to_brian2_arrays.py NETWORK.h5 PROJECT_DIR")
    path, project = sys.argv[1], sys.argv[2]
    out = os.path.join(project, "static_arrays")
    if not os.path.isdir(out):
        fail(f"{out}: not a directory (a project of brian2cuda_build.py NAME:...:file?)")
    with h5py.File(path, "r") as f:
        pops = f["cells/populations"]
        if sorted(pops) != ["exc", "inh"]:
            fail(f"{path}: expected populations exc and inh, found {sorted(pops)}")
        ne = int(pops["exc"].attrs["count"])
        n = ne + int(pops["inh"].attrs["count"])
        if int(pops["exc"].attrs["first"]) != 0 or int(pops["inh"].attrs["first"]) != ne:
            fail(f"{path}: exc must hold cells 0..ne-1 and inh the rest")
        v0 = np.concatenate([pops[p]["v0"][...] if "v0" in pops[p] else np.full(int(pops[p].attrs["count"]),
                             float(pops[p].attrs.get("v0", -60.0))) for p in ("exc", "inh")])
        (v0 * 1e-3).astype(np.float64).tofile(os.path.join(out, "_static_array__array_cells_v"))
        by_receptor = {}
        for name, g in f["synapses"].items():
            rec = g.attrs["receptor"]
            rec = rec.decode() if isinstance(rec, bytes) else str(rec)
            if rec in by_receptor:
                fail(f"{path}: more than one projection into {rec}")
            by_receptor[rec] = g
        for rec, proj, first in (("ge", "exc", 0), ("gi", "inh", ne)):
            g = by_receptor.get(rec)
            if g is None:
                fail(f"{path}: no projection into {rec}")
            row_ptr = g["row_ptr"][...].astype(np.int64)
            if len(row_ptr) != n + 1:
                fail(f"{path}: {g.name}/row_ptr has {len(row_ptr)} entries, expected {n + 1}")
            if int(row_ptr[-1]) > 2**31 - 1:   # Brian2CUDA counts a Synapses object's synapses in int32
                fail(f"{path}: {g.name} has {int(row_ptr[-1])} synapses, more than Brian2CUDA's 2^31 - 1")
            src = g["col"][...].astype(np.int64) - first
            span = ne if proj == "exc" else n - ne
            if len(src) and (src.min() < 0 or src.max() >= span):
                fail(f"{path}: {g.name} has sources outside population {proj}")
            if "delay" in g or int(g.attrs.get("delay", 0)) != 0 or "weight" in g:
                fail(f"{path}: {g.name}: expected delay 0 and one weight (attributes)")
            src.astype(np.int32).tofile(os.path.join(out, f"_static_array__array_{proj}_sources"))
            del src
            tgt = np.repeat(np.arange(n, dtype=np.int32), np.diff(row_ptr))
            tgt.tofile(os.path.join(out, f"_static_array__array_{proj}_targets"))
            print(f"olive_to_brian2_arrays: {proj}: {len(tgt)} synapses, weight {float(g.attrs['weight'])}")
            del tgt


if __name__ == "__main__":
    main()

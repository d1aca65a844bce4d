#!/usr/bin/python3
"""Write olive network files directly with h5py, independent of olive-genconn.

Layout (docs/FORMAT.md "Network file", common/io/netfile.c):
  root attrs   format = "olive-network" (string), format_version = 1 (int64)
  /cells       attrs count (int64), dims (int64[3]); optional g_CaL float64[count]
  /gap_junctions
               row_ptr int64[count+1], col int32[nnz] (ascending per row),
               conductance by bits: 0 none (w = offset), 4 uint8[(nnz+1)/2] (even e in
               the low nibble), 8 uint8[nnz], 16 uint16[nnz], 32 float32[nnz] (w itself);
               attrs bits (int64), offset, scale (float64): w = offset + code*scale.

As a module:
    junctions = random_junctions(count, seed, degree=8, wmin=0.01, wmax=0.06)
    write_network(path, count, junctions, bits=32, gcal=None, dims=None)
  junctions is a list of (target, source, w): target receives from source.
  write_network returns (row_ptr, col, w_decoded) as numpy arrays, where
  w_decoded is the conductance the file actually encodes (after quantisation).

As a program:
    make_network.py OUT.h5 --cells N [--seed S --degree K] [--bits B] [--gcal A:B]
        [--junction T,S,W ...] [--wmin A --wmax B] [--dims X,Y,Z]
"""
import argparse
import sys

import h5py
import numpy as np


def random_junctions(count, seed, degree=8, wmin=0.01, wmax=0.06, symmetric=False):
    """Random junctions: each cell gets a random number of distinct partners
    (0..2*degree), conductances uniform in [wmin, wmax]."""
    rng = np.random.default_rng(seed)
    junctions = {}
    for t in range(count):
        k = int(rng.integers(0, 2 * degree + 1))
        k = min(k, count - 1)
        others = np.array([c for c in range(count) if c != t])
        for s in rng.choice(others, size=k, replace=False):
            w = float(rng.uniform(wmin, wmax))
            junctions[(t, int(s))] = w
            if symmetric:
                junctions[(int(s), t)] = w
    return [(t, s, w) for (t, s), w in junctions.items()]


def to_csr(count, junctions):
    """(target, source, w) list -> row_ptr int64, col int64, w float64, rows sorted."""
    junctions = sorted(junctions, key=lambda j: (j[0], j[1]))
    row_ptr = np.zeros(count + 1, dtype=np.int64)
    for t, _, _ in junctions:
        row_ptr[t + 1] += 1
    row_ptr = np.cumsum(row_ptr)
    col = np.array([j[1] for j in junctions], dtype=np.int64)
    w = np.array([j[2] for j in junctions], dtype=np.float64)
    return row_ptr, col, w


def encode(w, bits, offset=None, scale=None):
    """Quantise conductances w for the given bits.
    Returns (data or None, offset, scale, decoded w as float64)."""
    nnz = len(w)
    if bits == 0:
        off = float(offset if offset is not None else (w[0] if nnz else 0.04))
        return None, off, 0.0, np.full(nnz, off)
    if bits == 32:
        data = w.astype(np.float32)
        return data, 0.0, 1.0, data.astype(np.float64)
    levels = (1 << bits) - 1
    lo = float(w.min()) if nnz else 0.0
    hi = float(w.max()) if nnz else 1.0
    off = float(offset if offset is not None else lo)
    sc = float(scale if scale is not None else ((hi - off) / levels if hi > off else 1.0))
    codes = np.clip(np.rint((w - off) / sc), 0, levels).astype(np.int64)
    decoded = off + codes.astype(np.float64) * sc
    if bits == 4:
        packed = np.zeros((nnz + 1) // 2, dtype=np.uint8)
        for e, c in enumerate(codes):
            packed[e // 2] |= np.uint8(int(c) << (4 * (e & 1)))
        return packed, off, sc, decoded
    dt = np.uint8 if bits == 8 else np.uint16
    return codes.astype(dt), off, sc, decoded


def write_network(path, count, junctions, bits=32, gcal=None, dims=None,
                  offset=None, scale=None):
    if dims is None:
        dims = (count, 1, 1)
    assert int(np.prod(dims)) == count
    row_ptr, col, w = to_csr(count, junctions)
    data, off, sc, decoded = encode(w, bits, offset, scale)
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "olive-network"
        f.attrs["format_version"] = np.int64(1)
        cells = f.create_group("cells")
        cells.attrs["count"] = np.int64(count)
        cells.attrs["dims"] = np.array(dims, dtype=np.int64)
        if gcal is not None:
            cells.create_dataset("g_CaL", data=np.asarray(gcal, dtype=np.float64))
        gj = f.create_group("gap_junctions")
        gj.create_dataset("row_ptr", data=row_ptr.astype(np.int64))
        gj.create_dataset("col", data=col.astype(np.int32))
        if data is not None:
            gj.create_dataset("conductance", data=data)
        gj.attrs["bits"] = np.int64(bits)
        gj.attrs["offset"] = np.float64(off)
        gj.attrs["scale"] = np.float64(sc)
        gj.attrs["generator"] = "tests/make_network.py"
    return row_ptr, col, decoded


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--cells", type=int, required=True)
    ap.add_argument("--dims", default=None, help="X,Y,Z")
    ap.add_argument("--seed", type=int, default=None, help="random junctions with this numpy seed")
    ap.add_argument("--degree", type=int, default=8)
    ap.add_argument("--wmin", type=float, default=0.01)
    ap.add_argument("--wmax", type=float, default=0.06)
    ap.add_argument("--symmetric", action="store_true")
    ap.add_argument("--junction", action="append", default=[], help="TARGET,SOURCE,W (repeatable)")
    ap.add_argument("--bits", type=int, default=32, choices=[0, 4, 8, 16, 32])
    ap.add_argument("--gcal", default=None, help="A:B uniform per cell (uses the seed) or one value")
    a = ap.parse_args(argv)
    junctions = []
    if a.seed is not None:
        junctions += random_junctions(a.cells, a.seed, a.degree, a.wmin, a.wmax, a.symmetric)
    for j in a.junction:
        t, s, w = j.split(",")
        junctions.append((int(t), int(s), float(w)))
    gcal = None
    if a.gcal:
        if ":" in a.gcal:
            lo, hi = map(float, a.gcal.split(":"))
            gcal = np.random.default_rng(a.seed if a.seed is not None else 0).uniform(lo, hi, a.cells)
        else:
            gcal = np.full(a.cells, float(a.gcal))
    dims = tuple(int(x) for x in a.dims.split(",")) if a.dims else None
    _, col, _ = write_network(a.out, a.cells, junctions, a.bits, gcal, dims)
    print(f"{a.out}: {a.cells} cells, {len(col)} junctions, bits {a.bits}", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Inputs and checks for tests/test_import_export.sh (h5py + numpy, independent
of the C code).

  import_tool.py make PREFIX N SEED      one random network written as PREFIX.edges,
                                         PREFIX.matrix and PREFIX_sonata.h5 (edges in
                                         shuffled order), expectation in PREFIX.npz
  import_tool.py check NET.h5 PREFIX.npz [BITS]
                                         the imported network is the expected one
                                         (exact at bits 32 after float32 rounding;
                                         within scale/2 at 4/8/16)
  import_tool.py same A.h5 B.h5          /cells and /gap_junctions datasets and the
                                         count, dims, bits, offset, scale attributes equal
  import_tool.py layout PREFIX NET.h5    PREFIX_nodes.h5 / PREFIX_edges.h5 follow the
                                         SONATA layout and hold NET.h5's junctions
  import_tool.py malformed DIR           writes the malformed inputs; prints one line
                                         per case: name, format, file, extra args, regex
"""
import sys, os
import numpy as np
import h5py


def make(prefix, n, seed):
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < 4 * n:
        t, s = rng.integers(0, n, 2)
        if t != s:
            pairs.add((int(t), int(s)))
    pairs = sorted(pairs)
    t = np.array([p[0] for p in pairs]); s = np.array([p[1] for p in pairs])
    # Conductances with few digits and some with many (exact through %.17g).
    w = np.round(rng.uniform(0.01, 0.08, len(pairs)), 3)
    w[::7] = rng.uniform(0.01, 0.08, len(w[::7]))
    order = rng.permutation(len(pairs))
    seps = [" ", "\t", ",", " , ", "  "]
    with open(prefix + ".edges", "w") as f:
        f.write("# source target conductance\n\n")
        for k, e in enumerate(order):
            sep = seps[k % len(seps)]
            f.write(f"{s[e]}{sep}{t[e]}{sep}{w[e]!r}" + ("  # a comment\n" if k % 11 == 0 else "\n"))
            if k % 13 == 0:
                f.write("   \n# comment line\n")
    m = np.zeros((n, n))
    m[s, t] = w          # the original InfOli orientation: line = sender, column = receiver
    with open(prefix + ".matrix", "w") as f:
        for i in range(n):
            f.write(" ".join(repr(float(x)) if x else "0" for x in m[i]) + "\n")
    with h5py.File(prefix + "_sonata.h5", "w") as f:
        g = f.create_group("edges/gj")
        g["source_node_id"] = s[order].astype(np.uint64)
        g["target_node_id"] = t[order].astype(np.uint64)
        g["edge_type_id"] = np.zeros(len(order), np.uint32)
        g["edge_group_id"] = np.zeros(len(order), np.uint32)
        # attribute rows stored in reverse, so edge_group_index matters
        g["edge_group_index"] = (len(order) - 1 - np.arange(len(order))).astype(np.uint64)
        g["0/syn_weight"] = w[order][::-1]
    np.savez(prefix + ".npz", n=n, t=t, s=s, w=w)


def read_net(path):
    with h5py.File(path, "r") as f:
        gj = f["gap_junctions"]
        rp, col = gj["row_ptr"][:], gj["col"][:]
        bits, off, scale = int(gj.attrs["bits"]), float(gj.attrs["offset"]), float(gj.attrs["scale"])
        if bits == 0:
            w = np.full(len(col), off)
        elif bits == 4:
            p = gj["conductance"][:]
            c = np.empty(2 * len(p), np.uint8); c[0::2], c[1::2] = p & 15, p >> 4
            w = off + c[:len(col)] * scale
        elif bits in (8, 16):
            w = off + gj["conductance"][:] * scale
        else:
            w = gj["conductance"][:].astype(np.float64)
        return int(f["cells"].attrs["count"]), rp, col, w, bits, off, scale


def check(path, exp, bits=None):
    e = np.load(exp)
    n, rp, col, w, b, off, scale = read_net(path)
    assert n == int(e["n"]), f"{path}: {n} cells, expected {int(e['n'])}"
    if bits is not None:
        assert b == int(bits), f"{path}: bits {b}, expected {bits}"
    rows = np.repeat(np.arange(n), np.diff(rp))
    got = sorted(zip(rows.tolist(), col.tolist()))
    assert got == list(zip(e["t"].tolist(), e["s"].tolist())), f"{path}: junctions differ"
    for i in range(n):
        assert np.all(np.diff(col[rp[i]:rp[i + 1]]) > 0), f"{path}: row {i} not ascending"
    want = e["w"]  # pairs sorted by (t, s) = storage order
    if b == 32:
        assert np.array_equal(w, want.astype(np.float32).astype(np.float64)), f"{path}: bits 32 values differ"
    elif b == 0:
        assert np.all(w == want), f"{path}: bits 0 values differ"
    else:
        err = np.max(np.abs(w - want))
        assert off == want.min() and abs(scale - (want.max() - want.min()) / (2 ** b - 1)) < 1e-15, \
            f"{path}: offset/scale {off}/{scale}"
        assert err <= scale / 2 * (1 + 1e-9), f"{path}: quantisation error {err} > scale/2 = {scale / 2}"
    print(f"ok {path}: {n} cells, {len(col)} junctions, bits {b}")


def same(a, b):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for k in ("count", "dims"):
            assert np.array_equal(fa["cells"].attrs[k], fb["cells"].attrs[k]), f"/cells {k} differs"
        for k in ("bits", "offset", "scale"):
            assert fa["gap_junctions"].attrs[k] == fb["gap_junctions"].attrs[k], \
                f"/gap_junctions {k}: {fa['gap_junctions'].attrs[k]} vs {fb['gap_junctions'].attrs[k]}"
        for grp in ("cells", "gap_junctions"):
            ka, kb = sorted(fa[grp].keys()), sorted(fb[grp].keys())
            assert ka == kb, f"/{grp} datasets {ka} vs {kb}"
            for k in ka:
                da, db = fa[grp][k], fb[grp][k]
                assert da.dtype == db.dtype and np.array_equal(da[:], db[:]), f"/{grp}/{k} differs"
    print(f"ok {a} == {b}")


def layout(prefix, net):
    n, rp, col, w, *_ = read_net(net)
    with h5py.File(prefix + "_nodes.h5", "r") as f:
        assert f.attrs["magic"] == 0x0A7A and list(f.attrs["version"]) == [0, 1]
        p = f["nodes/io"]
        assert p["node_id"].dtype == np.uint64 and np.array_equal(p["node_id"][:], np.arange(n))
        assert p["node_type_id"].shape == (n,) and p["node_group_id"].shape == (n,)
        assert np.array_equal(p["node_group_index"][:], np.arange(n))
        assert p["0/g_CaL"].shape == (n,)
    with h5py.File(prefix + "_edges.h5", "r") as f:
        assert f.attrs["magic"] == 0x0A7A
        p = f["edges/io"]
        for k in ("source_node_id", "target_node_id"):
            assert p[k].dtype == np.uint64, f"{k} dtype {p[k].dtype}"
            pop = p[k].attrs["node_population"]
            assert (pop.decode() if isinstance(pop, bytes) else pop) == "io"
        rows = np.repeat(np.arange(n), np.diff(rp))
        assert np.array_equal(p["target_node_id"][:], rows), "target_node_id"
        assert np.array_equal(p["source_node_id"][:], col), "source_node_id"
        assert p["edge_type_id"].shape == (len(col),)
        assert np.all(p["edge_group_id"][:] == 0)
        assert np.array_equal(p["edge_group_index"][:], np.arange(len(col)))
        assert p["0/conductance"].dtype == np.float64 and np.array_equal(p["0/conductance"][:], w), "conductance"
    print(f"ok {prefix}_*.h5: SONATA layout, {n} nodes, {len(col)} edges")


def malformed(d):
    os.makedirs(d, exist_ok=True)
    cases = []

    def text(name, fmt, content, regex, args=""):
        p = os.path.join(d, name + (".txt" if fmt == "edges" else ".mat"))
        with open(p, "wb") as f:
            f.write(content.encode() if isinstance(content, str) else content)
        cases.append((name, fmt, p, args, regex))

    E = "edges"
    text("bad_number", E, "0 1 0.5\n1 2 abc\n", r"line 2: .*'abc' is not a number")
    text("bad_id", E, "0 1\n# c\n1.5 2\n", r"line 3: .*'1.5' is not a cell id")
    text("missing_field", E, "0 1\n2\n", r"line 2: missing field")
    text("extra_field", E, "0 1 0.1\n1 2 0.1 7\n", r"line 2: extra field '7'")
    text("negative_id", E, "0 1\n\n-3 2\n", r"line 3: cell id -3 is negative")
    text("id_too_large", E, "0 1\n1 2\n2 3\n3 4\n", r"line 3: cell id 3 is out of range: --cells is 3", "--cells 3")
    text("huge_id", E, "0 99999999999\n", r"line 1: cell id 99999999999 is too large")
    text("nan", E, "0 1 0.1\n1 0 nan\n", r"line 2: .*'nan' is not a number")
    text("inf", E, "0 1 0.1\n1 0 1e999\n", r"line 2: conductance 1e999 is not finite")
    text("minus_inf", E, "0 1 -inf\n", r"line 1: conductance -inf is not finite")
    text("negative_w", E, "0 1 0.1\n1 0 -0.5\n", r"line 2: conductance -0.5 is negative")
    text("self", E, "0 1\n2 2\n", r"line 2: self junction")
    text("empty", E, "", r"no junctions")
    text("only_comments", E, "# nothing\n\n  # here\n", r"no junctions")
    text("empty_field", E, "0,,1\n", r"line 1: empty field")
    text("trailing_comma", E, "0 1\n0,2,\n", r"line 2: empty field")
    text("nul_byte", E, b"0 1\n1\x00 2\n", r"line 2: .*not a cell id")
    text("long_field", E, "0 1\n1 " + "9" * 300 + "\n", r"line 2: field .* too long")
    text("binary", E, b"\x89HDF\r\n\x1a\n\x00\x00", r"line 1: ")
    text("duplicate", E, "0 1 0.1\n2 1\n0 1 0.2\n", r"lines 1 and 3: duplicate junction into cell 1 from cell 0")
    M = "matrix"
    text("m_ragged", M, "0 1 0\n1 0\n0 1 0\n", r"line 2: row 1 has 2 entries, expected 3")
    text("m_ragged_long", M, "0 1\n1 0 0\n", r"line 2: row 1 has more than 2 entries")
    text("m_not_square", M, "0 1 0\n1 0 0\n", r"line 2: the matrix is not square: 2 rows of 3 columns")
    text("m_too_many_rows", M, "0 1\n1 0\n0 0\n", r"line 3: more than 2 rows")
    text("m_bad_number", M, "0 1\n\n1 x\n", r"line 3: entry \(1, 1\): 'x' is not a number")
    text("m_nan", M, "0 nan\n1 0\n", r"line 1: entry \(0, 1\): 'nan' is not a number")
    text("m_negative", M, "0 1\n-1 0\n", r"line 2: entry \(1, 0\): conductance -1 is negative")
    text("m_diagonal", M, "0 1\n1 0.5\n", r"line 2: self junction: diagonal entry \(1, 1\)")
    text("m_empty", M, "\n# only a comment\n", r"empty \(no matrix rows\)")
    text("m_cells", M, "0 1\n1 0\n", r"line 1: the first row has 2 entries but --cells is 3", "--cells 3")

    def sonata(name, regex, build, args=""):
        p = os.path.join(d, name + ".h5")
        with h5py.File(p, "w") as f:
            build(f)
        cases.append((name, "sonata", p, args, regex))

    def pop(f, src=(0, 1, 2), tgt=(1, 2, 0), w=(0.1, 0.2, 0.3), name="io", sdt=np.uint64, wdt=np.float64):
        g = f.create_group(f"edges/{name}")
        g["source_node_id"] = np.array(src, sdt)
        g["target_node_id"] = np.array(tgt, sdt)
        if w is not None:
            g["0/conductance"] = np.array(w, wdt)
        return g

    sonata("s_no_edges", r"/edges: missing", lambda f: f.create_group("nodes"))
    sonata("s_no_population", r"/edges: no population", lambda f: f.create_group("edges"))
    sonata("s_wrong_population", r"/edges/other: population missing", lambda f: pop(f), "--import-population other")
    sonata("s_two_populations", r"2 populations", lambda f: (pop(f, name="a"), pop(f, name="b")))
    sonata("s_lengths", r"/edges/io/source_node_id has 3 entries but /edges/io/target_node_id has 2",
           lambda f: pop(f, tgt=(1, 2)))
    sonata("s_float_ids", r"/edges/io/source_node_id: has the wrong type", lambda f: pop(f, sdt=np.float64))
    sonata("s_string_w", r"/edges/io/0/conductance: has the wrong type",
           lambda f: pop(f, w=["a", "b", "c"], wdt=h5py.string_dtype()))
    sonata("s_2d", r"/edges/io/target_node_id: must be one-dimensional",
           lambda f: (f.create_group("edges/io").create_dataset("source_node_id", data=np.arange(4, dtype=np.uint64)),
                      f["edges/io"].create_dataset("target_node_id", data=np.ones((2, 2), np.uint64))))
    sonata("s_missing_target", r"/edges/io/target_node_id: dataset missing",
           lambda f: f.create_group("edges/io").create_dataset("source_node_id", data=np.arange(3, dtype=np.uint64)))
    sonata("s_w_length", r"/edges/io/0/conductance has 2 values for 3 edges", lambda f: pop(f, w=(0.1, 0.2)))
    sonata("s_no_w", r"/edges/io/0/conductance: dataset missing", lambda f: pop(f, w=None))
    sonata("s_attr_missing", r"/edges/io/0/gj: dataset missing", lambda f: pop(f), "--import-attribute gj")
    sonata("s_negative_id", r"/edges/io/target_node_id\[1\] = -2: negative cell id",
           lambda f: pop(f, tgt=(1, -2, 0), sdt=np.int64))
    sonata("s_out_of_range", r"/edges/io/target_node_id\[1\] = 2: cell id out of range", lambda f: pop(f), "--cells 2")
    sonata("s_self", r"edge 1 is a self junction", lambda f: pop(f, tgt=(1, 1, 0)))
    sonata("s_nan", r"/edges/io/0/conductance\[2\] = nan: conductance is not finite",
           lambda f: pop(f, w=(0.1, 0.2, np.nan)))
    sonata("s_negative_w", r"/edges/io/0/conductance\[0\] = -0.1: conductance is negative",
           lambda f: pop(f, w=(-0.1, 0.2, 0.3)))
    sonata("s_group_id", r"/edges/io/edge_group_id\[1\] = 1: only one attribute group",
           lambda f: pop(f).create_dataset("edge_group_id", data=np.array([0, 1, 0], np.uint32)))
    sonata("s_group_index", r"/edges/io/edge_group_index\[2\] = 3: outside",
           lambda f: pop(f).create_dataset("edge_group_index", data=np.array([0, 1, 3], np.uint64)))
    sonata("s_duplicate", r"edges 0 and 2: duplicate junction into cell 1 from cell 0", lambda f: pop(f, tgt=(1, 2, 1), src=(0, 1, 0)))
    p = os.path.join(d, "s_text.h5")
    with open(p, "w") as f:
        f.write("0 1\n")
    cases.append(("s_text", "sonata", p, "", r"not an HDF5 file"))
    cases.append(("s_missing_file", "sonata", os.path.join(d, "nonexistent.h5"), "", r"cannot open"))
    cases.append(("e_missing_file", "edges", os.path.join(d, "nonexistent.txt"), "", r"cannot open"))
    for name, fmt, path, args, regex in cases:
        print("\t".join((name, fmt, path, args or "-", regex)))


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        make(a[0], int(a[1]), int(a[2]))
    elif cmd == "check":
        check(a[0], a[1], a[2] if len(a) > 2 else None)
    elif cmd == "same":
        same(a[0], a[1])
    elif cmd == "layout":
        layout(a[0], a[1])
    elif cmd == "malformed":
        malformed(a[0])
    else:
        sys.exit(f"unknown command {cmd}")

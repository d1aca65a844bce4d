#!/usr/bin/env python3
"""Checks of olive network files for the tests, written independently of the
C code (h5py + numpy only): structure, the statistical laws of the
generators, exact grid neighbourhoods, symmetry, conductance decoding against
a Python re-implementation of Philox4x32-10, and file equality.

Usage: check_network.py CHECK NET.h5 [ARGS...]; exits 1 naming the failure.
Every check validates the structure first."""
import sys

import h5py
import numpy as np

STREAM_CONDUCTANCE, STREAM_GCAL = 3, 4


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def ok(msg):
    print("ok:", msg)


# ---------------------------------------------------------------- loading
class Net:
    def __init__(self, path):
        self.path = path
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") not in ("olive-network", b"olive-network"):
                fail(f"{path}: root attribute format is {f.attrs.get('format')!r}")
            if int(f.attrs["format_version"]) != 1:
                fail(f"{path}: format_version {f.attrs['format_version']}")
            c, g = f["cells"], f["gap_junctions"]
            self.count = int(c.attrs["count"])
            self.dims = [int(x) for x in c.attrs["dims"]]
            self.gcal = c["g_CaL"][...] if "g_CaL" in c else None
            self.gcal_dtype = c["g_CaL"].dtype if "g_CaL" in c else None
            self.row_ptr = g["row_ptr"][...]
            self.col = g["col"][...]
            self.col_dtype = g["col"].dtype
            self.bits = int(g.attrs["bits"])
            self.offset = float(g.attrs["offset"])
            self.scale = float(g.attrs["scale"])
            self.cond = g["conductance"][...] if "conductance" in g else None
            self.cond_dtype = g["conductance"].dtype if "conductance" in g else None
            self.attrs = {k: g.attrs[k] for k in g.attrs}
        self.validate()

    def validate(self):
        p, N, rp, col = self.path, self.count, self.row_ptr, self.col
        if len(self.dims) != 3 or int(np.prod(self.dims)) != N:
            fail(f"{p}: dims {self.dims} do not multiply to count {N}")
        if rp.dtype != np.int64 or len(rp) != N + 1 or rp[0] != 0 or rp[-1] != len(col):
            fail(f"{p}: row_ptr has dtype {rp.dtype}, {len(rp)} entries, ends {rp[0]}..{rp[-1]} (nnz {len(col)})")
        if np.any(np.diff(rp) < 0):
            fail(f"{p}: row_ptr decreases")
        if self.col_dtype != np.int32:
            fail(f"{p}: col dtype {self.col_dtype}")
        if len(col) and (col.min() < 0 or col.max() >= N):
            fail(f"{p}: ids outside [0, {N})")
        self.rows = np.repeat(np.arange(N, dtype=np.int64), np.diff(rp))
        if np.any(self.rows == col):
            fail(f"{p}: self junction in row {self.rows[self.rows == col][0]}")
        # Strictly ascending within a row: every step inside a row increases.
        same_row = self.rows[1:] == self.rows[:-1]
        if np.any(same_row & (col[1:] <= col[:-1])):
            bad = np.nonzero(same_row & (col[1:] <= col[:-1]))[0][0]
            fail(f"{p}: row {self.rows[bad]} not strictly ascending ({col[bad]} then {col[bad + 1]})")
        want = {0: None, 4: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.float32, 64: np.float64}
        if self.bits not in want:
            fail(f"{p}: bits = {self.bits}")
        if self.bits == 0:
            if self.cond is not None:
                fail(f"{p}: bits 0 but a conductance dataset exists")
        else:
            n = (len(col) + 1) // 2 if self.bits == 4 else len(col)
            if self.cond is None or self.cond_dtype != want[self.bits] or len(self.cond) != n:
                fail(f"{p}: conductance dataset {self.cond_dtype} x {None if self.cond is None else len(self.cond)}"
                     f", expected {want[self.bits]} x {n} for bits {self.bits}")
        if self.gcal is not None and (self.gcal_dtype != np.float64 or len(self.gcal) != N):
            fail(f"{p}: g_CaL dataset {self.gcal_dtype} x {len(self.gcal)}")

    def degrees(self):
        return np.diff(self.row_ptr)

    def codes(self):
        """Per-junction codes; 4 bits: junction e in byte e/2, even e low nibble."""
        if self.bits == 4:
            e = np.arange(len(self.col))
            return ((self.cond[e // 2] >> ((e & 1) * 4)) & 15).astype(np.int64)
        return self.cond.astype(np.int64)

    def weights(self):
        if self.bits == 0:
            return np.full(len(self.col), self.offset)
        if self.bits == 32:
            return self.cond.astype(np.float64)
        return self.offset + self.codes() * self.scale

    def coords(self, ids):
        D = self.dims
        ids = np.asarray(ids, dtype=np.int64)
        return ids // (D[1] * D[2]), (ids // D[2]) % D[1], ids % D[2]


# ---------------------------------------------------------------- Philox4x32-10 (Random123)
M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = np.uint64(0xFFFFFFFF)


def philox(seed, a, b, draw, stream):
    """The four 32-bit words of olive_rng4(seed, a, b, draw, stream), vectorised."""
    n = max(np.size(a), np.size(b), np.size(draw), 1)
    c = [np.broadcast_to(np.asarray(x, dtype=np.uint64), (n,)).copy() & MASK for x in (a, b, draw, stream)]
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for r in range(10):
        if r:
            k0, k1 = (k0 + np.uint64(W0)) & MASK, (k1 + np.uint64(W1)) & MASK
        p0, p1 = np.uint64(M0) * c[0], np.uint64(M1) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & MASK]
    return c


def u01(hi, lo):
    x = ((hi << np.uint64(32)) | lo) >> np.uint64(11)
    return (x.astype(np.float64) + 0.5) * (1.0 / 9007199254740992.0)


def self_test_philox():
    # Random123's known-answer vector for philox4x32-10, counter 0, key 0,
    # and one value checked against the C build.
    v = philox(0, 0, 0, 0, 0)
    if [int(x[0]) for x in v] != [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]:
        fail("python Philox does not reproduce Random123's known answer")
    v = philox(0x123456789ABCDEF, 7, 9, 11, 3)
    if [int(x[0]) for x in v] != [0x9DD2DB0A, 0x88585B93, 0x79050ADF, 0xB080D707]:
        fail("python Philox disagrees with olive_rng4")


# ---------------------------------------------------------------- statistics helpers
def chi2_z(obs, exp):
    """Chi-square of observed vs expected counts (bins with expected < 5 pooled
    from the tails inward), as a Wilson-Hilferty z score (about N(0,1))."""
    obs, exp = np.asarray(obs, float), np.asarray(exp, float)
    keep_o, keep_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(obs, exp):
        acc_o += o
        acc_e += e
        if acc_e >= 5:
            keep_o.append(acc_o)
            keep_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 and keep_e:
        keep_o[-1] += acc_o
        keep_e[-1] += acc_e
    o, e = np.array(keep_o), np.array(keep_e)
    chi2 = float(np.sum((o - e) ** 2 / e))
    df = len(o) - 1
    z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / np.sqrt(2 / (9 * df))
    return chi2, df, z


def check_uniform_partners(net, what):
    """Partners uniform over the other cells: the offset (j - i) mod N is
    uniform on 1..N-1, and so is the partner id itself."""
    N = net.count
    if len(net.col) < 1000:
        ok(f"{what}: too few junctions ({len(net.col)}) to test uniformity")
        return
    off = (net.col.astype(np.int64) - net.rows) % N
    # Integer bin edges, so that the expected count is the number of integers
    # in a bin (not its width) times the probability of each.
    edges = np.unique(np.round(np.linspace(1, N, 65)).astype(np.int64))
    obs = np.histogram(off, edges)[0]
    chi2, df, z = chi2_z(obs, np.diff(edges) / (N - 1) * len(off))
    if z > 4.5:
        fail(f"{what}: partner offsets not uniform: chi2 {chi2:.1f} on {df} df (z = {z:.2f})")
    edges = np.unique(np.round(np.linspace(0, N, 65)).astype(np.int64))
    obs = np.histogram(net.col, edges)[0]
    chi2b, dfb, zb = chi2_z(obs, np.diff(edges) / N * len(off))
    if zb > 4.5:
        fail(f"{what}: partner ids not uniform: chi2 {chi2b:.1f} on {dfb} df (z = {zb:.2f})")
    ok(f"{what}: partners uniform (offset chi2 {chi2:.1f}/{df} df, id chi2 {chi2b:.1f}/{dfb} df)")


# ---------------------------------------------------------------- checks
def c_valid(net):
    ok(f"{net.path}: valid ({net.count} cells, {len(net.col)} junctions, bits {net.bits})")


def c_uniform(net, K):
    """Degrees Binomial(N-1, p = K/(N-1)): mean K within 4 standard errors,
    variance K(1-p) within 4 standard errors."""
    K = float(K)
    N = net.count
    p = K / (N - 1)
    deg = net.degrees().astype(float)
    mean, var = deg.mean(), deg.var(ddof=1)
    se_mean = np.sqrt(K * (1 - p) / N)
    bvar = K * (1 - p)
    # Variance of the sample variance: (mu4 - var^2 (N-3)/(N-1)) / N, with
    # mu4 = n p q (1 + 3 (n-2) p q) the binomial's 4th central moment, n = N-1.
    n = N - 1
    mu4 = n * p * (1 - p) * (1 + 3 * (n - 2) * p * (1 - p))
    se_var = np.sqrt((mu4 - bvar ** 2 * (N - 3) / (N - 1)) / N)
    if abs(mean - K) > 4 * se_mean:
        fail(f"uniform: mean degree {mean:.4f}, expected {K} +- {4 * se_mean:.4f} (4 SE)")
    if abs(var - bvar) > 4 * se_var:
        fail(f"uniform: degree variance {var:.4f}, expected Binomial's {bvar:.4f} +- {4 * se_var:.4f}")
    ok(f"uniform: mean degree {mean:.4f} (K = {K}, SE {se_mean:.4f}), variance {var:.3f} (binomial {bvar:.3f})")
    check_uniform_partners(net, "uniform")


def c_fixed(net, K):
    K = int(K)
    deg = net.degrees()
    if np.any(deg != K):
        fail(f"fixed-degree: degrees range {deg.min()}..{deg.max()}, expected exactly {K}")
    ok(f"fixed-degree: every one of {net.count} cells has exactly {K} partners")
    check_uniform_partners(net, "fixed-degree")


def axis_weights(D, sigma):
    d = np.arange(-(D - 1), D, dtype=float)
    return d, np.exp(-d * d / (2 * sigma * sigma))


def c_gaussian1(net, sigma):
    """K = 1: the partner of cell c is exactly the offset o != 0 with c + o
    inside the lattice, with probability ∝ prod_a w(o_a). Per axis a and
    coordinate x, S_a(x) = sum of w(d) over valid d, M_a(x) = sum of w(d) d^2,
    so E[d^2 | c] = sum_a M_a prod_{b!=a} S_b / (prod_a S_a - 1) (the 1 is the
    self offset, weight 1, d^2 = 0). Checks the mean d^2 over all cells
    against the average of these exact expectations (4 SE), and the whole
    distribution of the x offset against its exact law by chi-square."""
    sigma = float(sigma)
    deg = net.degrees()
    if np.any(deg != 1):
        fail("gaussian K=1: some cell does not have exactly 1 partner")
    D = net.dims
    S, Mx = [], []
    for a in range(3):
        d, w = axis_weights(D[a], sigma)
        x = np.arange(D[a])
        valid = (x[:, None] + d[None, :] >= 0) & (x[:, None] + d[None, :] < D[a])
        S.append((valid * w).sum(1))
        Mx.append((valid * w * d * d).sum(1))
    cx, cy, cz = net.coords(np.arange(net.count))
    s = [S[0][cx], S[1][cy], S[2][cz]]
    m = [Mx[0][cx], Mx[1][cy], Mx[2][cz]]
    W = s[0] * s[1] * s[2] - 1
    exp_d2 = (m[0] * s[1] * s[2] + s[0] * m[1] * s[2] + s[0] * s[1] * m[2]) / W
    px, py, pz = net.coords(net.col)
    d2 = (px - cx) ** 2 + (py - cy) ** 2 + (pz - cz) ** 2
    mean, expect = d2.mean(), exp_d2.mean()
    se = d2.std(ddof=1) / np.sqrt(len(d2))
    naive = sigma ** 2 * sum(1 for a in range(3) if D[a] > 1)
    if abs(mean - expect) > 4 * se:
        fail(f"gaussian K=1: mean d^2 {mean:.4f}, exact expectation {expect:.4f} +- {4 * se:.4f} (4 SE)")
    ok(f"gaussian K=1: mean d^2 {mean:.4f} vs exact {expect:.4f} (SE {se:.4f}; untruncated continuum "
       f"value {naive:.1f} shows the boundary matters)")
    # Law of the x offset: P(dx | c) ∝ w(dx) [valid] S_y S_z, minus the self
    # offset's weight 1 at dx = 0.
    d, w = axis_weights(D[0], sigma)
    expc = np.zeros(len(d))
    for x in range(D[0]):
        valid = (x + d >= 0) & (x + d < D[0])
        sel = cx == x
        syz = s[1][sel] * s[2][sel]
        pw = np.outer(syz, w * valid)
        pw[:, D[0] - 1] -= 1.0  # the self offset (dx = 0 column)
        expc += (pw / W[sel][:, None]).sum(0)
    obs = np.bincount(px - cx + D[0] - 1, minlength=len(d))
    chi2, df, z = chi2_z(obs, expc)
    if z > 4.5:
        fail(f"gaussian K=1: x offsets do not follow the discrete gaussian: chi2 {chi2:.1f} on {df} df (z {z:.2f})")
    ok(f"gaussian K=1: x-offset distribution matches the exact law (chi2 {chi2:.1f} on {df} df)")


def c_gaussian(net, K, sigma, reps=2):
    """K > 1: exactly K distinct partners; the law is 'draw offsets from the
    product discrete gaussian, reject outside/self/duplicates, until K'. The
    mean d^2 per row is compared with an independent numpy sampler of that
    law run on the same cells (both are samples: z-test on the row means)."""
    K, sigma = int(K), float(sigma)
    deg = net.degrees()
    if np.any(deg != K):
        fail(f"gaussian: degrees range {deg.min()}..{deg.max()}, expected exactly {K}")
    D = net.dims
    cx, cy, cz = net.coords(net.rows)
    px, py, pz = net.coords(net.col)
    d2 = ((px - cx) ** 2 + (py - cy) ** 2 + (pz - cz) ** 2).astype(float)
    row_mean = np.bincount(net.rows, d2, net.count) / K

    rng = np.random.default_rng(12345)
    tables = []
    for a in range(3):
        d, w = axis_weights(D[a], sigma)
        tables.append((d.astype(np.int64), w / w.sum()))
    ref = []
    for c in range(net.count):
        x0 = np.array(net.coords([c]))[:, 0]
        for _ in range(reps):
            chosen, seen = [], set()
            while len(chosen) < K:
                n = 4 * K + 16
                q = np.stack([x0[a] + rng.choice(tables[a][0], n, p=tables[a][1]) for a in range(3)])
                inside = np.all((q >= 0) & (q < np.array(D)[:, None]), axis=0)
                for o in q[:, inside].T:
                    j = (o[0] * D[1] + o[1]) * D[2] + o[2]
                    if j != c and j not in seen:
                        seen.add(j)
                        chosen.append(float(((o - x0) ** 2).sum()))
                        if len(chosen) == K:
                            break
            ref.append(np.mean(chosen))
    ref = np.array(ref)
    diff = row_mean.mean() - ref.mean()
    se = np.sqrt(row_mean.var(ddof=1) / len(row_mean) + ref.var(ddof=1) / len(ref))
    # The single-draw law (no duplicate rejection) for comparison: rejection of
    # duplicates pushes partners outward, so this is a sensitive check.
    if abs(diff) > 4 * se:
        fail(f"gaussian K={K}: mean d^2 {row_mean.mean():.4f}, reference sampler {ref.mean():.4f} "
             f"(difference {diff:.4f} > 4 SE = {4 * se:.4f})")
    ok(f"gaussian K={K}: exact degree; mean d^2 {row_mean.mean():.4f} vs independent sampler "
       f"{ref.mean():.4f} (SE of difference {se:.4f})")


def c_grid(net, X, Y):
    X, Y = int(X), int(Y)
    if net.dims != [X, Y, 1]:
        fail(f"grid: dims {net.dims}, expected {[X, Y, 1]}")
    for i in range(net.count):
        x, y = divmod(i, Y)
        want = [(x + dx) * Y + (y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if (dx or dy) and 0 <= x + dx < X and 0 <= y + dy < Y]
        got = list(net.col[net.row_ptr[i]:net.row_ptr[i + 1]])
        if got != want:
            fail(f"grid: cell {i} ({x},{y}) has neighbours {got}, expected {want}")
    deg = net.degrees()
    counts = {k: int(np.sum(deg == k)) for k in (3, 5, 8)}
    want = {3: 4, 5: 2 * (X - 2) + 2 * (Y - 2), 8: (X - 2) * (Y - 2)}
    msg = ""
    if X >= 2 and Y >= 2:
        if counts != want or counts[3] + counts[5] + counts[8] != net.count:
            fail(f"grid: degree counts {counts}, expected {want}")
        msg = f", degree counts {counts}"
    if net.bits != 0 or net.offset != 0.04:
        fail(f"grid: conductance bits {net.bits} offset {net.offset}, expected the constant 0.04")
    ok(f"grid {X}x{Y}: exact Moore neighbourhoods{msg}, w = 0.04")


def c_symmetric(net, base=None):
    """A == Aᵀ including the conductances; with base, A == base ∪ baseᵀ."""
    N = net.count
    key = net.rows * N + net.col
    tkey = net.col.astype(np.int64) * N + net.rows
    order = np.argsort(tkey)
    if not np.array_equal(key, tkey[order]):
        fail("symmetric: the structure is not equal to its transpose")
    w = net.weights()
    if not np.array_equal(w, w[order]):
        e = np.nonzero(w != w[order])[0][0]
        fail(f"symmetric: w[{net.rows[e]},{net.col[e]}] = {w[e]} but the mirror has {w[order][e]}")
    msg = f"symmetric: A equals its transpose ({len(key)} junctions, conductances too)"
    if base is not None:
        b = Net(base)
        bkey = b.rows * N + b.col
        union = np.union1d(bkey, b.col.astype(np.int64) * N + b.rows)
        if not np.array_equal(union, key):
            fail(f"symmetric: {len(key)} junctions, but the base network's A ∪ Aᵀ has {len(union)} (or differs)")
        msg += f", and equals A ∪ Aᵀ of {base} ({len(bkey)} -> {len(key)})"
    ok(msg)


def c_conductance(net, A, B, bits, seed, symmetric):
    """Every junction's stored conductance decodes to within scale/2 of the
    value drawn by Philox (receiver, sender) — or (min, max) when symmetric —
    and the codes are exactly round((w-A)/scale)."""
    A, B, bits, seed, symmetric = float(A), float(B), int(bits), int(seed), int(symmetric)
    self_test_philox()
    if net.bits != bits:
        fail(f"conductance: bits {net.bits}, expected {bits}")
    if bits == 0:
        if net.offset != A or net.cond is not None:
            fail(f"conductance: constant {A} expected as offset with no dataset, got offset {net.offset}")
        ok(f"conductance bits 0: constant w = {net.offset}, no dataset")
        return
    r, c = net.rows, net.col.astype(np.int64)
    a, b = (np.minimum(r, c), np.maximum(r, c)) if symmetric else (r, c)
    v = philox(seed, a, b, 0, STREAM_CONDUCTANCE)
    w = A + u01(v[0], v[1]) * (B - A)
    got = net.weights()
    if bits == 64:
        if net.cond.dtype != np.float64 or not np.array_equal(net.cond, w):
            fail("conductance bits 64: stored doubles differ from the drawn w")
        ok(f"conductance bits 64: {len(w)} values equal the drawn w exactly")
        return
    if bits == 32:
        if not np.array_equal(net.cond, w.astype(np.float32)):
            fail("conductance bits 32: stored floats differ from float32(drawn w)")
        err = np.abs(got - w).max()
        ok(f"conductance bits 32: {len(w)} values equal float32(w), largest error {err:.3g}")
        return
    scale = (B - A) / (2 ** bits - 1)
    if net.offset != A or not np.isclose(net.scale, scale, rtol=1e-15, atol=0):
        fail(f"conductance bits {bits}: offset {net.offset} scale {net.scale}, expected {A} {scale}")
    codes = net.codes()
    want = np.clip(np.floor((w - A) / net.scale + 0.5), 0, 2 ** bits - 1).astype(np.int64)
    if not np.array_equal(codes, want):
        e = np.nonzero(codes != want)[0][0]
        fail(f"conductance bits {bits}: junction {e} has code {codes[e]}, expected {want[e]}")
    err = np.abs(got - w).max()
    if err > net.scale / 2 * (1 + 1e-9) or got.min() < A - 1e-12 or got.max() > B + 1e-12:
        fail(f"conductance bits {bits}: largest error {err}, scale/2 = {net.scale / 2}, range {got.min()}..{got.max()}")
    if bits == 4 and len(net.col) % 2 and (net.cond[-1] >> 4) != 0:
        fail("conductance bits 4: the unused high nibble of the last byte is not 0")
    ok(f"conductance bits {bits}: {len(w)} codes exact, decoded within scale/2 = {net.scale / 2:.3g} "
       f"(largest error {err:.3g}), in [{A}, {B}]")


def c_gcal(net, A, B, seed):
    A, B, seed = float(A), float(B), int(seed)
    if A == B == 0.68:
        if net.gcal is not None:
            fail("g_CaL: default 0.68 must not write a dataset")
        ok("g_CaL: default 0.68, no dataset")
        return
    if net.gcal is None:
        fail("g_CaL: dataset missing")
    if A == B:
        want = np.full(net.count, A)
    else:
        self_test_philox()
        v = philox(seed, np.arange(net.count), 0, 0, STREAM_GCAL)
        want = A + u01(v[0], v[1]) * (B - A)
    if not np.array_equal(net.gcal, want):
        fail(f"g_CaL: values differ from the expected draws (first {net.gcal[:3]} vs {want[:3]})")
    ok(f"g_CaL: {net.count} values exactly as drawn, in [{net.gcal.min():.4f}, {net.gcal.max():.4f}]")


def c_attrs(net, *pairs):
    for pair in pairs:
        k, v = pair.split("=", 1)
        got = net.attrs.get(k)
        if isinstance(got, bytes):
            got = got.decode()
        if isinstance(got, str):
            good = v in got if k == "command" else got == v
        else:
            good = float(got) == float(v)
        if not good:
            fail(f"attribute {k} = {got!r}, expected {v!r}")
    ok(f"attributes {', '.join(pairs)}")


def c_same(net, other):
    o = Net(other)
    for name in ("row_ptr", "col", "cond", "gcal"):
        x, y = getattr(net, name), getattr(o, name)
        if (x is None) != (y is None) or (x is not None and (x.dtype != y.dtype or not np.array_equal(x, y))):
            fail(f"{net.path} and {other} differ in {name}")
    if (net.bits, net.offset, net.scale, net.dims) != (o.bits, o.offset, o.scale, o.dims):
        fail(f"{net.path} and {other} differ in bits/offset/scale/dims")
    ok(f"{net.path} and {other} hold identical datasets")


def c_differ(net, other):
    o = Net(other)
    if len(net.col) == len(o.col) and np.array_equal(net.col, o.col):
        fail(f"{net.path} and {other} have identical junctions")
    ok(f"{net.path} and {other} differ ({len(net.col)} vs {len(o.col)} junctions)")


CHECKS = {"valid": c_valid, "uniform": c_uniform, "fixed": c_fixed, "gaussian1": c_gaussian1,
          "gaussian": c_gaussian, "grid": c_grid, "symmetric": c_symmetric, "conductance": c_conductance,
          "gcal": c_gcal, "attrs": c_attrs, "same": c_same, "differ": c_differ}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in CHECKS:
        print(__doc__)
        print("checks:", " ".join(CHECKS))
        sys.exit(2)
    CHECKS[sys.argv[1]](Net(sys.argv[2]), *sys.argv[3:])

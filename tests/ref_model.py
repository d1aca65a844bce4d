#!/usr/bin/python3
"""Independent numpy implementation of the InfOli cell model of /work/shared/MODEL.md.

Written from MODEL.md (not from olive's C code) to validate olive-simulate.
Vectorised over cells; float64 by default, float32 with dtype=np.float32 (every
constant is cast to the working type so the arithmetic stays in that type).

    python3 ref_model.py --selfcheck     one cell vs the MODEL.md reference table
    python3 ref_model.py NET.h5 --steps N [--gj rgj] [--pulse S:E:A[:F:L]]... -o out.npz

As a module:
    net = read_network("net.h5")          # decodes the conductances per the format
    rec, spikes, state = simulate(net, steps, gj="rgj", pulses=[(start_ms, stop_ms, amp, first, last)],
                                  record=("v_axon",), every=1)
    rec["v_axon"]: [frames x cells], frame k = state after (k+1)*every steps
    spikes: list of (time_ms, cell) sorted by time then cell
"""
import argparse
import sys

import numpy as np

DT = 0.05
VARS = ["v_dend", "q", "r", "s", "ca", "i_cah", "g_cal", "v_soma", "m", "h", "k", "l",
        "n", "p", "x_s", "v_axon", "m_a", "h_a", "x_a"]
INIT = {
    "v_dend": -60.0, "q": 0.0337836, "r": 0.0112788, "s": 0.0049291, "ca": 3.7152, "i_cah": 0.5,
    "g_cal": 0.68, "v_soma": -60.0, "m": 1.0127807, "h": 0.3596066, "k": 0.7423159,
    "l": 0.0321349, "n": 0.2369847, "p": 0.2369847, "x_s": 0.1,
    "v_axon": -60.0, "m_a": 0.003596066, "h_a": 0.9, "x_a": 0.2369847,
}

# MODEL.md "Parameters"
C_M = 1.0
G_NA_S, G_KDR_S, G_K_S, G_LS = 150.0, 9.0, 5.0, 0.016
G_K_CA, G_CAH, G_LD, G_H = 35.0, 4.5, 0.016, 0.125
G_NA_A, G_K_A, G_LA = 240.0, 20.0, 0.016
P1, P2, G_INT = 0.25, 0.15, 0.13
V_NA, V_K, V_CA, V_H, V_L = 55.0, -75.0, 120.0, -43.0, 10.0

# The 0/0 points are removable; below this |denominator| use the limit.
SING_EPS = 1e-9


class Network:
    def __init__(self, count, row_ptr, col, w, g_cal=None):
        self.count = int(count)
        self.row_ptr = np.asarray(row_ptr, dtype=np.int64)
        self.col = np.asarray(col, dtype=np.int64)
        self.w = np.asarray(w, dtype=np.float64)
        self.g_cal = None if g_cal is None else np.asarray(g_cal, dtype=np.float64)
        # target cell of each junction
        self.row = np.repeat(np.arange(self.count), np.diff(self.row_ptr))

    @staticmethod
    def uncoupled(count, g_cal=None):
        return Network(count, np.zeros(count + 1, np.int64), [], [], g_cal)


def read_network(path):
    """Read and decode an olive network file (docs/FORMAT.md layout) with h5py."""
    import h5py
    with h5py.File(path, "r") as f:
        count = int(f["cells"].attrs["count"])
        g_cal = f["cells/g_CaL"][:] if "g_CaL" in f["cells"] else None
        gj = f["gap_junctions"]
        row_ptr = gj["row_ptr"][:].astype(np.int64)
        col = gj["col"][:].astype(np.int64)
        nnz = len(col)
        bits = int(gj.attrs["bits"])
        off = float(gj.attrs["offset"])
        sc = float(gj.attrs["scale"])
        if bits == 0:
            w = np.full(nnz, off)
        elif bits == 32:
            w = gj["conductance"][:].astype(np.float32).astype(np.float64)
        else:
            raw = gj["conductance"][:].astype(np.int64)
            if bits == 4:
                e = np.arange(nnz)
                codes = (raw[e // 2] >> (4 * (e & 1))) & 15
            else:
                codes = raw
            w = off + codes.astype(np.float64) * sc
    return Network(count, row_ptr, col, w, g_cal)


def c_round(x):
    """C's round(): half away from zero."""
    return int(np.sign(x) * np.floor(abs(x) + 0.5))


def pulse_current(pulses, count, steps, dtype=np.float64):
    """I_app per step as a function: pulses = [(start_ms, stop_ms, amp, first, last)];
    amp applies on steps round(start/dt) <= i < round(stop/dt) to cells first <= id < last.
    Overlapping pulses add up."""
    spans = []
    for p in pulses:
        start, stop, amp = p[0], p[1], p[2]
        first = p[3] if len(p) > 3 and p[3] is not None else 0
        last = p[4] if len(p) > 4 and p[4] is not None else count
        spans.append((c_round(start / DT), c_round(stop / DT), float(amp), int(first), int(last)))

    zero = np.zeros(count, dtype=dtype)

    def at(i):
        cur = None
        for a, b, amp, f, l in spans:
            if a <= i < b:
                if cur is None:
                    cur = zero.copy()
                cur[f:l] += dtype(amp)
        return zero if cur is None else cur
    return at


class Model:
    def __init__(self, net, gj="rgj", dtype=np.float64):
        assert gj in ("rgj", "sgj", "ngj")
        self.net, self.gj, self.t = net, gj, dtype
        c = lambda v: dtype(v)  # noqa: E731
        self.c = c
        self.w = net.w.astype(dtype)
        self.S = {}
        for v in VARS:
            self.S[v] = np.full(net.count, INIT[v], dtype=dtype)
        if net.g_cal is not None:
            self.S["g_cal"] = net.g_cal.astype(dtype)

    def gap_current(self, Vd):
        net, c = self.net, self.c
        if self.gj == "ngj" or len(net.col) == 0:
            return np.zeros_like(Vd)
        V = Vd[net.row] - Vd[net.col]
        if self.gj == "rgj":
            f = self.w * (c(0.8) * np.exp(-(V * V) / c(100.0)) + c(0.2)) * V
        else:
            f = self.w * V
        # sum per receiving cell in stored order (np.add.at is unbuffered, sequential)
        out = np.zeros_like(Vd)
        np.add.at(out, net.row, f)
        return out

    def step(self, I_app):
        c, S = self.c, self.S
        dt = c(DT)
        one = c(1.0)
        Vd, Vs, Va = S["v_dend"], S["v_soma"], S["v_axon"]
        N = {}

        # ---- dendrite ----
        q_inf = one / (one + np.exp((Vd + c(80)) / c(4)))
        tau_q = one / (np.exp(c(-0.086) * Vd - c(14.6)) + np.exp(c(0.070) * Vd - c(1.87)))
        N["q"] = S["q"] + dt * (q_inf - S["q"]) / tau_q

        a_r = c(1.7) / (one + np.exp(-(Vd - c(5)) / c(13.9)))
        u = Vd + c(8.5)
        den = np.exp(u / c(5)) - one
        small = np.abs(den) < c(SING_EPS)
        b_r = np.where(small, c(0.1), c(0.02) * u / np.where(small, one, den))
        r_inf = a_r / (a_r + b_r)
        tau_r = c(5) / (a_r + b_r)
        N["r"] = S["r"] + dt * (r_inf - S["r"]) / tau_r

        a_s = np.minimum(c(0.00002) * S["ca"], c(0.01))
        b_s = c(0.015)
        s_inf = a_s / (a_s + b_s)
        tau_s = one / (a_s + b_s)
        N["s"] = S["s"] + dt * (s_inf - S["s"]) / tau_s

        N["ca"] = S["ca"] + dt * (c(-3) * S["i_cah"] - c(0.075) * S["ca"])

        I_c = self.gap_current(Vd)
        I_sd = c(G_INT / (1 - P1)) * (Vd - Vs)
        I_CaH = c(G_CAH) * N["r"] * N["r"] * (Vd - c(V_CA))
        I_KCa = c(G_K_CA) * N["s"] * (Vd - c(V_K))
        I_ld = c(G_LD) * (Vd - c(V_L))
        I_h = c(G_H) * N["q"] * (Vd - c(V_H))
        N["v_dend"] = Vd + dt * (-(I_CaH + I_sd + I_ld + I_KCa + I_c + I_h) + I_app) / c(C_M)
        N["i_cah"] = I_CaH

        # ---- soma ----
        k_inf = one / (one + np.exp(-(Vs + c(61)) / c(4.2)))
        N["k"] = S["k"] + dt * (k_inf - S["k"]) / one
        l_inf = one / (one + np.exp((Vs + c(85.5)) / c(8.5)))
        tau_l = c(20) * np.exp((Vs + c(160)) / c(30)) / (one + np.exp((Vs + c(84)) / c(7.3))) + c(35)
        N["l"] = S["l"] + dt * (l_inf - S["l"]) / tau_l
        N["m"] = one / (one + np.exp((c(-30) - Vs) / c(5.5)))
        h_inf = one / (one + np.exp((c(-70) - Vs) / c(-5.8)))
        tau_h = c(3) * np.exp((c(-40) - Vs) / c(33))
        N["h"] = S["h"] + dt * (h_inf - S["h"]) / tau_h
        n_inf = one / (one + np.exp((c(-3) - Vs) / c(10)))
        p_inf = one / (one + np.exp((c(-51) - Vs) / c(-12)))
        tau_n = c(5) + c(47) * np.exp(-(c(-50) - Vs) / c(900))
        N["n"] = S["n"] + dt * (n_inf - S["n"]) / tau_n
        N["p"] = S["p"] + dt * (p_inf - S["p"]) / tau_n
        a_x, b_x = self.ax_bx(Vs)
        N["x_s"] = S["x_s"] + dt * (a_x / (a_x + b_x) - S["x_s"]) * (a_x + b_x)

        gcal = S["g_cal"]
        I_ds = c(G_INT / P1) * (Vs - Vd)
        k3 = N["k"] * N["k"] * N["k"]
        I_CaL = gcal * k3 * N["l"] * (Vs - c(V_CA))
        m3 = N["m"] * N["m"] * N["m"]
        I_Na = c(G_NA_S) * m3 * N["h"] * (Vs - c(V_NA))
        I_ls = c(G_LS) * (Vs - c(V_L))
        n2 = N["n"] * N["n"]
        I_Kdr = c(G_KDR_S) * n2 * n2 * (Vs - c(V_K))
        x2 = N["x_s"] * N["x_s"]
        I_K = c(G_K_S) * x2 * x2 * (Vs - c(V_K))
        I_as = c(G_INT / (1 - P2)) * (Vs - Va)
        N["v_soma"] = Vs + dt * (-(I_CaL + I_ds + I_as + I_Na + I_ls + I_Kdr + I_K)) / c(C_M)

        # ---- axon ----
        N["m_a"] = one / (one + np.exp((c(-30) - Va) / c(5.5)))
        h_inf_a = one / (one + np.exp((c(-60) - Va) / c(-5.8)))
        tau_ha = c(1.5) * np.exp((c(-40) - Va) / c(33))
        N["h_a"] = S["h_a"] + dt * (h_inf_a - S["h_a"]) / tau_ha
        a_xa, b_xa = self.ax_bx(Va)
        N["x_a"] = S["x_a"] + dt * (a_xa / (a_xa + b_xa) - S["x_a"]) * (a_xa + b_xa)
        ma3 = N["m_a"] * N["m_a"] * N["m_a"]
        I_Na_a = c(G_NA_A) * ma3 * N["h_a"] * (Va - c(V_NA))
        I_la = c(G_LA) * (Va - c(V_L))
        I_sa = c(G_INT / P2) * (Va - Vs)
        xa2 = N["x_a"] * N["x_a"]
        I_K_a = c(G_K_A) * xa2 * xa2 * (Va - c(V_K))
        N["v_axon"] = Va + dt * (-(I_K_a + I_sa + I_la + I_Na_a)) / c(C_M)

        N["g_cal"] = gcal
        for v in VARS:
            S[v] = N[v].astype(self.t, copy=False)

    def ax_bx(self, V):
        c, one = self.c, self.c(1.0)
        u = V + c(25)
        den = one - np.exp(-u / c(10))
        small = np.abs(den) < c(SING_EPS)
        a = np.where(small, c(1.3), c(0.13) * u / np.where(small, one, den))
        b = c(1.69) * np.exp(c(-0.0125) * (V + c(35)))
        return a, b


def simulate(net, steps, gj="rgj", pulses=(), record=("v_axon",), every=1,
             dtype=np.float64, threshold=0.0):
    """Run `steps` steps. Returns (rec, spikes, state): rec[var] is [frames x cells]
    with frame k the state after (k+1)*every steps; spikes [(t_ms, cell)] sorted by
    time then cell, a spike being V_axon(step i) < threshold <= V_axon(step i+1)
    at t = (i+1)*dt; state the final state dict."""
    model = Model(net, gj, dtype)
    iapp = pulse_current(pulses, net.count, steps, dtype)
    frames = steps // every
    rec = {v: np.empty((frames, net.count), dtype=dtype) for v in record}
    spikes = []
    thr = dtype(threshold)
    with np.errstate(over="ignore"):
        for i in range(steps):
            va_old = model.S["v_axon"]
            model.step(iapp(i))
            va = model.S["v_axon"]
            for cell in np.nonzero((va_old < thr) & (thr <= va))[0]:
                spikes.append(((i + 1) * DT, int(cell)))
            if (i + 1) % every == 0 and (i + 1) // every <= frames:
                k = (i + 1) // every - 1
                for v in record:
                    rec[v][k] = model.S[v]
    spikes.sort()
    return rec, spikes, model.S


# MODEL.md reference table: one cell, no junctions, --pulse 1000:1024.95:6
REFERENCE = {
    0: -59.97596717300331,
    999: -57.34294623487715,
    9999: -58.60539352361001,
    19999: -61.39377556550244,
    20499: -30.646129274248413,
    21999: -70.39699563440563,
    29999: -63.83102456263628,
}
REFERENCE_SPIKES = [1008.2, 1432.3]


def selfcheck():
    net = Network.uncoupled(1)
    rec, spikes, _ = simulate(net, 30000, pulses=[(1000, 1024.95, 6)])
    va = rec["v_axon"][:, 0]
    worst = 0.0
    for i, ref in REFERENCE.items():
        rel = abs(va[i] - ref) / abs(ref)
        worst = max(worst, rel)
        print(f"step {i:6d}: V_axon = {va[i]!r:24} ref {ref!r:24} rel {rel:.2e}")
    times = [round(t, 6) for t, _ in spikes]
    print("spikes:", times, "ref", REFERENCE_SPIKES)
    ok = worst <= 1e-9 and times == REFERENCE_SPIKES
    print("selfcheck", "OK" if ok else "FAILED", f"(worst relative error {worst:.2e})")
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("net", nargs="?")
    ap.add_argument("--selfcheck", action="store_true")
    ap.add_argument("--steps", type=int)
    ap.add_argument("--gj", default="rgj")
    ap.add_argument("--pulse", action="append", default=[])
    ap.add_argument("--record", default="v_axon")
    ap.add_argument("--record-every", type=int, default=1)
    ap.add_argument("--single", action="store_true")
    ap.add_argument("-o", "--output")
    a = ap.parse_args(argv)
    if a.selfcheck:
        sys.exit(0 if selfcheck() else 1)
    net = read_network(a.net)
    pulses = []
    for p in a.pulse:
        f = p.split(":")
        pulses.append((float(f[0]), float(f[1]), float(f[2]),
                       int(f[3]) if len(f) > 3 else None, int(f[4]) if len(f) > 4 else None))
    rec, spikes, _ = simulate(net, a.steps, a.gj, pulses, a.record.split(","), a.record_every,
                              np.float32 if a.single else np.float64)
    np.savez(a.output, spikes=np.array(spikes).reshape(-1, 2), **rec)


if __name__ == "__main__":
    main()

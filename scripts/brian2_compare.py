#!/usr/bin/env python3
"""Run an olive spiking network file in Brian2 (cpp_standalone) and compare
the spike trains with olive-simulate's output.

    brian2_compare.py NET.h5 OLIVE_OUTDIR --time MS [--method exact|euler|exponential_euler]
                      [--identical-ms MS] [--threads N] [--build DIR] [--json FILE]

Brian2 reads the same file: the same populations and parameters, the same
synapses (weights, delays, receptors), the same initial potentials and the
same integration method. Brian2 labels the state after its k-th update with
t = k dt; olive labels it (k + 1) dt (the end of the step), so Brian2's times
are shifted by one dt before comparing.

Checks (exit 1 when one fails):
  * the spike trains are identical up to --identical-ms (default 200 ms);
  * over the whole run, the per-cell rates and the CVs of the inter-spike
    intervals are statistically the same (two-sample Kolmogorov-Smirnov,
    p > 0.01) and the mean rates agree within 5 standard errors.
"""
import argparse
import json
import os
import sys
import time

import h5py
import numpy as np


def read_network(path):
    net = {}
    with h5py.File(path, "r") as f:
        cells = f["cells"]
        net["count"] = int(cells.attrs["count"])
        net["model"] = cells.attrs["model"].decode() if isinstance(cells.attrs["model"], bytes) else str(cells.attrs["model"])
        pops = []
        for name, g in cells["populations"].items():
            p = {"name": name, "first": int(g.attrs["first"]), "count": int(g.attrs["count"]), "params": {}}
            for k, v in g.attrs.items():
                if k not in ("model", "first", "count"):
                    p["params"][k] = np.full(p["count"], float(v))
            for k, d in g.items():
                p["params"][k] = d[:].astype(float)
            pops.append(p)
        net["pops"] = sorted(pops, key=lambda p: p["first"])
        syn = f["synapses"]
        net["dt"] = float(syn.attrs["dt"])
        projs = []
        for name, g in syn.items():
            row_ptr = g["row_ptr"][:]
            col = g["col"][:].astype(np.int64)
            tgt = np.repeat(np.arange(net["count"]), np.diff(row_ptr))
            n = len(col)
            w = g["weight"][:] if "weight" in g else np.full(n, float(g.attrs["weight"]))
            d = g["delay"][:].astype(np.int64) if "delay" in g else np.full(n, int(g.attrs["delay"]))
            rec = g.attrs["receptor"]
            rec = rec.decode() if isinstance(rec, bytes) else str(rec)
            projs.append({"name": name, "src": col, "tgt": tgt, "w": w, "d": d, "receptor": rec})
        net["projs"] = projs
    return net


def param(net, name):
    """Per-cell values of a parameter over the whole network."""
    out = np.empty(net["count"])
    for p in net["pops"]:
        out[p["first"]:p["first"] + p["count"]] = p["params"][name]
    return out


def run_brian(net, time_ms, method, threads, build):
    t_start = time.time()
    import brian2 as b2
    from brian2 import ms, mV, nS, pF, pA
    b2.set_device("cpp_standalone", directory=build, build_on_run=False)
    b2.prefs.devices.cpp_standalone.openmp_threads = threads
    b2.defaultclock.dt = net["dt"] * ms
    N = net["count"]
    if net["model"] == "lif_cuba":
        eqs = """
        dv/dt = (ge + gi + I_e - (v - E_L)) / tau_m : volt (unless refractory)
        dge/dt = -ge / tau_e : volt
        dgi/dt = -gi / tau_i : volt
        E_L : volt (constant)
        I_e : volt (constant)
        V_th : volt (constant)
        V_reset : volt (constant)
        tau_m : second (constant)
        tau_e : second (constant)
        tau_i : second (constant)
        t_ref : second (constant)
        """
        wunit = mV
    else:
        eqs = """
        dv/dt = (g_L * (E_L - v) + ge * (E_e - v) + gi * (E_i - v) + I_e) / C : volt (unless refractory)
        dge/dt = -ge / tau_e : siemens
        dgi/dt = -gi / tau_i : siemens
        E_L : volt (constant)
        E_e : volt (constant)
        E_i : volt (constant)
        I_e : amp (constant)
        C : farad (constant)
        g_L : siemens (constant)
        V_th : volt (constant)
        V_reset : volt (constant)
        tau_e : second (constant)
        tau_i : second (constant)
        t_ref : second (constant)
        """
        wunit = nS
    G = b2.NeuronGroup(N, eqs, threshold="v > V_th", reset="v = V_reset", refractory="t_ref", method=method)
    units = {"E_L": mV, "V_th": mV, "V_reset": mV, "v0": mV, "E_e": mV, "E_i": mV, "tau_m": ms, "tau_e": ms,
             "tau_i": ms, "t_ref": ms, "C": pF, "g_L": nS, "I_e": mV if net["model"] == "lif_cuba" else pA}
    for name in net["pops"][0]["params"]:
        if name == "v0":
            G.v = param(net, "v0") * mV
        else:
            setattr(G, name, param(net, name) * units[name])
    syns = []
    for p in net["projs"]:
        S = b2.Synapses(G, G, "w : " + ("volt" if wunit is mV else "siemens"), on_pre=p["receptor"] + " += w",
                        name="proj_" + p["name"])
        S.connect(i=p["src"], j=p["tgt"])
        S.w = p["w"] * wunit
        S.delay = p["d"] * net["dt"] * ms
        syns.append(S)
    mon = b2.SpikeMonitor(G)
    b2.Network(G, mon, *syns).run(time_ms * ms)
    b2.device.build(directory=build, compile=True, run=True, debug=False)
    wall = time.time() - t_start   # objects, code generation, compilation and the run
    run_s = float(getattr(b2.device, "_last_run_time", float("nan")))
    # Brian2's t = k dt is olive's (k + 1) dt
    steps = np.rint(np.asarray(mon.t / ms) / net["dt"]).astype(np.int64) + 1
    return steps, np.asarray(mon.i, dtype=np.int64), wall, run_s


def read_olive(outdir, dt):
    """Every population's spikes (one SONATA population each, node ids local) with the network's cell ids."""
    t, n = [], []
    with h5py.File(os.path.join(outdir, "spikes.h5"), "r") as f:
        for g in f["spikes"].values():
            t.append(g["timestamps"][:])
            n.append(g["node_ids"][:].astype(np.int64) + int(g.attrs.get("first_cell", 0)))
    return np.rint(np.concatenate(t) / dt).astype(np.int64), np.concatenate(n)


def canonical(steps, ids):
    order = np.lexsort((ids, steps))
    return steps[order], ids[order]


def per_cell_stats(steps, ids, N, dt, time_ms):
    counts = np.bincount(ids, minlength=N)
    rates = counts / (time_ms * 1e-3)
    cvs = []
    order = np.lexsort((steps, ids))
    s, i = steps[order], ids[order]
    bounds = np.searchsorted(i, np.arange(N + 1))
    for c in range(N):
        t = s[bounds[c]:bounds[c + 1]] * dt
        if len(t) >= 3:
            isi = np.diff(t)
            cvs.append(isi.std() / isi.mean())
    return rates, np.array(cvs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("net")
    ap.add_argument("olive_out")
    ap.add_argument("--time", type=float, required=True, help="ms, as olive-simulate --time")
    ap.add_argument("--method", default=None)
    ap.add_argument("--identical-ms", type=float, default=200.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--build", default="build/brian2-compare")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    net = read_network(a.net)
    method = a.method or ("exact" if net["model"] == "lif_cuba" else "exponential_euler")
    dt = net["dt"]
    b_steps, b_ids, wall, run_s = run_brian(net, a.time, method, a.threads, a.build)
    o_steps, o_ids = read_olive(a.olive_out, dt)
    b_steps, b_ids = canonical(b_steps, b_ids)
    o_steps, o_ids = canonical(o_steps, o_ids)
    limit = int(round(a.identical_ms / dt))
    bs, os_ = b_steps <= limit, o_steps <= limit
    same_prefix = np.array_equal(b_steps[bs], o_steps[os_]) and np.array_equal(b_ids[bs], o_ids[os_])
    # the first time at which the two trains differ (None: identical throughout)
    n = min(len(b_steps), len(o_steps))
    diff = np.nonzero((b_steps[:n] != o_steps[:n]) | (b_ids[:n] != o_ids[:n]))[0]
    if len(diff):
        first_diff_ms = float(min(b_steps[diff[0]], o_steps[diff[0]]) * dt)
    elif len(b_steps) != len(o_steps):
        first_diff_ms = float((b_steps if len(b_steps) > n else o_steps)[n] * dt)
    else:
        first_diff_ms = None
    N = net["count"]
    br, bcv = per_cell_stats(b_steps, b_ids, N, dt, a.time)
    orr, ocv = per_cell_stats(o_steps, o_ids, N, dt, a.time)
    from scipy.stats import ks_2samp
    ks_rate = ks_2samp(br, orr).pvalue
    ks_cv = ks_2samp(bcv, ocv).pvalue if len(bcv) > 5 and len(ocv) > 5 else 1.0
    se = np.sqrt(br.var() / N + orr.var() / N) or 1e-12
    z = abs(br.mean() - orr.mean()) / se
    res = {
        "network": a.net, "model": net["model"], "method": method, "cells": N, "time_ms": a.time, "dt_ms": dt,
        "brian2_spikes": int(len(b_steps)), "olive_spikes": int(len(o_steps)),
        "identical_ms": a.identical_ms, "identical_prefix": bool(same_prefix),
        "first_difference_ms": first_diff_ms,
        "brian2_mean_rate_hz": float(br.mean()), "olive_mean_rate_hz": float(orr.mean()), "rate_z": float(z),
        "brian2_mean_cv": float(bcv.mean()) if len(bcv) else None, "olive_mean_cv": float(ocv.mean()) if len(ocv) else None,
        "ks_rates_p": float(ks_rate), "ks_cv_p": float(ks_cv), "brian2_wall_s": wall, "brian2_run_s": run_s,
    }
    ok = same_prefix and ks_rate > 0.01 and ks_cv > 0.01 and z < 5
    res["pass"] = bool(ok)
    print(json.dumps(res, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""olive's multi-compartment cells against NEURON (issue 19).

    neuron_cable_compare.py CELL OLIVE_TRACE [--tol MV] [--json FILE]

Builds CELL (ball_stick or branched: the cells of tests/unit/test_cable.c)
in NEURON (PyPI neuron, pinned by tests/peer_venv.sh) with the same sections,
mechanisms (hh.mod with usetable_hh = 0, so its rates come from the formulas,
as olive's; pas), IClamp, celsius, v_init -65 mV, dt 0.025 ms, 100 ms, fixed
step (secondorder 0), records v at the probes every step and compares with
OLIVE_TRACE (written by `test_cable trace CELL FILE`). Exit 1 when a probe
differs by more than --tol (default 1e-6 mV) at any step.
"""
import argparse
import json
import sys

import numpy as np


def build(h, name):
    secs, probes = {}, []
    if name == "ball_stick":
        soma = h.Section(name="soma"); soma.L = soma.diam = 20; soma.insert("hh")
        dend = h.Section(name="dend"); dend.L = 200; dend.diam = 1; dend.nseg = 21; dend.Ra = 100
        dend.insert("pas"); dend.g_pas = .001; dend.e_pas = -65
        dend.connect(soma(1), 0)
        secs = {"soma": soma, "dend": dend}
        celsius, clamp = 6.3, (5, 50, .2)
        probes = [soma(.5), dend(.5), dend(1)]
    elif name == "branched":
        soma = h.Section(name="soma"); soma.L = soma.diam = 15; soma.insert("hh")
        d1 = h.Section(name="dend1"); d1.L = 150; d1.diam = 2; d1.nseg = 15; d1.Ra = 120
        d1.insert("hh"); d1.insert("pas"); d1.gnabar_hh = .03; d1.g_pas = .0002; d1.e_pas = -65
        d1.connect(soma(1), 0)
        d2 = h.Section(name="dend2"); d2.L = 100; d2.diam = 1; d2.nseg = 9; d2.Ra = 120
        d2.insert("pas"); d2.g_pas = .0005; d2.e_pas = -65
        d2.connect(d1(1), 0)
        d3 = h.Section(name="dend3"); d3.L = 80; d3.diam = .8; d3.nseg = 7; d3.Ra = 120
        d3.insert("pas"); d3.g_pas = .0005; d3.e_pas = -65
        d3.connect(d1(1), 0)
        ax = h.Section(name="axon"); ax.L = 300; ax.diam = .5; ax.nseg = 31; ax.Ra = 100; ax.insert("hh")
        ax.connect(soma(0), 0)
        secs = {"soma": soma, "dend1": d1, "dend2": d2, "dend3": d3, "axon": ax}
        celsius, clamp = 16, (2, 80, .3)
        probes = [soma(.5), d1(.5), d2(1), d3(.3), ax(.9)]
    else:
        sys.exit("unknown cell %s" % name)
    return secs, probes, celsius, clamp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cell")
    ap.add_argument("olive_trace")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--json")
    a = ap.parse_args()
    from neuron import h
    h.load_file("stdrun.hoc")
    secs, probes, celsius, (delay, dur, amp) = build(h, a.cell)
    h.usetable_hh = 0
    h.celsius = celsius
    h.secondorder = 0
    stim = h.IClamp(secs["soma"](.5))
    stim.delay, stim.dur, stim.amp = delay, dur, amp
    h.dt = .025
    recs = [h.Vector().record(p._ref_v) for p in probes]
    tv = h.Vector().record(h._ref_t)
    h.finitialize(-65)
    while h.t < 100 - h.dt / 2:
        h.fadvance()
    nrn = np.column_stack([np.array(tv)] + [np.array(r) for r in recs])
    olive = np.loadtxt(a.olive_trace)
    if olive.shape != nrn.shape:
        sys.exit("shapes differ: olive %s, NEURON %s" % (olive.shape, nrn.shape))
    tdiff = float(np.max(np.abs(olive[:, 0] - nrn[:, 0])))
    diffs = np.max(np.abs(olive[:, 1:] - nrn[:, 1:]), axis=0)
    names = ["%s(%g)" % (p.sec.name(), p.x) for p in probes]
    spikes = int(np.sum((nrn[1:, 1] > 0) & (nrn[:-1, 1] <= 0)))
    for nm, d in zip(names, diffs):
        print("%-12s max |olive - NEURON| = %.3g mV" % (nm, d))
    print("%s: %d steps, %d soma spikes in NEURON, time columns differ by %.3g ms" % (a.cell, len(nrn) - 1, spikes, tdiff))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cell": a.cell, "max_diff_mV": dict(zip(names, map(float, diffs))), "soma_spikes": spikes,
                       "steps": len(nrn) - 1}, f, indent=1)
    ok = bool(np.all(diffs <= a.tol)) and tdiff < 1e-9 and spikes > 0
    print("PASS" if ok else "FAIL", "(tolerance %g mV)" % a.tol)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

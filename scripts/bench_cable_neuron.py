#!/usr/bin/env python3
"""NEURON's time for the cells of olive-cablebench.

    bench_cable_neuron.py --cells N [--steps 1000] [--threads T] [--usetable 0|1]
                          [--expect-v0 V --expect-vlast V]

The same ball-and-stick cells as tools/bench/cablebench.cu (hh soma 20 x 20
um; passive dendrite 200 x 1 um, nseg 21, Ra 100; an IClamp at soma(0.5)
from 1 ms of 0.1 + 0.2 (c mod 1000) / 1000 nA; an ExpSyn at dend(0.5)),
dt 0.025 ms, 6.3 C, fixed step; times the fadvance loop with T threads
(ParallelContext.nthread). With --usetable 1 (NEURON's default rate
tables, as olive's default) and --expect-*, the soma potentials of the
first and last cells must equal olive's within 1e-6 mV. Prints one line "neuron CELLS STEPS
SECONDS CELL_STEPS_PER_S".
"""
import argparse
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, required=True)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--usetable", type=int, default=0)
    ap.add_argument("--expect-v0", type=float)
    ap.add_argument("--expect-vlast", type=float)
    a = ap.parse_args()
    from neuron import h
    cells = []
    for c in range(a.cells):
        soma = h.Section(name="soma%d" % c); soma.L = soma.diam = 20; soma.insert("hh")
        dend = h.Section(name="dend%d" % c); dend.L = 200; dend.diam = 1; dend.nseg = 21; dend.Ra = 100
        dend.insert("pas"); dend.g_pas = .001; dend.e_pas = -65
        dend.connect(soma(1), 0)
        st = h.IClamp(soma(.5)); st.delay, st.dur, st.amp = 1, 1e9, .1 + .2 * (c % 1000) / 1000
        syn = h.ExpSyn(dend(.5)); syn.tau, syn.e = 2, 0
        cells.append((soma, dend, st, syn))
    h.usetable_hh = a.usetable
    h.celsius = 6.3
    h.secondorder = 0
    h.dt = .025
    pc = h.ParallelContext()
    pc.nthread(a.threads)
    h.finitialize(-65)
    t0 = time.perf_counter()
    for _ in range(a.steps):
        h.fadvance()
    sec = time.perf_counter() - t0
    print("neuron %d %d %.4f %.4g" % (a.cells, a.steps, sec, a.cells * a.steps / sec))
    ok = True
    for want, cell, tag in ((a.expect_v0, cells[0], "first"), (a.expect_vlast, cells[-1], "last")):
        if want is not None:
            got = cell[0](.5).v
            print("# %s cell: soma v NEURON %.12f, olive %.12f, difference %.3g mV" % (tag, got, want, abs(got - want)))
            ok &= abs(got - want) <= 1e-6
    pc.nthread(1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A network of ball-and-stick cells in NEURON 9 and in olive:
the same cells, synapses, clamps and steps, timed, and the spikes compared.

    bench_cable_net.py --bin BUILD/bin [--cells 2000] [--k 10] [--ms 200] [--threads 2]

The network of scripts/neuron_cable_compare.py `pipeline`, scaled: CELLS
hh_cable cells (hh soma 20 x 20 um, passive dendrite 200 x 1 um, nseg 5,
Ra 100), K random sources per cell, ExpSyn weights uniform 2-12 nS at
dend(0.5), delays 1-5 ms in 0.5 ms steps, NetCon threshold 10 mV, a tenth of
the cells clamped with 0.25 nA from 1 + (c mod 10) ms; dt 0.025 ms, 6.3 C,
hh.mod with NEURON's default rate tables (usetable_hh 1, as olive's default). NEURON runs its
fixed-step loop with --threads threads (ParallelContext.nthread); olive runs
olive-genconn --import-synapses and olive-simulate with 1 and --threads
OpenMP threads. Prints one line per run (seconds of the simulation loop,
cell-steps/s, spikes) and whether the spike lists are identical. Run with the
python of the venv of tests/peer_venv.sh.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import neuron_cable_compare as ncc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--cells", type=int, default=2000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--ms", type=float, default=200)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    n, conns = ncc.net_conns(a.cells, a.k)
    driven = [c for c in range(n) if c % 10 == 0]
    steps = int(round(a.ms / .025))
    from neuron import h
    h.load_file("stdrun.hoc")
    cells = []
    for c in range(n):
        soma = h.Section(name="soma%d" % c); soma.L = soma.diam = 20; soma.insert("hh")
        dend = h.Section(name="dend%d" % c); dend.L = 200; dend.diam = 1; dend.nseg = 5; dend.Ra = 100
        dend.insert("pas"); dend.g_pas = .001; dend.e_pas = -65
        dend.connect(soma(1), 0)
        syn = h.ExpSyn(dend(.5)); syn.tau = 2; syn.e = 0
        cells.append((soma, dend, syn))
    stims = []
    for c in driven:
        st = h.IClamp(cells[c][0](.5)); st.delay, st.dur, st.amp = 1 + c % 10, 1e9, .25
        stims.append(st)
    tv, iv, ncs = h.Vector(), h.Vector(), []
    for c in range(n):
        nc = h.NetCon(cells[c][0](.5)._ref_v, None, sec=cells[c][0]); nc.threshold = 10
        nc.record(tv, iv, c)
        ncs.append(nc)
    for src, tgt, w, d in conns:
        nc = h.NetCon(cells[src][0](.5)._ref_v, cells[tgt][2], sec=cells[src][0])
        nc.threshold, nc.weight[0], nc.delay = 10, w, d
        ncs.append(nc)
    pc = h.ParallelContext()
    pc.nthread(a.threads)
    h.celsius = 6.3
    h.secondorder = 0
    h.dt = .025
    h.finitialize(-65)
    t0 = time.perf_counter()
    while h.t < a.ms - h.dt / 2:
        h.fadvance()
    tn = time.perf_counter() - t0
    nrn = sorted(zip(np.array(tv), np.array(iv).astype(int)))
    print("# %d hh_cable cells x %d synapses, %d steps of 0.025 ms, %s" % (n, len(conns), steps, time.strftime("%F")))
    print("%-28s %10s %14s %9s" % ("run", "loop-s", "cell-steps/s", "spikes"))
    print("%-28s %10.3f %14.4g %9d" % ("NEURON 9, %d thread(s)" % a.threads, tn, n * steps / tn, len(nrn)))
    # olive: the same network through the pipeline (neuron_cable_compare's import)
    tmp = tempfile.mkdtemp()
    net = ncc.olive_network(a.bin, n, conns, tmp, ["--model", "hh_cable"])
    import h5py
    same_all = True
    for T in sorted({1, a.threads}):
        od = os.path.join(tmp, "run%d" % T)
        args = [os.path.join(a.bin, "olive-simulate"), net, "-o", od, "--time", str(a.ms), "--record", "none", "-v"]
        # a pulse per driven cell (the clamp starts at 1 + c mod 10 ms)
        pl = []
        for c in driven:
            pl += ["--pulse", "%g:%g:0.25:%d:%d" % (1 + c % 10, a.ms + 1, c, c + 1)]
        env = dict(os.environ, OMP_NUM_THREADS=str(T))
        r = subprocess.run(args + pl, check=True, capture_output=True, text=True, env=env)
        m = re.search(r"exchange ([0-9.]+) s, compute ([0-9.]+) s", r.stderr + r.stdout)
        loop = float(m.group(1)) + float(m.group(2)) if m else float("nan")
        with h5py.File(os.path.join(od, "spikes.h5"), "r") as f:
            ol = sorted((t, n + int(g.attrs.get("first_cell", 0)))   # one group per population, ids local
                        for g in f["spikes"].values()
                        for t, n in zip(g["timestamps"][:].tolist(), g["node_ids"][:].astype(int).tolist()))
        # NEURON detects a crossing at the start of the next step: one at the
        # very end of the run (t = --ms) is olive's only
        ol = [x for x in ol if x[0] < a.ms - 1e-9]
        same, dmax = ncc.same_spikes(ol, nrn)
        same_all &= same
        print("%-28s %10.3f %14.4g %9d" % ("olive, %d thread(s)" % T, loop, n * steps / loop, len(ol)))
    print("# spikes identical to NEURON's: %s" % same_all)
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main())

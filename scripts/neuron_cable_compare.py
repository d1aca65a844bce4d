#!/usr/bin/env python3
"""olive's multi-compartment cells against NEURON.

    neuron_cable_compare.py CELL OLIVE_TRACE [--tol MV] [--formula] [--json FILE]
    neuron_cable_compare.py net|net2 TEST_CABLE_BINARY [--json FILE]
    neuron_cable_compare.py pipeline BINDIR [--json FILE]
    neuron_cable_compare.py pipeline_swc:FILE.swc BINDIR [--json FILE]

Builds CELL (ball_stick or branched: the cells of tests/unit/test_cable.c)
in NEURON (PyPI neuron, pinned by tests/peer_venv.sh) with the same sections,
mechanisms (hh.mod with NEURON's default rate tables, usetable_hh = 1, or
with --formula usetable_hh = 0: its rates from the formulas; pas), IClamp,
celsius, v_init -65 mV, dt 0.025 ms, 100 ms, fixed step (secondorder 0),
records v at the probes every step and compares with OLIVE_TRACE (written by
`test_cable trace CELL FILE [formula]`). Exit 1 when a probe differs by
more than --tol (default 1e-9 mV) at any step.

(A single SWC cell: scripts/neuron_swc_compare.py.)

net: 100 ball-and-stick cells (hh soma, passive 5-segment dendrite with an
ExpSyn, tau 2 ms, e 0 mV, at its middle), each receiving 10 connections from
random other cells (weights uniform in [0.002, 0.012] uS, delays 1-5 ms in
0.5 ms steps; seed 1), cells 0-9 driven by a 0.25 nA IClamp from 1 + id ms;
NetCon threshold 10 mV at the soma. The connections go to a file that
`test_cable net` reads; the two spike lists (time, cell) must be identical
(times within 1e-9 ms). pipeline: the same network through olive's
programs (hh_cable cells, the connections as a SONATA edges file read by
olive-genconn --import-synapses, olive-simulate on 1, 2 and 3 ranks): the
same spikes as NEURON's and on every rank count. pipeline_swc: 40 cells of
an SWC file (hh_swc, --morphology; segments of at most 20 um), in NEURON
read by its Import3d into a Python object per cell, with the ExpSyn on
section 1 (in Import3d's order, olive's), 8 driven. net2: the same with an Exp2Syn (tau1 0.5 ms,
tau2 3 ms) instead of the ExpSyn.
"""
import argparse
import json
import os
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


def net_conns(n=100, k=10):
    """The 100-cell network: 10 sources per cell, weights 2-12 nS, delays 1-5 ms."""
    rng = np.random.default_rng(1)
    conns = []
    for tgt in range(n):
        for src in rng.choice([c for c in range(n) if c != tgt], size=k, replace=False):
            conns.append((int(src), tgt, float(rng.uniform(.002, .012)), float(rng.integers(2, 11)) * .5))
    return n, conns


def run_neuron_net(h, cells, conns, driven, amp):
    """NEURON's fixed-step run of cells [(soma, synapse)]: IClamps of amp nA
    into the first `driven` somata from 1 + c ms for 100 ms, NetCons at the
    soma (threshold 10 mV) onto the synapses (run_neuron)."""
    return run_neuron(h, [c[0] for c in cells], [10] * len(cells),
                      [(src, cells[tgt][1], w, d) for src, tgt, w, d in conns], driven_clamps(driven, amp))


def driven_clamps(driven, amp):
    """The clamps of the nets: amp nA into cell c < driven from 1 + c ms for 100 ms."""
    return [(c, 1 + c, 100, amp) for c in range(driven)]


def run_neuron(h, somas, thresholds, edges, clamps, celsius=6.3, v_init=-65):
    """NEURON's fixed-step run: IClamps (cell, delay, dur, amp nA) into the
    somata's middles, a NetCon from each soma(0.5)'s v (threshold: its
    cell's) recording its spikes and one per edge (source cell, target point
    process, weight, delay ms), 100 ms at dt 0.025 ms (secondorder 0; hh.mod's
    rates as h.usetable_hh says); the spikes (time, cell), sorted."""
    stims = []
    for c, delay, dur, amp in clamps:
        st = h.IClamp(somas[c](.5)); st.delay, st.dur, st.amp = delay, dur, amp
        stims.append(st)
    tv, iv, ncs = h.Vector(), h.Vector(), []
    for c in range(len(somas)):
        nc = h.NetCon(somas[c](.5)._ref_v, None, sec=somas[c]); nc.threshold = thresholds[c]
        nc.record(tv, iv, c)
        ncs.append(nc)
    for src, syn, w, d in edges:
        nc = h.NetCon(somas[src](.5)._ref_v, syn, sec=somas[src])
        nc.threshold, nc.weight[0], nc.delay = thresholds[src], w, d
        ncs.append(nc)
    h.celsius = celsius
    h.secondorder = 0
    h.dt = .025
    h.finitialize(v_init)
    while h.t < 100 - h.dt / 2:
        h.fadvance()
    return sorted(zip(np.array(tv), np.array(iv).astype(int)))


def neuron_net(h, n, conns, exp2):
    """NEURON's spikes of the network: (time, cell), sorted."""
    cells = []
    for c in range(n):
        soma = h.Section(name="soma%d" % c); soma.L = soma.diam = 20; soma.insert("hh")
        dend = h.Section(name="dend%d" % c); dend.L = 200; dend.diam = 1; dend.nseg = 5; dend.Ra = 100
        dend.insert("pas"); dend.g_pas = .001; dend.e_pas = -65
        dend.connect(soma(1), 0)
        if exp2:
            syn = h.Exp2Syn(dend(.5)); syn.tau1, syn.tau2, syn.e = .5, 3, 0
        else:
            syn = h.ExpSyn(dend(.5)); syn.tau = 2; syn.e = 0
        cells.append((soma, dend, syn))
    return run_neuron_net(h, [(c[0], c[2]) for c in cells], conns, 10, .25)


def same_spikes(olive, nrn):
    same = len(olive) == len(nrn) and all(a[1] == b[1] and abs(a[0] - b[0]) < 1e-9 for a, b in zip(olive, nrn))
    dmax = max((abs(a[0] - b[0]) for a, b in zip(olive, nrn)), default=0)
    return same, dmax


def neuron_swc_net(h, swc, n, conns, syn_sec, driven, amp):
    """NEURON's spikes of a network of SWC cells (each read by Import3d into
    its own Python object, segments of at most 20 um), an ExpSyn (tau 2 ms)
    at secs[syn_sec](0.5)."""
    from neuron_swc_compare import load

    class Cell:
        pass
    cells = []
    for c in range(n):
        secs = load(h, swc, False, Cell())
        syn = h.ExpSyn(secs[syn_sec](.5)); syn.tau = 2; syn.e = 0
        cells.append((secs[0], syn, secs))   # (the sections live as long as a reference does)
    return run_neuron_net(h, [(c[0], c[1]) for c in cells], conns, driven, amp)


def olive_pipeline(bindir, n, conns, tmp, ranks):
    return olive_pipeline_model(bindir, n, conns, tmp, ranks, ["--model", "hh_cable"], 10, 0.25)


def olive_network(bindir, n, conns, tmp, model_args):
    """The connections as a SONATA edges file, read by olive-genconn
    --import-synapses into an olive network of n cells (model_args: --model
    and its options); returns the network file's path."""
    import subprocess
    import h5py
    edges = os.path.join(tmp, "edges.h5")
    with h5py.File(edges, "w") as f:
        g = f.create_group("edges/net")
        g["source_node_id"] = np.array([c[0] for c in conns], dtype=np.uint64)
        g["target_node_id"] = np.array([c[1] for c in conns], dtype=np.uint64)
        g["edge_type_id"] = np.zeros(len(conns), dtype=np.int64)
        g["0/syn_weight"] = np.array([c[2] for c in conns])
        g["0/delay"] = np.array([c[3] for c in conns])
    types = os.path.join(tmp, "edge_types.csv")
    with open(types, "w") as f:
        f.write("edge_type_id receptor projection\n0 ge dend_expsyn\n")
    net = os.path.join(tmp, "net.h5")
    subprocess.run([os.path.join(bindir, "olive-genconn"), "-o", net] + model_args + ["--cells", str(n),
                    "--import-synapses", edges, "--import-edge-types", types, "--dt", "0.025", "-q", "--force"], check=True)
    return net


def olive_pipeline_model(bindir, n, conns, tmp, ranks, model_args, driven, amp):
    """The same network through olive's programs (olive_network), then
    olive-simulate on each rank count with the clamps as --pulse."""
    net = olive_network(bindir, n, conns, tmp, model_args)
    return olive_runs(bindir, net, tmp, ranks, driven_clamps(driven, amp))


def olive_runs(bindir, net, tmp, ranks, clamps):
    """olive-simulate of net for 100 ms on each rank count in ranks (one
    OpenMP thread per rank under mpirun), the clamps (cell, delay, dur, amp)
    as --pulse; {ranks: the spikes (time, cell), sorted}."""
    import subprocess
    import h5py
    pulses = []
    for c, delay, dur, amp in clamps:
        pulses += ["--pulse", "%g:%g:%g:%d:%d" % (delay, delay + dur, amp, c, c + 1)]
    out = {}
    for p in ranks:
        od = os.path.join(tmp, "run%d" % p)
        cmd = [os.path.join(bindir, "olive-simulate"), net, "-o", od, "--time", "100", "--force", "-q"] + pulses
        env = None
        if p > 1:
            cmd = ["mpirun", "-np", str(p), "--oversubscribe"] + cmd
            env = dict(os.environ, OMP_NUM_THREADS="1")
        subprocess.run(cmd, check=True, env=env)
        with h5py.File(os.path.join(od, "spikes.h5"), "r") as f:
            # one group per population, node ids local to it (first_cell: its network offset)
            out[p] = sorted((t, int(g.attrs.get("first_cell", 0)) + int(n))
                            for g in f["spikes"].values()
                            for t, n in zip(g["timestamps"][:].tolist(), g["node_ids"][:].tolist()))
    return out


def run_net(h, binary, json_path, exp2=False, pipeline=False, swc=None):
    import tempfile
    tmp = tempfile.mkdtemp()
    if swc:   # 40 SWC cells, 8 sources each, the synapse on section 1, 8 driven cells
        n, conns = net_conns(40, 8)
        nrn = neuron_swc_net(h, swc, n, conns, 1, 8, 0.5)
        runs = olive_pipeline_model(binary, n, conns, tmp, [1, 2], ["--model", "hh_swc", "--morphology", swc,
                                    "--param", "syn_sec=1"], 8, 0.5)
        olive = runs[1]
        ranks_same = all(runs[p] == runs[1] for p in runs)
        n_driven = 8
    else:
        n, conns = net_conns()
        nrn = neuron_net(h, n, conns, exp2)
        n_driven = 10
    if swc:
        pass
    elif pipeline:
        runs = olive_pipeline(binary, n, conns, tmp, [1, 2, 3])
        olive = runs[1]
        ranks_same = all(runs[p] == runs[1] for p in runs)
    else:
        import subprocess
        cpath, opath = os.path.join(tmp, "conns.txt"), os.path.join(tmp, "olive_spikes.txt")
        with open(cpath, "w") as f:
            for src, tgt, w, d in conns:
                f.write("%d %d %.17g %.17g\n" % (src, tgt, w, d))
        subprocess.run([binary, "net2" if exp2 else "net", cpath, opath], check=True)
        ol = np.loadtxt(opath, ndmin=2)
        olive = sorted(zip(ol[:, 0], ol[:, 1].astype(int)))
        ranks_same = True
    same, dmax = same_spikes(olive, nrn)
    cells_fired = len(set(c for _, c in nrn))
    label = "swc pipeline (hh_swc cells of %s, olive-simulate on 1, 2 ranks)" % swc if swc else \
        "pipeline (olive-genconn, olive-simulate on 1, 2, 3 ranks)" if pipeline else \
        "net2 (Exp2Syn)" if exp2 else "net (ExpSyn)"
    print("%s: NEURON %d spikes from %d cells (%d undriven), olive %d spikes; identical: %s (max time difference %.3g ms)%s"
          % (label, len(nrn), cells_fired, len(set(c for _, c in nrn if c >= n_driven)), len(olive), same, dmax,
             "; the same on every rank count: %s" % ranks_same if pipeline or swc else ""))
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"neuron_spikes": len(nrn), "olive_spikes": len(olive), "identical": same,
                       "cells_fired": cells_fired, "max_time_diff_ms": dmax, "rank_invariant": ranks_same}, f, indent=1)
    ok = same and ranks_same and len(set(c for _, c in nrn if c >= n_driven)) > 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cell")
    ap.add_argument("olive_trace")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--formula", action="store_true", help="hh.mod's rates from its formulas (usetable_hh = 0)")
    ap.add_argument("--json")
    a = ap.parse_args()
    from neuron import h
    h.load_file("stdrun.hoc")
    if a.cell in ("net", "net2", "pipeline"):   # olive_trace: test_cable, or for pipeline the bin directory
        return run_net(h, a.olive_trace, a.json, a.cell == "net2", a.cell == "pipeline")
    if a.cell.startswith("pipeline_swc:"):   # pipeline_swc:FILE.swc BINDIR
        return run_net(h, a.olive_trace, a.json, swc=a.cell[len("pipeline_swc:"):])
    secs, probes, celsius, (delay, dur, amp) = build(h, a.cell)
    if a.formula:
        h.usetable_hh = 0
    elif h.usetable_hh != 1:
        sys.exit("NEURON's usetable_hh is %g, not its default 1" % h.usetable_hh)
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
    print("%s (hh rates from %s): %d steps, %d soma spikes in NEURON, time columns differ by %.3g ms"
          % (a.cell, "formulas" if a.formula else "tables", len(nrn) - 1, spikes, tdiff))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cell": a.cell, "max_diff_mV": dict(zip(names, map(float, diffs))), "soma_spikes": spikes,
                       "steps": len(nrn) - 1}, f, indent=1)
    ok = bool(np.all(diffs <= a.tol)) and tdiff < 1e-9 and spikes > 0
    print("PASS" if ok else "FAIL", "(tolerance %g mV)" % a.tol)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A recurrent network of one of PyNN's standard adaptive cell types, written in
PyNN and run on olive (pyNN.olive) or, unchanged, on any PyNN backend:

    python3 examples/pynn/standard_cells.py izhikevich
    python3 examples/pynn/standard_cells.py eif_exp --simulator nest
    python3 examples/pynn/standard_cells.py eif_alpha --time 500 --spikes out.npz

izhikevich: 400 Izhikevich cells (320 regular spiking, a=0.02 d=8; 80 fast
spiking, a=0.1 d=2; Izhikevich 2003's types), weights in mV. eif_exp, eif_alpha:
400 EIF_cond_exp_isfa_ista or EIF_cond_alpha_isfa_ista cells (AdEx: 320 with
adaptation b=0.08 nA, 80 with none), weights in uS. Each cell gets a constant
current drawn per cell and input from 100 spike sources (20 Hz each, times on
the 0.1 ms grid, drawn by the script: the same for every backend); connections
with probability 0.1 from PyNN's NumpyRNG, delay 1 ms. Records the spikes, and v
and the adaptation variable (u or w) of the first 5 cells. Prints the spike
counts of the two groups.

pyNN.olive runs these types as NESTML models of its own (python/olive/pynn/nestml),
built by olive-model build on first use (the nestml package) and then taken from
the model cache.
"""

import argparse
import importlib

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cells", choices=("izhikevich", "eif_exp", "eif_alpha"))
    ap.add_argument("--time", type=float, default=1000.0, help="simulated time, ms (default 1000)")
    ap.add_argument("--simulator", default="olive", help="PyNN backend (default olive)")
    ap.add_argument("--seed", type=int, default=2003, help="connectivity, inputs and currents")
    ap.add_argument("--spikes", help="write the spikes and traces here (.npz)")
    ap.add_argument("--uncoupled", action="store_true", help="the inputs only, no connections among the cells")
    args = ap.parse_args()

    if args.simulator == "olive":
        import olive.pynn
        olive.pynn.install_shim()
    sim = importlib.import_module(f"pyNN.{args.simulator}")
    extra = {"nest": {"spike_precision": "on_grid"}}.get(args.simulator, {})
    sim.setup(timestep=0.1, min_delay=1.0, **extra)

    draw = np.random.default_rng(args.seed)
    n_exc, n_inh, n_in = 320, 80, 100
    if args.cells == "izhikevich":
        exc = sim.Population(n_exc, sim.Izhikevich(a=0.02, b=0.2, c=-65.0, d=8.0,
                                                   i_offset=draw.uniform(0.0, 0.004, n_exc)), label="exc")
        inh = sim.Population(n_inh, sim.Izhikevich(a=0.1, b=0.2, c=-65.0, d=2.0,
                                                   i_offset=draw.uniform(0.0, 0.004, n_inh)), label="inh")
        exc.initialize(v=-65.0, u=-13.0)
        inh.initialize(v=-65.0, u=-13.0)
        w_in, w_exc, w_inh, adaptation = 3.0, 0.5, -2.0, "u"       # mV
    else:
        celltype = sim.EIF_cond_exp_isfa_ista if args.cells == "eif_exp" else sim.EIF_cond_alpha_isfa_ista
        common = dict(v_spike=-20.0, tau_refrac=2.0)
        exc = sim.Population(n_exc, celltype(b=0.08, i_offset=draw.uniform(0.3, 0.6, n_exc), **common), label="exc")
        inh = sim.Population(n_inh, celltype(b=0.0, a=0.0, i_offset=draw.uniform(0.3, 0.6, n_inh), **common),
                             label="inh")
        exc.initialize(v=-65.0, w=0.0)
        inh.initialize(v=-65.0, w=0.0)
        w_in, w_exc, w_inh, adaptation = 0.004, 0.002, 0.01, "w"   # uS
    times = [np.unique(np.round(np.cumsum(draw.exponential(50.0, int(args.time / 20) + 50)), 1))
             for _ in range(n_in)]
    times = [t[(t >= 2.0) & (t < args.time)] for t in times]
    inputs = sim.Population(n_in, sim.SpikeSourceArray(spike_times=[sim.Sequence(t) for t in times]), label="in")

    rng = sim.NumpyRNG(seed=args.seed)
    connect = sim.FixedProbabilityConnector(0.1, rng=rng)
    # (onto each population, not onto the Assembly exc + inh: pyNN.nest 0.13 scales the
    # weights of a projection onto an Assembly of Izhikevich cells by 1000)
    sources = ((inputs, w_in, "excitatory"),) + (() if args.uncoupled else
                                                ((exc, w_exc, "excitatory"), (inh, w_inh, "inhibitory")))
    for pre, w, receptor in sources:
        for post in (exc, inh):
            sim.Projection(pre, post, connect, sim.StaticSynapse(weight=w, delay=1.0), receptor_type=receptor)

    exc.record("spikes")
    inh.record("spikes")
    exc[0:5].record(["v", adaptation])
    sim.run(args.time)

    out = {}
    for pop in (exc, inh):
        block = pop.get_data()
        trains = block.segments[0].spiketrains
        ids = np.concatenate([np.full(len(st), int(st.annotations["source_index"]) + (0 if pop is exc else n_exc))
                              for st in trains]) if trains else np.zeros(0, int)
        t = np.concatenate([st.magnitude for st in trains]) if trains else np.zeros(0)
        out[f"{pop.label}_ids"], out[f"{pop.label}_times"] = ids, t
        print(f"{pop.label}: {len(t)} spikes")
        if pop is exc:
            for sig in block.segments[0].analogsignals:
                out[sig.name] = np.asarray(sig.magnitude)
    if args.spikes:
        np.savez(args.spikes, **out)
    sim.end()


if __name__ == "__main__":
    main()

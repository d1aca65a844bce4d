#!/usr/bin/env python3
"""Brette et al. (2007) benchmarks 1 (COBA) and 2 (CUBA) written in PyNN,
run on olive (pyNN.olive) or, unchanged, on any PyNN backend:

    python3 examples/pynn/brette.py cuba            # pyNN.olive, 1 s
    python3 examples/pynn/brette.py coba --time 400 --backend cpu
    python3 examples/pynn/brette.py cuba --simulator nest    # the same 22768 spikes
    python3 examples/pynn/brette.py cuba --synapse alpha     # IF_curr_alpha: alpha-shaped currents

4000 cells (3200 excitatory, 800 inhibitory), every ordered pair connected
with probability 0.02, delay 0.1 ms (one step), random initial potentials in
[-60, -50] mV. CUBA: IF_curr_exp (olive's lif_cuba), the excitatory and
inhibitory weights of 1.62 mV and -9 mV as currents (nA = mV / R, R = tau_m/cm
= 20 MOhm). COBA: IF_cond_exp (lif_coba), 6 nS and 67 nS, and a Poisson kick
(300 Hz from 1 to 51 ms, drawn by the script: the same for every backend)
into 50 excitatory cells to start the activity.
Prints the mean rates of the two populations.
"""

import argparse
import importlib

import numpy as np

COMMON = dict(tau_m=20.0, v_reset=-60.0, v_thresh=-50.0, tau_refrac=5.0, tau_syn_E=5.0, tau_syn_I=10.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmark", choices=("cuba", "coba"))
    ap.add_argument("--time", type=float, default=1000.0, help="simulated time, ms (default 1000)")
    ap.add_argument("--simulator", default="olive", help="PyNN backend (default olive)")
    ap.add_argument("--backend", default="auto", help="pyNN.olive: auto, cpu or cuda (default auto)")
    ap.add_argument("--seed", type=int, default=2007, help="connectivity and initial state seed")
    ap.add_argument("--spikes", help="write the spike times here (.npz: ids, times in ms)")
    ap.add_argument("--cells", type=int, default=4000, help="network size, 4/5 excitatory (default 4000)")
    ap.add_argument("--threads", type=int, default=None, help="pyNN.nest: its threads (setup(threads=...))")
    ap.add_argument("--synapse", choices=("exp", "alpha"), default="exp",
                    help="synaptic time course: exp (the benchmarks') or alpha (IF_curr_alpha, IF_cond_alpha)")
    ap.add_argument("--order-free-sums", action="store_true",
                    help="pyNN.olive: setup(order_free_sums=True) (olive-simulate --order-free-sums)")
    args = ap.parse_args()

    if args.simulator == "olive":
        import olive.pynn
        olive.pynn.install_shim()
    sim = importlib.import_module(f"pyNN.{args.simulator}")
    extra = {"olive": {"backend": args.backend},
             # NEST's grid-based models (iaf_psc_exp, iaf_cond_exp), as olive's spikes are on the grid
             "nest": {"spike_precision": "on_grid"}}.get(args.simulator, {})
    if args.order_free_sums and args.simulator == "olive":
        extra["order_free_sums"] = True
    if args.threads and args.simulator == "nest":
        extra["threads"] = args.threads
    sim.setup(timestep=0.1, min_delay=0.1, **extra)

    rng = sim.NumpyRNG(seed=args.seed)
    if args.benchmark == "cuba":
        celltype = (sim.IF_curr_exp if args.synapse == "exp" else sim.IF_curr_alpha)(cm=1.0, v_rest=-49.0, **COMMON)
        w_exc, w_inh = 1.62 / 20.0, -9.0 / 20.0            # nA: mV over R = tau_m / cm
    else:
        celltype = (sim.IF_cond_exp if args.synapse == "exp" else sim.IF_cond_alpha)(
            cm=0.2, v_rest=-60.0, e_rev_E=0.0, e_rev_I=-80.0, **COMMON)
        w_exc, w_inh = 0.006, 0.067                        # uS
    cells = sim.Population(args.cells, celltype, label="all")
    exc, inh = cells[:args.cells * 4 // 5], cells[args.cells * 4 // 5:]
    cells.initialize(v=sim.RandomDistribution("uniform", (-60.0, -50.0), rng=rng))
    connector = sim.FixedProbabilityConnector(0.02, allow_self_connections=True, rng=rng)
    sim.Projection(exc, cells, connector, sim.StaticSynapse(weight=w_exc, delay=0.1), receptor_type="excitatory")
    sim.Projection(inh, cells, connector, sim.StaticSynapse(weight=w_inh, delay=0.1), receptor_type="inhibitory")
    if args.benchmark == "coba":
        # the kick's Poisson times drawn here, so that every backend gets the same ones
        draw = np.random.default_rng(args.seed)
        times = [np.round(np.sort(draw.uniform(1.0, 51.0, draw.poisson(300.0 * 0.05))), 1) for _ in range(50)]
        kick = sim.Population(50, sim.SpikeSourceArray(spike_times=[sim.Sequence(np.unique(t)) for t in times]),
                              label="kick")
        sim.Projection(kick, exc[:50], sim.OneToOneConnector(), sim.StaticSynapse(weight=w_exc * 10, delay=0.1),
                       receptor_type="excitatory")
    cells.record("spikes")
    sim.run(args.time)
    for name, pop in (("excitatory", exc), ("inhibitory", inh)):
        label = args.benchmark + ("" if args.synapse == "exp" else "-alpha")
        print(f"{label} {name}: {pop.mean_spike_count() * 1000.0 / args.time:.2f} Hz")
    if args.spikes:
        trains = cells.get_data("spikes").segments[0].spiketrains
        ids = np.concatenate([np.full(len(st), i) for i, st in enumerate(trains)])
        times = np.concatenate([st.rescale("ms").magnitude for st in trains])
        np.savez(args.spikes, ids=ids, times=times)
    sim.end()


if __name__ == "__main__":
    main()

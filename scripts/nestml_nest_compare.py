#!/usr/bin/env python3
"""A NESTML model built for olive (olive-model build) against NEST's built-in
model of the same name, on the same input spike trains and current.

    nestml_nest_compare.py --bin BUILD/bin --plugin CACHE/iaf_psc_exp_neuron.so --nest-model iaf_psc_exp
                           [--time 1000] [--cells 10] [--ie 100] [--seed 3] [--tolerance-ms 0]

Run with the python of a venv holding nest-simulator (pinned; tests/peer_venv.sh).
olive-genconn writes the network: two populations of Poisson sources (se: 20
cells, si: 10 cells, 40 Hz, olive's own random numbers) and --cells neurons of
the plugin's model, each source projecting onto each neuron with probability
0.5, excitatory weight 40 pA (delay 1 ms) onto port exc_spikes and inhibitory
weight 60 pA (delay 1.5 ms) onto inh_spikes; every neuron gets I_e = --ie pA
(360: just below iaf_psc_exp's rheobase, so the inputs decide the spikes).
olive-simulate runs it; then NEST gets the sources' spike times as
spike_generators (olive's spike of step s is stamped (s + 1) dt, NEST's
spike_generator emits a spike at time t in the step ending at t: the same
step), the same synapses (NEST's inhibitory weight negative: its built-in
models take the sign, NESTML's ports the magnitude), the same I_e, dt =
0.1 ms, and both models' NESTML/NEST parameter defaults. The neurons' spike
times are compared cell by cell as steps (round(t / dt): the two programs
print a step's time with different rounding, 1e-13 ms): the same steps
(within --tolerance-ms, 0 for the exactly integrable models) or exit 1. Prints one line of counts.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def olive_run(a, work):
    net, out = os.path.join(work, "c.h5"), os.path.join(work, "run")
    subprocess.run([os.path.join(a.bin, "olive-genconn"), "-q", "-o", net, "--model", a.plugin,
                    "--source-poisson", "se:20:40", "--source-poisson", "si:10:40", "--population", f"n:{a.cells}",
                    "--projection", "from=se,to=n,p=0.5,weight=40,delay=1.0,receptor=exc_spikes",
                    "--projection", "from=si,to=n,p=0.5,weight=60,delay=1.5,receptor=inh_spikes",
                    "--param", f"n.I_e={a.ie}", "--seed", str(a.seed)], check=True)
    subprocess.run([os.path.join(a.bin, "olive-simulate"), "-q", net, "-o", out, "--time", str(a.time),
                    "--seed", str(a.seed)], check=True)
    spikes = {}
    with h5py.File(os.path.join(out, "spikes.h5"), "r") as f:
        for name, g in f["spikes"].items():
            first = int(g.attrs["first_cell"])
            spikes[name] = (first, int(g.attrs["cells"]), g["timestamps"][:], g["node_ids"][:].astype(np.int64))
    synapses = []
    with h5py.File(net, "r") as f:
        for proj in ("se_to_n", "si_to_n"):
            g = f["synapses"][proj]
            rp, col = g["row_ptr"][:], g["col"][:]
            w, d = float(g.attrs["weight"]), int(g.attrs["delay"])
            for tgt in range(len(rp) - 1):
                for k in range(rp[tgt], rp[tgt + 1]):
                    synapses.append((int(col[k]), tgt, w if proj == "se_to_n" else -w, d))
    return spikes, synapses


def nest_run(a, spikes, synapses, dt):
    import nest
    nest.set_verbosity("M_ERROR")
    nest.ResetKernel()
    nest.resolution = dt
    first_n, ncell = spikes["n"][0], spikes["n"][1]
    neurons = nest.Create(a.nest_model, ncell, params={"I_e": a.ie})
    gens = {}
    for name in ("se", "si"):
        first, count, t, ids = spikes[name]
        for c in range(count):
            times = np.sort(t[ids == c])
            gens[first + c] = nest.Create("spike_generator", params={"spike_times": times.tolist()})
    for src, tgt, w, d in synapses:
        nest.Connect(gens[src], neurons[tgt - first_n], syn_spec={"weight": w, "delay": d * dt})
    rec = nest.Create("spike_recorder")
    nest.Connect(neurons, rec)
    nest.Simulate(a.time)
    ev = rec.events
    return np.asarray(ev["times"]), np.asarray(ev["senders"]) - neurons[0].global_id


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--nest-model", required=True)
    p.add_argument("--time", type=float, default=1000)
    p.add_argument("--cells", type=int, default=10)
    p.add_argument("--ie", type=float, default=360)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--tolerance-ms", type=float, default=0)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as work:
        spikes, synapses = olive_run(a, work)
        with h5py.File(os.path.join(work, "run", "spikes.h5"), "r") as f:
            dt = float(f.attrs["dt"])
        nt, nn = nest_run(a, spikes, synapses, dt)
    _, count, ot, on = spikes["n"]
    worst, same_counts = 0.0, True
    for c in range(count):
        x, y = np.sort(ot[on == c]), np.sort(nt[nn == c])
        if len(x) != len(y):
            same_counts = False
            print(f"cell {c}: olive {len(x)} spikes, NEST {len(y)}; first olive {x[:5]}, NEST {y[:5]}")
            continue
        if len(x):
            worst = max(worst, float(np.max(np.abs(np.rint(x / dt) - np.rint(y / dt)))) * dt)
    inputs = sum(len(spikes[s][2]) for s in ("se", "si"))
    ok = same_counts and worst <= a.tolerance_ms
    print(f"{os.path.basename(a.plugin)} vs NEST {a.nest_model}: {inputs} input spikes, {len(synapses)} synapses; "
          f"olive {len(ot)} spikes, NEST {len(nt)}; max |dt| {worst:g} ms (tolerance {a.tolerance_ms:g}): "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

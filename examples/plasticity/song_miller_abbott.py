#!/usr/bin/env python3
"""Song, Miller & Abbott (2000), "Competitive Hebbian learning through
spike-timing-dependent synaptic plasticity", Nat. Neurosci. 3:919, Fig. 1:
one integrate-and-fire neuron driven by 1000 excitatory
Poisson inputs through additive STDP synapses. The inputs compete: the
weights leave their uniform start and split into two groups, most near 0 and
a few near the bound gmax (the bimodal distribution of the paper's Fig. 1b),
and the output rate settles near the paper's low, input-independent rate.

    python3 song_miller_abbott.py [--bin DIR] [--time 100] [--out DIR] [--png FIG.png] [--check]

The parameters are those of Brian2's rendering of the experiment
(examples/frompapers/Song_Miller_Abbott_2000.py: dv/dt = (ge (Ee - vr) +
El - v) / taum, taum 10 ms, El -74 mV, Ee 0 mV, vt -54 mV, vr -60 mV, taue
5 ms, 15 Hz inputs, gmax 0.01, dApre 0.01, taupre = taupost = 20 ms,
dApost = -1.05 dApre), written in olive's units: lif_cuba, whose ge is in mV
(ge (Ee - vr): gmax = 0.01 x 60 mV = 0.6 mV), and NEST's stdp_synapse with
additive weight dependence (mu_plus = mu_minus = 0): lambda = dApre = 0.01,
alpha = 1.05, Wmax = gmax, tau_plus = tau_minus = 20 ms, delay one step
(0.1 ms). Initial weights uniform in [0, gmax) per synapse. (NEST makes a weight's updates at
the presynaptic spikes, Brian2's script at both; the competition is the
same.)

Writes OUT/net.h5 (olive-genconn), OUT/run (olive-simulate), prints the
final weights' histogram and the output rate, and with --png draws the
figure: the final weights' distribution (w / gmax) and the output rate over
time. --check exits 1 unless the competition shows: the weights pushed to
the bounds (the bins within 0.1 gmax of 0 and of gmax each hold more than
any bin between, together at least 40 %) and the output rate of the last
10 s below half that of the first 10 s.

What olive gives (docs/results/song_miller_abbott_2026-11-27.txt,
docs/figures/song_miller_abbott_2000.png): the distribution turns bimodal
within 100 s, peaks at 0 and at gmax with few weights between, and sharpens
slowly (after 1000 s, 35 % of the weights within 0.1 gmax of 0 and 22 % of
gmax, 5 % in the middle fifth); the output rate falls from 56 Hz to 14-17 Hz,
near the inputs' 15 Hz, as the paper reports.
"""
import argparse
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

GMAX = 0.6   # mV: 0.01 x (Ee - vr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("OLIVE_BIN", ""), help="directory of olive's programs (default: PATH)")
    ap.add_argument("--time", type=float, default=100000.0, help="ms simulated (default: 100 s, as Brian2's script)")
    ap.add_argument("--out", default="song2000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--png")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    prog = (lambda p: os.path.join(a.bin, p)) if a.bin else (lambda p: shutil.which(p) or p)
    os.makedirs(a.out, exist_ok=True)
    net, run = os.path.join(a.out, "net.h5"), os.path.join(a.out, "run")
    subprocess.run([prog("olive-genconn"), "-q", "--force", "-o", net, "--model", "lif_cuba", "--seed", str(a.seed),
                    "--dt", "0.1", "--source-poisson", "inputs:1000:15", "--population", "neuron:1",
                    "--param", "E_L=-74", "--param", "V_th=-54", "--param", "V_reset=-60", "--param", "t_ref=0",
                    "--param", "tau_m=10", "--param", "tau_e=5", "--param", "v0=-74",
                    "--projection", f"from=inputs,to=neuron,p=1,weight=0:{GMAX},delay=0.1,receptor=ge,"
                    f"plasticity=stdp,Wmax={GMAX},lambda=0.01,alpha=1.05,mu_plus=0,mu_minus=0,"
                    "tau_plus=20,tau_minus=20"], check=True)
    subprocess.run([prog("olive-simulate"), "-q", "--force", net, "--time", str(a.time), "-o", run, "--record", "none"],
                   check=True)
    with h5py.File(os.path.join(run, "state.h5"), "r") as f:
        w = f["state/plastic/inputs_to_neuron/weight"][:] / GMAX
    with h5py.File(os.path.join(run, "spikes.h5"), "r") as f:
        t = f["spikes/neuron/timestamps"][:]
    hist, edges = np.histogram(w, bins=10, range=(0, 1))
    print(f"{len(w)} synapses after {a.time / 1000:g} s; final w / gmax histogram (10 bins of 0.1):")
    print("  " + " ".join(f"{h:4d}" for h in hist))
    bins = np.arange(0, a.time + 1e-9, 10000.0)
    rate = np.histogram(t, bins=bins)[0] / 10.0 if len(bins) > 1 else np.array([len(t) / (a.time / 1000)])
    print(f"output rate: first 10 s {rate[0]:.1f} Hz, last 10 s {rate[-1]:.1f} Hz (inputs 15 Hz)")
    low, high = np.mean(w < 0.1), np.mean(w > 0.9)
    print(f"weights within 0.1 gmax of 0: {low:.0%}, of gmax: {high:.0%}")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
        ax[0].hist(w, bins=50, range=(0, 1), color="0.3")
        ax[0].set_xlabel("w / gmax")
        ax[0].set_ylabel("synapses")
        ax[0].set_title(f"final weights after {a.time / 1000:g} s")
        ax[1].plot(bins[1:] / 1000, rate, "k.-")
        ax[1].set_xlabel("time (s)")
        ax[1].set_ylabel("output rate (Hz)")
        ax[1].set_title("postsynaptic rate, 10 s bins")
        fig.suptitle("Song, Miller & Abbott 2000 (Fig. 1), olive: 1000 Poisson inputs, additive STDP")
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
        print(f"figure: {a.png}")
    if a.check and not (min(hist[0], hist[-1]) > max(hist[1:-1]) and low + high >= 0.4 and rate[-1] < 0.5 * rate[0]):
        print("the competition does not show: weights not pushed to the bounds, or the rate not regulated", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The Potjans & Diesmann (2014) cortical microcircuit for olive.

    microcircuit.py --plugin SO [--scale S] [--k-scale K] [--dc] [--time MS] [--seed N]
                    [--out DIR] [--bin DIR] [--run]
    microcircuit.py --make-model NESTML_LIBRARY/iaf_psc_exp_neuron.nestml OUT.nestml

Prints (or with --run, runs) the olive-genconn and olive-simulate command
lines of the model at a scale: --scale multiplies the neuron numbers
(NEST's N_scaling), --k-scale the in-degrees (K_scaling; default the same
as --scale), with NEST's rules: synapse counts N_scaling * K_scaling times
the full model's, weights / sqrt(K_scaling), and a DC current per
population that keeps the mean input (helpers.py). Background: K_ext
Poisson inputs of 8 Hz per cell (or, --dc, their mean as a DC current).

The neuron is NESTML's own iaf_psc_exp_neuron (NEST's iaf_psc_exp: the same
spike steps, docs/MODELS.md) with one change --make-model makes: its
initial V_m is a parameter v0 instead of E_L, so that olive-genconn's
--v0 normal:MEAN:SD@POP draws NEST's per-cell initial potentials.

Plain Python 3 and numpy. All numbers are from NEST's PyNEST example
pynest/examples/Potjans_2014 as of NEST 3.8 (tag v3.8, commit
6dca9500e512da50fa730a7b62ce4b05c77e2bfd: network_params.py,
sim_params.py, stimulus_params.py, network.py, helpers.py; the example
moved out of NEST in 3.10, to github.com/INM-6/microcircuit-PD14-model);
the code here is our own.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

import numpy as np

# --- network_params.py (NEST v3.8) -------------------------------------------
POPULATIONS = ["L23E", "L23I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I"]
FULL_NUM_NEURONS = np.array([20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948])
# rates of the full model (NEST's one run), used by the DC compensation of K_scaling
FULL_MEAN_RATES = np.array([0.903, 2.965, 4.414, 5.876, 7.569, 8.633, 1.105, 7.829])
# connection probabilities, [target][source]
CONN_PROBS = np.array([
    [0.1009, 0.1689, 0.0437, 0.0818, 0.0323, 0.0, 0.0076, 0.0],
    [0.1346, 0.1371, 0.0316, 0.0515, 0.0755, 0.0, 0.0042, 0.0],
    [0.0077, 0.0059, 0.0497, 0.135, 0.0067, 0.0003, 0.0453, 0.0],
    [0.0691, 0.0029, 0.0794, 0.1597, 0.0033, 0.0, 0.1057, 0.0],
    [0.1004, 0.0622, 0.0505, 0.0057, 0.0831, 0.3726, 0.0204, 0.0],
    [0.0548, 0.0269, 0.0257, 0.0022, 0.06, 0.3158, 0.0086, 0.0],
    [0.0156, 0.0066, 0.0211, 0.0166, 0.0572, 0.0197, 0.0396, 0.2252],
    [0.0364, 0.001, 0.0034, 0.0005, 0.0277, 0.008, 0.0658, 0.1443]])
PSP_EXC_MEAN = 0.15         # mV
WEIGHT_REL_STD = 0.1
G = -4.0
DELAY_EXC_MEAN, DELAY_INH_MEAN, DELAY_REL_STD = 1.5, 0.75, 0.5   # ms
K_EXT = np.array([1600, 1500, 2100, 1900, 2000, 1900, 2900, 2100])
BG_RATE = 8.0               # Hz per external input
V0_MEAN = [-68.28, -63.16, -63.33, -63.45, -63.11, -61.66, -66.72, -61.43]   # 'optimized' (the default)
V0_STD = [5.36, 4.57, 4.74, 4.94, 4.94, 4.55, 5.46, 4.48]
NEURON = dict(E_L=-65.0, V_th=-50.0, V_reset=-65.0, C_m=250.0, tau_m=10.0, tau_syn=0.5, t_ref=2.0)
# --- sim_params.py -----------------------------------------------------------
DT, T_PRESIM, T_SIM = 0.1, 500.0, 1000.0


def num_synapses_from_conn_probs(p, n_target, n_source):
    """Synapses of fixed_total_number that give pairwise connection
    probability p with multapses: K = ln(1 - p) / ln(1 - 1 / (N_t N_s))."""
    prod = np.outer(n_target, n_source).astype(float)
    return np.log(1.0 - p) / np.log((prod - 1.0) / prod)


def psc_over_psp(c_m, tau_m, tau_syn):
    """pA of a PSC whose exponential current gives a PSP peak of 1 mV."""
    sub = 1.0 / (tau_syn - tau_m)
    pre = tau_m * tau_syn / c_m * sub
    frac = (tau_m / tau_syn) ** sub
    return 1.0 / (pre * (frac ** tau_m - frac ** tau_syn))


def derive(n_scaling=1.0, k_scaling=1.0, poisson=True):
    """The scaled model (network.py's __derive_parameters): neurons, synapse
    counts [target][source], mean weights (pA, signed) and mean delays (ms),
    external in-degree, external weight and DC per population."""
    full_syn = num_synapses_from_conn_probs(CONN_PROBS, FULL_NUM_NEURONS, FULL_NUM_NEURONS)
    psp = np.where(np.arange(8) % 2 == 0, PSP_EXC_MEAN, PSP_EXC_MEAN * G)[np.newaxis, :].repeat(8, 0)
    psp[0, 2] = 2.0 * PSP_EXC_MEAN                   # L4E -> L2/3E doubled
    delay = np.where(np.arange(8) % 2 == 0, DELAY_EXC_MEAN, DELAY_INH_MEAN)[np.newaxis, :].repeat(8, 0)
    factor = psc_over_psp(NEURON["C_m"], NEURON["tau_m"], NEURON["tau_syn"])
    w, w_ext = psp * factor, PSP_EXC_MEAN * factor
    tau = NEURON["tau_syn"]
    dc = np.zeros(8) if poisson else BG_RATE * K_EXT * w_ext * tau * 1e-3
    if k_scaling != 1:
        # helpers.adjust_weights_and_input_to_synapse_scaling: weights / sqrt(K),
        # the lost mean input (recurrent at the full model's rates, and external) as DC
        rec = np.sum(w * (full_syn / FULL_NUM_NEURONS[:, np.newaxis]) * FULL_MEAN_RATES, axis=1)
        dc = dc + 1e-3 * tau * (1 - np.sqrt(k_scaling)) * rec
        if poisson:
            dc = dc + 1e-3 * tau * (1 - np.sqrt(k_scaling)) * w_ext * K_EXT * BG_RATE
        w, w_ext = w / np.sqrt(k_scaling), w_ext / np.sqrt(k_scaling)
    return dict(neurons=np.round(FULL_NUM_NEURONS * n_scaling).astype(int),
                synapses=np.round(full_syn * n_scaling * k_scaling).astype(int),
                weight=w, delay=delay, k_ext=np.round(K_EXT * k_scaling).astype(int), w_ext=w_ext, dc=dc)


def first_ids(neurons):
    """The first cell id of each population (genconn: contiguous, in order)."""
    return np.concatenate(([0], np.cumsum(neurons)[:-1]))


def genconn_cmd(m, plugin, net, seed, olive_bin="", force=False, procedural=False):
    """olive-genconn's command line. NESTML's ports take magnitudes (the
    inhibitory port subtracts): NEST's weight normal(-|w|, sd) kept in
    [-inf, 0] is |w|'s normal kept in [0, inf] onto inh_spikes. Delays:
    NEST's redraw below resolution / 2."""
    cmd = [os.path.join(olive_bin, "olive-genconn"), "-q", "-o", net, "--model", plugin, "--seed", str(seed)]
    cmd += ["--force"] if force else []
    cmd += ["--procedural"] if procedural else []
    for i, name in enumerate(POPULATIONS):
        cmd += ["--population", f"{name}:{m['neurons'][i]}"]
    for key, val in (("tau_syn_exc", NEURON["tau_syn"]), ("tau_syn_inh", NEURON["tau_syn"]), ("E_L", NEURON["E_L"]),
                     ("V_th", NEURON["V_th"]), ("V_reset", NEURON["V_reset"]), ("refr_T", NEURON["t_ref"]),
                     ("C_m", NEURON["C_m"]), ("tau_m", NEURON["tau_m"])):
        cmd += ["--param", f"{key}={val:.17g}"]
    for i, name in enumerate(POPULATIONS):
        cmd += ["--param", f"{name}.I_e={m['dc'][i]:.17g}", "--v0", f"normal:{V0_MEAN[i]}:{V0_STD[i]}@{name}"]
    for t, tgt in enumerate(POPULATIONS):
        for s, src in enumerate(POPULATIONS):
            n = m["synapses"][t][s]
            if n <= 0:
                continue
            w, d = abs(m["weight"][t][s]), m["delay"][t][s]
            port = "exc_spikes" if m["weight"][t][s] > 0 else "inh_spikes"
            cmd += ["--projection", f"from={src},to={tgt},total={n},weight=normal:{w:.17g}:{w * WEIGHT_REL_STD:.17g}:0:inf,"
                    f"delay=normal:{d:g}:{d * DELAY_REL_STD:g}:{DT / 2:g}:inf,receptor={port}"]
    return cmd


def simulate_cmd(m, net, out, time, seed, poisson=True, olive_bin="", force=False, extra=()):
    """olive-simulate's command line: per cell K_ext independent Poisson
    trains of 8 Hz (NEST: one poisson_generator of K_ext * 8 Hz per
    population, all_to_all, which sends each target its own train)."""
    cmd = [os.path.join(olive_bin, "olive-simulate"), "-q", net, "-o", out, "--time", f"{time:g}", "--seed", str(seed),
           "--record", "none"]
    cmd += ["--force"] if force else []
    a = first_ids(m["neurons"])
    for i in range(8):
        if poisson and m["k_ext"][i] > 0:
            cmd += ["--poisson", f"rate={BG_RATE:g},weight={m['w_ext']:.17g},receptor=exc_spikes,n={m['k_ext'][i]},"
                    f"cells={a[i]}:{a[i] + m['neurons'][i]}"]
    return cmd + list(extra)


def make_model(src, dst):
    """NESTML's iaf_psc_exp_neuron with its initial V_m a parameter v0 (the
    rest unchanged), so that olive-genconn --v0 can set it per cell."""
    text = open(src).read()
    text, n1 = re.subn(r"(\n\s*)V_m mV = E_L(\s)", r"\1V_m mV = v0\2", text, count=1)
    text, n2 = re.subn(r"(\n(\s*)parameters:\n)", r"\1\2    v0 mV = -70 mV    # initial V_m (olive's microcircuit)\n", text, count=1)
    text, n3 = re.subn(r"model iaf_psc_exp_neuron:", "model iaf_psc_exp_v0_neuron:", text, count=1)
    if (n1, n2, n3) != (1, 1, 1):
        sys.exit(f"{src}: not NESTML's iaf_psc_exp_neuron as expected (V_m mV = E_L, parameters:, model name)")
    with open(dst, "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plugin", help="the plugin of --make-model's model (olive-model build OUT.nestml)")
    p.add_argument("--make-model", nargs=2, metavar=("SRC", "DST"))
    p.add_argument("--scale", type=float, default=1.0, help="N_scaling (default 1: the full model)")
    p.add_argument("--k-scale", type=float, help="K_scaling (default: --scale)")
    p.add_argument("--dc", action="store_true", help="DC background instead of Poisson")
    p.add_argument("--time", type=float, default=T_PRESIM + T_SIM, help="ms (default 1500: NEST's 500 + 1000)")
    p.add_argument("--seed", type=int, default=55)
    p.add_argument("--out", default="microcircuit", help="directory of net.h5 and run/")
    p.add_argument("--bin", default="", help="directory of olive's programs (default: the PATH)")
    p.add_argument("--run", action="store_true", help="run the commands (default: print them)")
    p.add_argument("--procedural", action="store_true",
                   help="store the projections as their rules (olive-genconn --procedural): a file of kilobytes, "
                        "the synapses drawn by olive-simulate at set-up (the full model's would take ~4 GB)")
    p.add_argument("--order-free-sums", action="store_true",
                   help="olive-simulate --order-free-sums: the weights rounded to 2^-29 pA (the full model), so that "
                        "the GPU adds the events in any order, beside the next step (docs/MODELS.md)")
    a = p.parse_args()
    if a.make_model:
        make_model(*a.make_model)
        return 0
    if not a.plugin:
        p.error("--plugin is needed (or --make-model)")
    if not (0 < a.scale <= 1) or (a.k_scale is not None and not 0 < a.k_scale <= 1):
        p.error("--scale and --k-scale must be in (0, 1]")
    m = derive(a.scale, a.scale if a.k_scale is None else a.k_scale, not a.dc)
    net, out = os.path.join(a.out, "net.h5"), os.path.join(a.out, "run")
    cmds = [genconn_cmd(m, a.plugin, net, a.seed, a.bin, force=True, procedural=a.procedural),
            simulate_cmd(m, net, out, a.time, a.seed, not a.dc, a.bin, force=True,
                         extra=["--model-path", a.plugin] + (["--order-free-sums"] if a.order_free_sums else []))]
    for c in cmds:
        if a.run:
            os.makedirs(a.out, exist_ok=True)
            subprocess.run(c, check=True)
        else:
            print(shlex.join(c))
    if a.run:   # (the programs ran with -q: say what was made and where)
        print(f"microcircuit.py: {sum(m['neurons'])} neurons, {a.time:g} ms simulated: network {net}, "
              f"spikes {os.path.join(out, 'spikes.h5')} (olive-analyze summary {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

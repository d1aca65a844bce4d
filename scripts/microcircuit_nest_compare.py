#!/usr/bin/env python3
"""The Potjans & Diesmann (2014) microcircuit: NEST 3.10 running NEST's own
example against olive running examples/microcircuit at the same scale.

    microcircuit_nest_compare.py --bin BUILD/bin --plugin iaf_psc_exp_v0_neuron.so
        [--scale 0.05] [--k-scale K] [--time 1000] [--transient 300] [--seed 55]
        [--k 3] [--threads 2] [--procedural] [--olive-args "--backend cuda"]

Run with the python of the pinned peers' venv (tests/peer_venv.sh). NEST
runs tests/data/potjans_2014 (NEST v3.8's pynest/examples/Potjans_2014,
unchanged) with only its own dictionaries' entries changed: N_scaling =
--scale, K_scaling = --k-scale (default --scale), the times, threads and
seed; its spike recorders record to memory. olive runs
examples/microcircuit/microcircuit.py's commands with the same scaling.
Two instances of the same random network, so the numbers are compared as
samples: per population, over the spikes after --transient ms,
  rate: the mean over neurons of each one's rate (SE: sd / sqrt(n));
  CV: the mean over neurons with >= 3 spikes of their ISIs' CV (SE likewise);
  correlation: the mean Pearson correlation of spike counts in 10 ms bins
    over pairs of up to 100 neurons with spikes (SE: sd / sqrt(pairs),
    optimistic: pairs share neurons).
A measure agrees when |olive - NEST| <= k * sqrt(SE_olive^2 + SE_NEST^2).
With --seeds S > 1 each side runs S networks (seeds SEED..SEED+S-1) and a
measure is the mean over them of each network's value, its SE the spread
across networks / sqrt(S): two draws of the network differ by more than the
sampling error within one (a population's rate depends on its draw), which
the per-neuron SE of a single pair of networks does not hold.
A measure with fewer than 2 samples on a side is n/a (not counted).
Prints the timings (olive: genconn, olive-simulate's set-up and step loop
from its -v report; NEST: create + connect, and simulate; the real-time
factor is the loop's, or simulate's, wall time over the simulated time),
then one row per population and measure; exit 1 when any disagrees.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "examples", "microcircuit"))
import microcircuit as mc  # noqa: E402

BIN_MS, MAX_CORR_CELLS = 10.0, 100


def nest_run(a, work):
    """Spikes per population of NEST's example: [(n, times, ids from 0)]."""
    sys.path.insert(0, os.path.join(TOP, "tests", "data", "potjans_2014"))
    import nest
    nest.set_verbosity("M_ERROR")
    import network
    from network_params import net_dict
    from sim_params import sim_dict
    from stimulus_params import stim_dict
    # (getattr: the benchmark recipe, scripts/microcircuit_recipe.py, also
    # runs the DC drive and runs without spike recorders)
    record = getattr(a, "record", True)
    net_dict.update(N_scaling=a.scale, K_scaling=a.k_scale, poisson_input=getattr(a, "poisson", True))
    sim_dict.update(t_presim=0.0, t_sim=a.time, local_num_threads=a.threads, rng_seed=a.seed,
                    data_path=os.path.join(work, "nest") + "/", print_time=False,
                    rec_dev=["spike_recorder"] if record else [])
    t0 = time.time()
    net = network.Network(sim_dict, net_dict, stim_dict)
    net.create()
    if record:
        net.spike_recorders.set(record_to="memory")
    net.connect()
    t1 = time.time()
    net.simulate(a.time)
    a.timing["nest"] = (t1 - t0, time.time() - t1)
    out = []
    if not record:
        return out
    for pop, rec in zip(net.pops, net.spike_recorders):
        ev = rec.get("events")
        out.append((len(pop), np.asarray(ev["times"], float),
                    (np.asarray(ev["senders"]) - pop[0].global_id).astype(np.int64)))   # (int: also when empty)
    return out


def olive_run(a, work):
    m = mc.derive(a.scale, a.k_scale)
    net, run = os.path.join(work, "net.h5"), os.path.join(work, "run")
    t0 = time.time()
    subprocess.run(mc.genconn_cmd(m, a.plugin, net, a.seed, a.bin, procedural=a.procedural), check=True)
    t_gen = time.time() - t0
    extra = ["--threads", str(a.threads), "-v", "--model-path", a.plugin] + shlex.split(a.olive_args)
    cmd = [c for c in mc.simulate_cmd(m, net, run, a.time, a.seed, olive_bin=a.bin, extra=extra) if c != "-q"]
    r = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:   # olive's own message, not only Python's traceback
        sys.exit("olive-simulate failed (exit %d):\n%s" % (r.returncode, "\n".join(r.stderr.splitlines()[-15:])))
    t = re.search(r"setup ([0-9.]+) s, exchange ([0-9.]+) s.*compute ([0-9.]+) s", r.stderr)
    a.timing["olive"] = (t_gen, float(t.group(1)), float(t.group(2)) + float(t.group(3))) if t else (t_gen, -1, -1)
    for line in r.stderr.splitlines():
        if "set-up:" in line or "engine," in line or "device memory" in line or "delivery" in line:
            print("  " + line)
    return olive_spikes(run)


def olive_spikes(run):
    """Spikes per population of an olive run: [(n, times, ids from 0)]."""
    out = []
    with h5py.File(os.path.join(run, "spikes.h5"), "r") as f:
        for name in mc.POPULATIONS:
            g = f["spikes"][name]
            out.append((int(g.attrs["cells"]), g["timestamps"][:], g["node_ids"][:].astype(np.int64)))
    return out


def mean_se(x):
    x = np.asarray(x, float)
    return (float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x)))) if len(x) > 1 else (float("nan"), float("nan"))


def measures(n, t, ids, t0, t1, seed):
    """(mean, SE) of rate (Hz), CV of ISIs and spike-count correlation."""
    keep = (t >= t0) & (t < t1)
    t, ids = t[keep], ids[keep]
    counts = np.bincount(ids, minlength=n)
    rate = mean_se(counts / ((t1 - t0) * 1e-3))
    order = np.lexsort((t, ids))
    t, ids = t[order], ids[order]
    # each cell's ISIs at once (a loop over cells took minutes for the multi-area model's 4.1 million):
    # the mean, then the deviations from it, as numpy's std takes them
    same = ids[1:] == ids[:-1]
    isi, cell = np.diff(t)[same], ids[1:][same]
    k = np.maximum(np.bincount(cell, minlength=n), 1)
    mean = np.bincount(cell, isi, minlength=n) / k
    dev = isi - mean[cell]
    many = counts >= 3
    cvs = np.sqrt(np.bincount(cell, dev * dev, minlength=n)[many] / k[many]) / mean[many]
    per_cell = np.split(t, np.cumsum(counts)[:-1])   # sorted by cell, then time: each cell's spikes
    active = np.flatnonzero(counts > 0)
    pick = np.random.default_rng(seed).permutation(active)[:MAX_CORR_CELLS]
    edges = np.arange(t0, t1 + BIN_MS / 2, BIN_MS)
    binned = np.array([np.histogram(per_cell[c], edges)[0] for c in pick], float)
    corr = (float("nan"), float("nan"))
    if len(pick) > 2:
        cc = np.corrcoef(binned)
        corr = mean_se(cc[np.triu_indices(len(pick), 1)])
    return dict(rate=rate, cv=mean_se(cvs), corr=corr)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--plugin", required=True, help="iaf_psc_exp_v0_neuron.so (microcircuit.py --make-model, olive-model build)")
    p.add_argument("--scale", type=float, default=0.05)
    p.add_argument("--k-scale", type=float)
    p.add_argument("--time", type=float, default=1000.0)
    p.add_argument("--transient", type=float, default=300.0)
    p.add_argument("--seed", type=int, default=55)
    p.add_argument("--k", type=float, default=3.0, help="agreement within k combined standard errors")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--procedural", action="store_true", help="olive-genconn --procedural (the synapses drawn at set-up)")
    p.add_argument("--olive-args", default="", help="more olive-simulate arguments, e.g. '--backend cuda'")
    p.add_argument("--seeds", type=int, default=1, help="networks per side (seeds --seed, --seed + 1, ...)")
    a = p.parse_args()
    a.timing = {}
    a.k_scale = a.scale if a.k_scale is None else a.k_scale
    runs = []   # per seed: (olive, nest, olive s, nest s, timings)
    base = a.seed
    for seed in range(base, base + a.seeds):
        a.seed = seed
        with tempfile.TemporaryDirectory() as work:
            t = time.time()
            olive = olive_run(a, work)
            t_olive = time.time() - t
            t = time.time()
            nest = nest_run(a, work)
            t_nest = time.time() - t
        runs.append((olive, nest, t_olive, t_nest, dict(a.timing)))
    a.seed = base
    bad = skipped = 0
    sim_s = a.time / 1000
    for seed, (_, _, t_olive, t_nest, timing) in zip(range(base, base + a.seeds), runs):
        (g, su, lo), (nsu, nsim) = timing["olive"], timing["nest"]
        print(f"microcircuit at N_scaling {a.scale:g}, K_scaling {a.k_scale:g}, seed {seed}: {a.time:g} ms, measured "
              f"after {a.transient:g} ms; olive {t_olive:.1f} s, NEST {t_nest:.1f} s (set-up and run, {a.threads} threads)")
        print(f"olive {a.olive_args or '(cpu)'}{' --procedural' if a.procedural else ''}: genconn {g:.2f} s, set-up "
              f"{su:.2f} s, step loop {lo:.2f} s: real-time factor {lo / sim_s:.4f}")
        print(f"NEST {a.threads} threads: create + connect {nsu:.2f} s, simulate {nsim:.2f} s: real-time factor "
              f"{nsim / sim_s:.4f}")
    if a.seeds > 1:
        print(f"over {a.seeds} networks a side: the mean of each network's value, SE across networks")
    print(f"{'population':10s} {'measure':6s} {'olive':>18s} {'NEST':>18s} {'|diff|/SE':>9s}")
    for i, name in enumerate(mc.POPULATIONS):
        per = [(measures(*o[i], a.transient, a.time, a.seed), measures(*n[i], a.transient, a.time, a.seed))
               for o, n, *_ in runs]
        for key in ("rate", "cv", "corr"):
            if a.seeds == 1:
                (xo, so), (xn, sn) = per[0][0][key], per[0][1][key]
            else:
                (xo, so), (xn, sn) = (mean_se([m[side][key][0] for m in per]) for side in (0, 1))
            if not (np.isfinite(so) and np.isfinite(sn)):   # fewer than 2 neurons (or pairs, or networks) to measure
                print(f"{name:10s} {key:6s} {xo:9.4f} ± {so:6.4f} {xn:9.4f} ± {sn:6.4f} {'':9s} n/a (too few samples)")
                skipped += 1
                continue
            z = abs(xo - xn) / np.hypot(so, sn) if np.hypot(so, sn) > 0 else (0.0 if xo == xn else np.inf)
            ok = bool(z <= a.k)
            bad += not ok
            print(f"{name:10s} {key:6s} {xo:9.4f} ± {so:6.4f} {xn:9.4f} ± {sn:6.4f} {z:9.2f} {'ok' if ok else 'DIFFERS'}")
    print(f"{24 - skipped - bad} of {24 - skipped} agree within {a.k:g} SE ({skipped} n/a): {'PASS' if not bad else 'FAIL'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

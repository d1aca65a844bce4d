#!/usr/bin/env python3
"""The multi-area model (Schmidt et al. 2018): NEST 3.10 running the model's
own simulation code against olive running examples/multiarea at the same
scale, in one call.

    multiarea_nest_compare.py --mam CHECKOUT --bin BUILD/bin --plugin SO
        [--scale 0.01] [--k-scale K] [--state ground|metastable] [--time 1000]
        [--transient 300] [--seed 1] [--threads 2] [--k 3] [--min-agree 0.95]
        [--olive-args "--backend cuda"] [--no-nest] [--json FILE]

Run with a Python that has the model's requirements and NEST 3.10
(build/venv-mam: tests/multiarea_venv.sh). Both sides start from one
MultiAreaModel instance of the checkout's code (N_scaling --scale,
K_scaling --k-scale, the state's cc weight factors): NEST builds and runs
it with the model's Simulation class (simulation.py: fixed_total_number,
redrawn normal weights and delays, poisson_generators, its spike recorder
to ASCII files; rng_seed --seed, --threads threads), olive with
examples/multiarea/multiarea.py's commands. Two instances of the same
random network, compared as samples per area and population over the
spikes after --transient ms: rate, CV of ISIs, spike-count correlation
(scripts/microcircuit_nest_compare.py's measures and SEs). A measure agrees
when |olive - NEST| <= k * sqrt(SE_olive^2 + SE_NEST^2); the run passes when
at least --min-agree of the measures that both sides have agree (with
hundreds of measures a few fall outside 3 SE by chance, and one network's
SE across neurons leaves out the spread between network draws). Prints the
timings (olive's set-up and step loop from its -v report, NEST's
network construction and simulate from the model's own log file), the
population-averaged rates, and the measures that disagree; exit 1 below
--min-agree. With --no-nest only olive runs (timings and rates).
"""
import argparse
import contextlib
import glob
import json
import os
import re
import subprocess
import sys
import time

import h5py
import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "examples", "multiarea"))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import multiarea as mam  # noqa: E402
from microcircuit_nest_compare import measures  # noqa: E402


def olive_run(a, m, work):
    """Spikes per population of olive's run: {name: (n, times, ids from 0)}."""
    proj, _ = mam.write_files(m, work)
    net, run = os.path.join(work, "net.h5"), os.path.join(work, "run")
    t0 = time.time()
    subprocess.run(mam.genconn_cmd(m, a.plugin, net, proj, a.seed, a.bin), check=True)
    t_gen = time.time() - t0
    extra = ["--model-path", a.plugin] + a.olive_args.split()
    cmd = [c if c != "-q" else "-v" for c in mam.simulate_cmd(m, net, run, a.time, a.seed, a.bin, extra=extra)]
    r = subprocess.run(cmd, check=True, stderr=subprocess.PIPE, text=True)
    t = re.search(r"setup ([0-9.]+) s, exchange ([0-9.]+) s.*compute ([0-9.]+) s", r.stderr)
    a.timing["olive"] = dict(genconn=t_gen, setup=float(t.group(1)), loop=float(t.group(2)) + float(t.group(3)))
    for line in r.stderr.splitlines():
        if "engine," in line or "timings" in line:
            print("  " + line)
    out = {}
    with h5py.File(os.path.join(run, "spikes.h5"), "r") as f:
        for q in m["populations"]:
            g = f["spikes"][q["name"]]
            out[q["name"]] = (int(g.attrs["cells"]), g["timestamps"][:], g["node_ids"][:].astype(np.int64))
    return out


def nest_run(a, M):
    """Spikes per population of the model's own NEST simulation."""
    sim = M.simulation
    import nest
    if not hasattr(nest, "sli_func"):
        # NEST 3.10 has no SLI; the model's Simulation.memory() asks SLI for
        # memory_thisjob, for its log's memory figures only: 0 stands in
        sim.memory = lambda: 0
    t0 = time.time()
    with contextlib.redirect_stdout(sys.stderr):   # (the model's prints; NEST's own go to the terminal)
        sim.simulate()
    wall = time.time() - t0
    rec = os.path.join(sim.data_dir, "recordings")
    log = json.load(open(glob.glob(os.path.join(rec, sim.label + "_logfile_0"))[0]))
    a.timing["nest"] = dict(build=log["time_network_global"], loop=log["time_simulate"], wall=wall)
    gids = {}
    for line in open(os.path.join(rec, "network_gids.txt")):
        area, pop, g0, g1 = line.strip().split(",")
        gids[f"{area}_{pop}"] = (int(g0), int(g1))
    senders, times = [], []
    for fn in glob.glob(os.path.join(rec, "*.dat")):
        rows = [ln.split() for ln in open(fn) if ln[:1].isdigit()]
        if rows:
            x = np.array(rows, float)
            senders.append(x[:, 0].astype(np.int64))
            times.append(x[:, 1])
    s = np.concatenate(senders) if senders else np.zeros(0, np.int64)
    t = np.concatenate(times) if times else np.zeros(0)
    out = {}
    for name, (g0, g1) in gids.items():
        k = (s >= g0) & (s <= g1)
        out[name] = (g1 - g0 + 1, t[k], s[k] - g0)
    return out


def mean_rate(sp, t0, t1):
    """(neurons, mean rate in Hz over all of them in [t0, t1) ms) of a side's spikes."""
    n = sum(v[0] for v in sp.values())
    k = sum(int(((v[1] >= t0) & (v[1] < t1)).sum()) for v in sp.values())
    return n, k / n / ((t1 - t0) * 1e-3)


def compare(a, m, x, y, t0, t1, rows=None):
    """Measures of sides x and y that agree, those both have, and the
    disagreements as (z, population, measure, x, se, y, se)."""
    agree = total = 0
    worst = []
    for q in m["populations"]:
        mx = measures(*x[q["name"]], t0, t1, 1)
        my = measures(*y[q["name"]], t0, t1, 1)
        for key in ("rate", "cv", "corr"):
            (u, su), (v, sv) = mx[key], my[key]
            row = dict(population=q["name"], measure=key, a=u, a_se=su, b=v, b_se=sv)
            if rows is not None:
                rows.append(row)
            if not all(np.isfinite([u, su, v, sv])):
                continue
            total += 1
            z = abs(u - v) / max(np.hypot(su, sv), 1e-300)
            row["z"] = float(z)
            if z <= a.k:
                agree += 1
            else:
                worst.append((z, q["name"], key, u, su, v, sv))
    return agree, total, sorted(worst, reverse=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mam", required=True)
    p.add_argument("--bin", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--scale", type=float, default=0.01)
    p.add_argument("--k-scale", type=float)
    p.add_argument("--state", choices=sorted(mam.STATES), default="ground")
    p.add_argument("--time", type=float, default=1000.0)
    p.add_argument("--transient", type=float, default=300.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--k", type=float, default=3.0)
    p.add_argument("--min-agree", type=float, default=0.95)
    p.add_argument("--olive-args", default="")
    p.add_argument("--work", default="multiarea_compare")
    p.add_argument("--no-nest", action="store_true")
    p.add_argument("--baseline", action="store_true",
                   help="NEST once more with rng_seed --seed + 1 (another draw of the network): NEST against NEST's "
                        "agreement beside olive against NEST's, and --min-agree taken as that, less 2 %%")
    p.add_argument("--json", help="write the timings and measures here")
    a = p.parse_args()
    a.timing = {}
    k_scale = a.scale if a.k_scale is None else a.k_scale
    sim_spec = {"t_sim": a.time, "local_num_threads": a.threads, "num_processes": 1, "rng_seed": a.seed}
    M = mam.load_model(a.mam, a.scale, k_scale, a.state, sim_spec=None if a.no_nest else sim_spec)
    m = mam.derive(M)
    ncells = sum(q["count"] for q in m["populations"])
    nsyn = sum(q["total"] for q in m["projections"])
    print(f"multi-area model, {a.state} state, N_scaling {a.scale:g}, K_scaling {k_scale:g}: {ncells} neurons in "
          f"{len(m['populations'])} populations, {nsyn} synapses in {len(m['projections'])} projections; "
          f"{a.time:g} ms, seed {a.seed}")
    olive = olive_run(a, m, os.path.abspath(a.work))
    t = a.timing["olive"]
    print(f"olive: genconn {t['genconn']:.2f} s, set-up {t['setup']:.2f} s, step loop {t['loop']:.2f} s "
          f"(real-time factor {t['loop'] / (a.time * 1e-3):.3g})")
    result = dict(timing=a.timing, scale=a.scale, k_scale=k_scale, state=a.state, time=a.time, neurons=ncells,
                  synapses=nsyn, rows=[])
    t0, t1 = a.transient, a.time
    sides = {"olive": olive}
    if not a.no_nest:
        nest = nest_run(a, M)
        t = a.timing["nest"]
        print(f"NEST {M.simulation.params['local_num_threads']} thread(s): network {t['build']:.2f} s, simulate "
              f"{t['loop']:.2f} s (real-time factor {t['loop'] / (a.time * 1e-3):.3g})")
        sides["nest"] = nest
    for side, sp in sides.items():
        n, r = mean_rate(sp, t0, t1)
        print(f"{side}: mean rate over all {n} neurons after {t0:g} ms: {r:.3f} Hz")
    if a.no_nest:
        if a.json:
            json.dump(result, open(a.json, "w"), indent=1)
        return 0
    agree, total, worst = compare(a, m, olive, nest, t0, t1, result["rows"])
    print("the measures that disagree most, olive against NEST (mean ± SE):")
    for z, name, key, x, sx, y, sy in worst[:12]:
        print(f"  {name:10s} {key:5s} olive {x:.4g} ± {sx:.2g}  NEST {y:.4g} ± {sy:.2g}  z {z:.2f}")
    frac = agree / total if total else 0.0
    need = a.min_agree
    if a.baseline:
        M2 = mam.load_model(a.mam, a.scale, k_scale, a.state, sim_spec=dict(sim_spec, rng_seed=a.seed + 1))
        nest2 = nest_run(a, M2)
        n2, r2 = mean_rate(nest2, t0, t1)
        print(f"nest (rng_seed {a.seed + 1}): mean rate over all {n2} neurons after {t0:g} ms: {r2:.3f} Hz")
        b_agree, b_total, b_worst = compare(a, m, nest2, nest, t0, t1)
        b_frac = b_agree / b_total if b_total else 0.0
        print("the measures that disagree most, NEST (rng_seed + 1) against NEST:")
        for z, name, key, x, sx, y, sy in b_worst[:6]:
            print(f"  {name:10s} {key:5s} NEST' {x:.4g} ± {sx:.2g}  NEST {y:.4g} ± {sy:.2g}  z {z:.2f}")
        print(f"NEST against NEST (another draw): {b_agree} of {b_total} measures agree within {a.k:g} SE "
              f"({100 * b_frac:.1f} %)")
        result["baseline_agree"], result["baseline_total"] = b_agree, b_total
        need = b_frac - 0.02
    print(f"olive against NEST: {agree} of {total} measures agree within {a.k:g} SE ({100 * frac:.1f} %; "
          f"needed {100 * need:.1f} %)")
    result["agree"], result["total"] = agree, total
    if a.json:
        json.dump(result, open(a.json, "w"), indent=1)
    return 0 if frac >= need else 1


if __name__ == "__main__":
    sys.exit(main())

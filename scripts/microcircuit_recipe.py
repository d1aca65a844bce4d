#!/usr/bin/env python3
"""The Potjans & Diesmann (2014) microcircuit, full scale, by the benchmark
recipe of its maintainers (INM-6/microcircuit-PD14-model; Senk et al. 2026):
several network seeds, both drives (Poisson background and its DC mean),
with and without spike recording, the simulation phase timed apart from the
set-up, and the run's statistics checked against NEST's.

    microcircuit_recipe.py --bin BIN --plugin iaf_psc_exp_v0_neuron.so
        [--seeds 10] [--first-seed 1] [--time 10500] [--transient 500]
        [--drives poisson,dc] [--nest-seeds 1] [--nest-threads N]
        [--nest-no-record] [--json OUT.json] [--reuse EARLIER.json]

Run with a python that has numpy and h5py (and nest for the NEST rows:
tests/peer_venv.sh's pins; scripts/gpu-microcircuit-recipe.sh on the GPU
host). olive: for each drive and seed, examples/microcircuit's network
(olive-genconn --procedural: the ~3e8 synapses drawn by olive-simulate at
set-up, on the device), then olive-simulate --backend cuda
--order-free-sums -v twice: with spikes.h5 and with --no-spikes; the two
must give the same spike count and the same state.h5 bit for bit. The
set-up and step-loop times are olive-simulate's own (-v); the real-time
factor is the step loop's wall time over the simulated time (all of
--time: the transient is simulated and timed too, as in the recipe's
T_presim + T_sim). NEST 3.10 runs NEST's own example files
(tests/data/potjans_2014, unchanged but for the scaling, times, threads,
seed, drive and recording devices of its dictionaries) --nest-seeds times
per drive on --nest-threads threads, with spike recorders (and, with
--nest-no-record, once more without).
The accuracy check: per drive, population and measure (the rate, the CV of
ISIs, the spike-count correlation of scripts/microcircuit_nest_compare.py,
after --transient), olive's mean over its networks (SE: their spread /
sqrt(seeds)) against NEST's (its networks' mean and spread where it ran two
or more; with one network, that network's SE across neurons), agreeing when
within 3 combined SEs. Prints the table of timings and the check; exit 1
when a run failed, the two recordings differed, or a measure disagreed.
--reuse EARLIER.json adds an earlier run's networks (its per-network
measures; from a file of 2026-12-03, which kept only its check's rows,
olive's mean and SE over its networks and NEST's one network) to this
run's check: NEST's networks can then be run on other cores than olive's
(--seeds 0), and both checked together.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import microcircuit_nest_compare as cmp  # noqa: E402
mc = cmp.mc


def olive_run(a, net, run, m, seed, poisson, record):
    """(set-up s, loop s, spikes, whole s) of one olive-simulate run."""
    extra = ["-v", "--backend", a.backend, "--order-free-sums", "--model-path", a.plugin] + ([] if record else ["--no-spikes"])
    cmd = [c for c in mc.simulate_cmd(m, net, run, a.time, seed, poisson, a.bin, force=True, extra=extra) if c != "-q"]
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    whole = time.time() - t0
    if r.returncode:
        sys.stderr.write(r.stderr[-3000:])
        raise SystemExit(f"olive-simulate failed (exit {r.returncode}): {' '.join(cmd[:4])} ...")
    t = re.search(r"setup ([0-9.]+) s, exchange ([0-9.]+) s.*compute ([0-9.]+) s", r.stderr)
    n = re.search(r", ([0-9]+) spikes,", r.stdout)
    if not t or not n:
        raise SystemExit(f"olive-simulate's report not understood:\n{r.stdout}\n{r.stderr[-2000:]}")
    return float(t.group(1)), float(t.group(2)) + float(t.group(3)), int(n.group(1)), whole


def same_state(x, y):
    with h5py.File(x, "r") as f, h5py.File(y, "r") as g:
        keys = sorted(f["state"])
        return keys == sorted(g["state"]) and all(np.array_equal(f["state"][k][()], g["state"][k][()]) for k in keys)


def measures_of(spikes, a, seed):
    return [cmp.measures(*p, a.transient, a.time, seed) for p in spikes]


def stats(x):
    x = np.asarray(x, float)
    return float(x.mean()), float(x.std(ddof=1)) if len(x) > 1 else 0.0, float(x.min()), float(x.max())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--time", type=float, default=10500.0, help="ms simulated (default 500 transient + 10 s)")
    p.add_argument("--transient", type=float, default=500.0)
    p.add_argument("--drives", default="poisson,dc")
    p.add_argument("--nest-seeds", type=int, default=1, help="NEST networks per drive (0: no NEST)")
    p.add_argument("--nest-threads", type=int, default=os.cpu_count())
    p.add_argument("--nest-no-record", action="store_true", help="NEST once more per drive without spike recorders")
    p.add_argument("--k", type=float, default=3.0)
    p.add_argument("--scale", type=float, default=1.0, help="N_scaling = K_scaling (default 1: the recipe's full model)")
    p.add_argument("--backend", default="cuda", help="olive-simulate --backend (default cuda)")
    p.add_argument("--json", help="the raw timings and measures")
    p.add_argument("--reuse", action="append", default=[], metavar="JSON",
                   help="the networks' measures of an earlier run of this script (its --json; the same --time and "
                        "--transient), added to this run's for the accuracy check: e.g. olive's networks from the GPU "
                        "host with NEST's run here (--seeds 0); their timings stay in that file")
    a = p.parse_args()
    drives = a.drives.split(",")
    if not set(drives) <= {"poisson", "dc"}:
        p.error("--drives: poisson and/or dc")
    sim_s = a.time / 1000
    raw = dict(time_ms=a.time, transient_ms=a.transient, olive=[], nest=[])
    bad = compared = 0
    meas = {}   # (side, drive) -> [per network: [per population: measures]]
    summary = {}   # drive -> (olive's networks, {(population, measure): (mean, SE)}) from an older --reuse file
    for path in a.reuse:
        with open(path) as f:
            old = json.load(f)
        if old.get("time_ms") != a.time or old.get("transient_ms") != a.transient:
            p.error(f"--reuse {path}: {old.get('time_ms')} ms with a {old.get('transient_ms')} ms transient, "
                    f"not this run's {a.time:g} and {a.transient:g}")
        found = 0
        for key, nets in old.get("measures", {}).items():
            side, drive = key.split(" ")
            if drive in drives:
                meas.setdefault((side, drive), []).extend(nets)
                found += 1
                print(f"reused: {len(nets)} {side} network(s), {drive}, from {path}", flush=True)
        if "measures" not in old:   # (a file of 2026-12-03: its check's rows only)
            for drive in drives:
                rows = [r for r in old.get("accuracy", []) if r["drive"] == drive]
                if not rows:
                    continue
                nets = sum(1 for r in old.get("olive", []) if r["drive"] == drive and r["record"])
                nn = sum(1 for r in old.get("nest", []) if r["drive"] == drive and r["record"])
                if nn != 1 or drive in summary:
                    p.error(f"--reuse {path}: {nn} NEST networks for {drive} and no measures per network"
                            if nn != 1 else f"--reuse {path}: olive's {drive} summary given twice")
                # olive: its networks' mean and SE as that check made them; NEST's one network: its values and SEs
                summary[drive] = (nets, {(r["population"], r["measure"]): (r["olive"], r["olive_se"]) for r in rows})
                net = [{} for _ in mc.POPULATIONS]
                for r in rows:
                    net[mc.POPULATIONS.index(r["population"])][r["measure"]] = [r["nest"], r["nest_se"]]
                meas.setdefault(("nest", drive), []).append(net)
                found += 1
                print(f"reused: olive's mean over {nets} networks and 1 NEST network, {drive}, from {path}", flush=True)
        if not found:
            p.error(f"--reuse {path}: no measures for {a.drives}")
    for drive in drives:
        poisson = drive == "poisson"
        m = mc.derive(a.scale, a.scale, poisson)
        for seed in range(a.first_seed, a.first_seed + a.seeds):
            with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as work:
                net = os.path.join(work, "net.h5")
                t0 = time.time()
                subprocess.run(mc.genconn_cmd(m, a.plugin, net, seed, a.bin, procedural=True), check=True)
                gen = time.time() - t0
                runs = {}
                for record in (True, False):
                    runs[record] = olive_run(a, net, os.path.join(work, f"run{int(record)}"), m, seed, poisson, record)
                    su, lo, n, whole = runs[record]
                    raw["olive"].append(dict(drive=drive, seed=seed, record=record, genconn_s=gen, setup_s=su, loop_s=lo,
                                             rtf=lo / sim_s, spikes=n, whole_s=whole))
                    print(f"olive  {drive:7s} seed {seed:3d} {'spikes' if record else 'none  '}: genconn {gen:5.2f} s, "
                          f"set-up {su:5.2f} s, loop {lo:6.3f} s, RTF {lo / sim_s:.4f}, {n} spikes, whole {whole:5.1f} s",
                          flush=True)
                same = runs[True][2] == runs[False][2] and same_state(os.path.join(work, "run1", "state.h5"),
                                                                     os.path.join(work, "run0", "state.h5"))
                if not same:
                    print(f"FAIL olive {drive} seed {seed}: --no-spikes changed the run")
                    bad += 1
                meas.setdefault(("olive", drive), []).append(measures_of(cmp.olive_spikes(os.path.join(work, "run1")), a, seed))
        for k in range(a.nest_seeds):
            seed = a.first_seed + k
            for record in (True, False) if a.nest_no_record else (True,):
                na = argparse.Namespace(scale=a.scale, k_scale=a.scale, time=a.time, threads=a.nest_threads, seed=seed,
                                        poisson=poisson, record=record, timing={})
                with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as work:
                    spikes = cmp.nest_run(na, work)
                su, lo = na.timing["nest"]
                raw["nest"].append(dict(drive=drive, seed=seed, record=record, setup_s=su, loop_s=lo, rtf=lo / sim_s,
                                        threads=a.nest_threads, spikes=int(sum(len(t) for _, t, _ in spikes))))
                print(f"NEST   {drive:7s} seed {seed:3d} {'spikes' if record else 'none  '}: create + connect {su:6.1f} s, "
                      f"simulate {lo:7.1f} s, RTF {lo / sim_s:.2f} ({a.nest_threads} threads)", flush=True)
                if record:
                    meas.setdefault(("nest", drive), []).append(measures_of(spikes, a, seed))
    print(f"\nreal-time factor of the simulation phase ({a.time:g} ms simulated; set-up apart): mean ± sd (min - max)")
    print(f"{'simulator':24s} {'drive':8s} {'recording':9s} {'networks':>8s} {'set-up s':>14s} {'RTF':>24s}")
    for side in ("olive", "nest"):
        for drive in drives:
            for record in (True, False):
                rows = [r for r in raw[side] if r["drive"] == drive and r["record"] == record]
                if not rows:
                    continue
                su, rt = stats([r["setup_s"] for r in rows]), stats([r["rtf"] for r in rows])
                who = f"olive --backend {a.backend}" if side == "olive" else f"NEST 3.10, {rows[0]['threads']} threads"
                print(f"{who:24s} {drive:8s} {'spikes' if record else 'none':9s} {len(rows):8d} {su[0]:7.2f} ± {su[1]:4.2f} "
                      f"{rt[0]:8.4f} ± {rt[1]:.4f} ({rt[2]:.4f} - {rt[3]:.4f})")
    print(f"\naccuracy: olive's mean over its networks against NEST's, within {a.k:g} combined SE")
    for drive in drives:
        ol, ne, su = meas.get(("olive", drive)), meas.get(("nest", drive)), summary.get(drive)
        if ol and su:
            p.error(f"{drive}: olive's networks both run and reused as a summary")
        if not (ol or su) or not ne:
            continue
        agree = total = 0
        print(f"{drive}: olive {len(ol) if ol else su[0]} networks, NEST {len(ne)}")
        print(f"  {'population':10s} {'measure':6s} {'olive':>18s} {'NEST':>18s} {'|diff|/SE':>9s}")
        for i, name in enumerate(mc.POPULATIONS):
            for key in ("rate", "cv", "corr"):
                if su:
                    xo, so = su[1][(name, key)]
                else:
                    xs = [net[i][key][0] for net in ol]
                    xo = float(np.mean(xs))
                    so = float(np.std(xs, ddof=1) / np.sqrt(len(xs))) if len(xs) > 1 else float("nan")
                if len(ne) > 1:
                    ys = [net[i][key][0] for net in ne]
                    xn, sn = float(np.mean(ys)), float(np.std(ys, ddof=1) / np.sqrt(len(ys)))
                else:
                    xn, sn = ne[0][i][key]
                if not (np.isfinite(so) and np.isfinite(sn)):
                    print(f"  {name:10s} {key:6s} {xo:9.4f} ± {so:6.4f} {xn:9.4f} ± {sn:6.4f} {'':9s} n/a")
                    continue
                z = abs(xo - xn) / np.hypot(so, sn) if np.hypot(so, sn) > 0 else (0.0 if xo == xn else np.inf)
                total += 1
                agree += bool(z <= a.k)
                print(f"  {name:10s} {key:6s} {xo:9.4f} ± {so:6.4f} {xn:9.4f} ± {sn:6.4f} {z:9.2f} "
                      f"{'ok' if z <= a.k else 'DIFFERS'}")
                raw.setdefault("accuracy", []).append(dict(drive=drive, population=name, measure=key, olive=xo,
                                                           olive_se=so, nest=xn, nest_se=sn, z=float(z)))
        print(f"  {agree} of {total} agree within {a.k:g} SE")
        bad += total - agree
        compared += total
    raw["measures"] = {f"{side} {drive}": nets for (side, drive), nets in meas.items()}   # per network, population
    raw["reused"] = a.reuse   # (whose networks' measures are in "measures" too)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(raw, f, indent=1)
    # (a run of olive alone compares nothing: it says so rather than PASS)
    print(f"FAIL ({bad})" if bad else "PASS" if compared else "not checked: no NEST networks to compare with")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Rates of NEST's shipped Brette et al. 2007 benchmarks (cuba.py, coba.py of
pynest/examples/brette_et_al_2007, as installed with PyPI's nest-simulator)
against olive's runs of the same networks.

    nest_brette_compare.py --bin build/bin [--seeds 3] [--cuba-ms 2000] [--coba-ms 1000] [--hh-ms 1000]
                           [--hh-dt 0.01] [--only cuba,coba,hh_coba] [--json FILE]

Run with the python of a venv holding nest-simulator. The parameters are
read from NEST's scripts (their `params` dicts), not copied: iaf_psc_exp
becomes lif_cuba (exact integration; a current weight w pA becomes
w tau_m / C_m mV), iaf_cond_exp becomes lif_coba (exponential Euler; NEST
integrates it with adaptive RK45, so the two differ at the rounding of the
method, not the model), hh_cond_exp_traub (hh_coba.py, benchmark 3) becomes
hh_traub (NEURON's fixed step at --hh-dt: implicit v, exponential Euler
gates; NEST: adaptive RK45; both detect a spike at the peak above
V_T + 30 mV); fixed in-degree int(NE eps) and int(NI eps) from each
population, multapses and autapses allowed (NEST's defaults), the delay, the
Poisson kick into the first Nstim excitatory cells, the initial V_m (the
model's default where the script sets none). Each is run with --seeds
different seeds in NEST (rng_seed) and in olive (--seed), and the mean rate
of the recorded cells (NEST records the first Nrec of each population; olive
counts the same cells) compared: the difference of the means over seeds must
be within 4 standard errors (plus 0.05 Hz for seeds that happen to agree
closely), for the excitatory and the inhibitory population of each network.
Exit 1 when one does not.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def nest_examples():
    import nest
    d = os.path.join(os.path.dirname(nest.__file__), "doc", "examples", "pynest", "brette_et_al_2007")
    if not os.path.exists(os.path.join(d, "cuba.py")):
        sys.exit(f"NEST's brette_et_al_2007 examples are not in {d}")
    return d


NEST_THREADS = 1


def run_nest(module, simtime, seed, workdir):
    import nest
    import brette_et_al_2007_benchmark as bench
    p = dict(module.params)
    p["simtime"] = simtime
    p["virtual_processes"] = NEST_THREADS   # threads: the same model, other random streams
    p["recorder_params"] = dict(p["recorder_params"], label=os.path.join(workdir, f"{module.__name__}-{seed}"))

    class SeededNest:
        """nest for the benchmark module, its ResetKernel followed by our seed
        (nest's own attributes cannot be replaced)."""
        def __getattr__(self, name):
            return getattr(nest, name)

        def ResetKernel(self):
            nest.ResetKernel()
            nest.SetKernelStatus({"rng_seed": seed})
    bench.nest = SeededNest()
    try:
        r = bench.run_simulation(p)
    finally:
        bench.nest = nest
    return r["E_rate"], r["I_rate"], p


def olive_net_args(p, seed):
    import nest
    mp = dict(nest.GetDefaults(p["model"]))
    mp.update(p["model_params"])
    NE, NI, eps = p["NE"], p["NI"], p["epsilon"]
    CE, CI = int(NE * eps), int(NI * eps)
    we, wi = p["E_synapse_params"]["weight"], p["I_synapse_params"]["weight"]
    if p["model"] == "iaf_psc_exp":
        model = "lif_cuba"
        scale = mp["tau_m"] / mp["C_m"]          # pA -> mV of ge / gi
        par = {"E_L": mp["E_L"], "V_th": mp["V_th"], "V_reset": mp["V_reset"], "t_ref": mp["t_ref"],
               "tau_m": mp["tau_m"], "tau_e": mp["tau_syn_ex"], "tau_i": mp["tau_syn_in"], "I_e": mp["I_e"] * scale,
               "v0": mp["V_m"]}
        we, wi = we * scale, wi * scale
    elif p["model"] == "iaf_cond_exp":
        model = "lif_coba"
        par = {"E_L": mp["E_L"], "V_th": mp["V_th"], "V_reset": mp["V_reset"], "t_ref": mp["t_ref"], "C": mp["C_m"],
               "g_L": mp["g_L"], "E_e": mp["E_ex"], "E_i": mp["E_in"], "tau_e": mp["tau_syn_ex"],
               "tau_i": mp["tau_syn_in"], "I_e": mp["I_e"], "v0": mp["V_m"]}
        wi = -wi                                 # NEST: negative weight = the inhibitory receptor
    elif p["model"] == "hh_cond_exp_traub":
        model = "hh_traub"
        par = {k: mp[k] for k in ("g_Na", "g_K", "g_L", "C_m", "E_Na", "E_K", "E_L", "V_T", "t_ref", "I_e")}
        par.update({"E_e": mp["E_ex"], "E_i": mp["E_in"], "tau_e": mp["tau_syn_ex"], "tau_i": mp["tau_syn_in"],
                    "v0": mp["V_m"]})
        wi = -wi
    else:
        sys.exit(f"no olive model for NEST's {p['model']}")
    # hh_traub steps at its own dt (NEST integrates it with adaptive RK45
    # within each of the script's steps); the delays stay in ms.
    dt = p.get("olive_dt", p["dt"])
    args = ["--model", model, "--population", f"exc:{NE}", "--population", f"inh:{NI}", "--dt", str(dt),
            "--seed", str(seed)]
    for k, v in par.items():
        args += ["--param", f"{k}={v!r}"]
    args += ["--projection", f"from=exc,to=all,indegree={CE},weight={we!r},delay={p['delay']!r},receptor=ge",
             "--projection", f"from=inh,to=all,indegree={CI},weight={wi!r},delay={p['delay']!r},receptor=gi"]
    st = p["stimulus_params"]
    sim = ["--poisson", f"rate={st['rate']!r},weight={we!r},receptor=ge,cells=0:{p['Nstim']},"
                        f"time={st['start'] + st.get('origin', 0)!r}:{st['stop'] + st.get('origin', 0)!r}",
           "--seed", str(seed)]
    return args, sim


def run_olive(binpath, p, seed, simtime, workdir):
    import h5py
    net = os.path.join(workdir, f"olive-{p['model']}-{seed}.h5")
    out = os.path.join(workdir, f"olive-{p['model']}-{seed}")
    gargs, sargs = olive_net_args(p, seed)
    subprocess.run([os.path.join(binpath, "olive-genconn"), "-q", "-o", net, "--force"] + gargs, check=True)
    subprocess.run([os.path.join(binpath, "olive-simulate"), "-q", net, "-o", out, "--time", str(simtime),
                    "--record", "none", "--force"] + sargs, check=True)
    with h5py.File(os.path.join(out, "spikes.h5"), "r") as f:   # one population each, node ids local
        exc, inh = f["spikes/exc/node_ids"][:], f["spikes/inh/node_ids"][:]
    n = p["Nrec"]
    e = np.count_nonzero(exc < n) / (n * simtime * 1e-3)
    i = np.count_nonzero(inh < n) / (n * simtime * 1e-3)
    return e, i


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--cuba-ms", type=float, default=None, help="default: the script's simtime")
    ap.add_argument("--coba-ms", type=float, default=None, help="default: the script's simtime")
    ap.add_argument("--hh-ms", type=float, default=None, help="hh_coba; default: the script's simtime")
    ap.add_argument("--hh-dt", type=float, default=0.01, help="olive's step for hh_coba (ms)")
    ap.add_argument("--only", default="cuba,coba,hh_coba", help="which benchmarks (comma-separated)")
    ap.add_argument("--nest-threads", type=int, default=1, help="NEST's virtual processes (threads)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    global NEST_THREADS
    NEST_THREADS = a.nest_threads
    sys.path.insert(0, nest_examples())
    import nest
    nest.set_verbosity("M_ERROR")
    import cuba
    import coba
    import hh_coba
    results, ok = [], True
    runs = [(m, ms) for m, ms in ((cuba, a.cuba_ms), (coba, a.coba_ms), (hh_coba, a.hh_ms))
            if m.__name__ in a.only.split(",")]
    with tempfile.TemporaryDirectory() as work:
        for module, ms in runs:
            T = ms or module.params["simtime"]
            nest_r, olive_r = [], []
            for s in range(1, a.seeds + 1):
                e, i, p = run_nest(module, T, s, work)
                if module is hh_coba:
                    p["olive_dt"] = a.hh_dt
                nest_r.append((e, i))
                olive_r.append(run_olive(a.bin, p, s, T, work))
            nr, orr = np.array(nest_r), np.array(olive_r)
            for k, pop in enumerate(("exc", "inh")):
                se = np.sqrt(nr[:, k].var(ddof=1) / len(nr) + orr[:, k].var(ddof=1) / len(orr))
                diff = abs(nr[:, k].mean() - orr[:, k].mean())
                good = bool(diff <= 4 * se + 0.05)
                ok &= good
                results.append({"benchmark": module.__name__, "population": pop, "time_ms": T, "seeds": a.seeds,
                                "nest_rates_hz": nr[:, k].tolist(), "olive_rates_hz": orr[:, k].tolist(),
                                "nest_mean_hz": float(nr[:, k].mean()), "olive_mean_hz": float(orr[:, k].mean()),
                                "standard_error_hz": float(se), "pass": good})
                print("%-5s %s: NEST %.3f Hz, olive %.3f Hz, difference %.3f Hz, standard error %.3f Hz: %s" % (
                    module.__name__, pop, nr[:, k].mean(), orr[:, k].mean(), diff, se, "agree" if good else "DIFFER"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

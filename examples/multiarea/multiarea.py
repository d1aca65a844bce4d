#!/usr/bin/env python3
"""The multi-area model of macaque visual cortex (Schmidt et al. 2018) for olive.

    multiarea.py --mam CHECKOUT --plugin SO [--scale N] [--k-scale K]
                 [--state ground|metastable] [--dc] [--time MS] [--seed S]
                 [--out DIR] [--bin DIR] [--procedural] [--run]

Derives the model with the model's own code, from the user's checkout of
github.com/INM-6/multi-area-model (its data are CC BY-NC-SA: olive holds no
copy), and prints (or with --run, runs) the olive-genconn and olive-simulate
command lines of the same network NEST's simulation.py would build:

- populations: every area's populations in the model's order (area_list,
  then structure[area]), int(N) cells each (NEST: nest.Create(.., int(N))),
  named AREA_POP (V1_23E); NEST's iaf_psc_exp is NESTML's
  iaf_psc_exp_neuron with its initial V_m a parameter
  (examples/microcircuit/microcircuit.py --make-model), V_m(0) normal
  (V0_mean, V0_sd), I_e the model's add_DC_drive (the DC that keeps the
  mean input when K_scaling < 1; with --dc also the external drive's mean);
- projections: per (target area, target pop, source area, source pop)
  int(synapses) synapses by NEST's fixed_total_number (olive-genconn's
  total_out=: the same law, drawn source by source, so that the CUDA engine
  can draw them at each spike), weights normal(W, W_sd) redrawn outside [0, inf) (excitatory and
  cortico-cortical) or (-inf, 0] (inhibitory, as a magnitude onto the
  inhibitory port), delays normal(d, d * delay_rel) redrawn below dt, d =
  delay_e or delay_i within an area, distance / interarea_speed between
  areas; written one SPEC a line (olive-genconn --projections) and merged
  into one stored projection per receptor (--merge-projections), or kept as
  rules (--procedural);
- background: per cell K_ext Poisson inputs of rate_ext (NEST: one
  poisson_generator of rate_ext * K_ext per population, all_to_all), as
  ceil(K_ext) inputs of rate_ext * K_ext / ceil(K_ext) each (olive's input
  count is whole; the total rate is NEST's), weight W_ext.

--scale and --k-scale are the model's N_scaling and K_scaling (with the
model's own rescaling of weights and DC, which needs the full-scale rates
of the checkout's tests/fullscale_rates.json, as run_example_downscaled.py
uses). --state ground: cc_weights_factor = cc_weights_I_factor = 1
(Schmidt et al. 2018's ground state, run_example_fullscale.py);
metastable: the model's defaults (1.9 and 2.0).

Run it with a Python that has the model's requirements (its
requirements.txt: numpy < 2, scipy, pandas, nested_dict, dicthash; or NumPy 2:
numpy2_names gives the model's code the three names NumPy 2 removed);
default_params.py imports NEST only to tell NEST 2 from 3, so where NEST is
not installed a stand-in module answers "3". The model's code writes its
derived data into the checkout (config_files/, custom_data_files/), as it
does for its own users; the checkout needs its config.py (its README).
Also writes OUT/commands.txt (the two commands) and OUT/populations.json (area, population, olive name, first cell,
count, I_e, K_ext, W_ext) for the analysis.
"""
import argparse
import contextlib
import json
import math
import os
import shlex
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
STATES = {"ground": (1.0, 1.0), "metastable": (1.9, 2.0)}


def numpy2_names():
    """The names NumPy 2 removed that the model's code uses (it was written for numpy < 2, its requirements:
    np.Inf, np.NINF in its simulation.py, np.in1d in its helpers), as the same values and function under their
    old names: where the host's scipy needs NumPy 2 (as on the GPU host) the model's code runs unchanged."""
    import numpy as np
    for old, new in (("Inf", np.inf), ("NINF", -np.inf), ("in1d", np.isin)):
        if not hasattr(np, old):
            setattr(np, old, new)


def load_model(checkout, n_scaling=1.0, k_scaling=1.0, state="ground", sim_spec=None):
    """The model's MultiAreaModel instance, from the checkout's own code
    (with sim_spec: its Simulation too, which needs NEST)."""
    checkout = os.path.abspath(checkout)
    if not os.path.isfile(os.path.join(checkout, "multiarea_model", "multiarea_model.py")):
        sys.exit(f"--mam {checkout}: not a checkout of INM-6/multi-area-model (no multiarea_model/multiarea_model.py)")
    if not os.path.isfile(os.path.join(checkout, "config.py")):
        sys.exit(f"--mam {checkout}: no config.py (the model's README: copy config_template.py to config.py and set "
                 f"base_path to the checkout, data_path to where simulations go)")
    sys.path.insert(0, checkout)
    os.environ.setdefault("PYNEST_QUIET", "1")
    numpy2_names()
    cc, cc_i = STATES[state]
    net = {"N_scaling": n_scaling, "K_scaling": k_scaling,
           "connection_params": {"cc_weights_factor": cc, "cc_weights_I_factor": cc_i}}
    if n_scaling != 1.0 or k_scaling != 1.0:
        net["fullscale_rates"] = os.path.join(checkout, "tests", "fullscale_rates.json")
    with contextlib.redirect_stdout(sys.stderr):   # (the model's own prints: our stdout is the commands)
        try:
            import nest  # noqa: F401  (the model's default_params asks it which NEST it is)
        except ImportError:
            sys.modules["nest"] = types.ModuleType("nest")   # no PrintNetwork: "NEST 3", which olive's network is
        from multiarea_model import MultiAreaModel
        if sim_spec is None:
            return MultiAreaModel(net)
        return MultiAreaModel(net, simulation=True, sim_spec=sim_spec)


def derive(M, dc=False):
    """Populations, projections and inputs of model M, as NEST's
    simulation.py builds them (module docstring)."""
    p = M.params
    neuron = p["neuron_params"]["single_neuron_dict"]
    delay = p["delay_params"]
    dt = 0.1   # the model's sim_params dt; olive-genconn --dt is the plugin's default, 0.1 ms
    rate_ext = p["input_params"]["rate_ext"]
    pops, first = [], 0
    vec = [(a, q) for a in M.area_list for q in M.structure[a]]   # the order of the model's vectors
    for i, (area, pop) in enumerate(vec):
        n = int(M.N[area][pop])
        k_ext = float(M.K[area][pop]["external"]["external"])
        w_ext = float(M.W[area][pop]["external"]["external"])
        i_e = float(M.add_DC_drive[i])
        if dc:
            i_e += k_ext * w_ext * neuron["tau_syn_ex"] * 1e-3 * rate_ext
        pops.append(dict(area=area, pop=pop, name=f"{area}_{pop}", first=first, count=n, I_e=i_e, k_ext=k_ext,
                         w_ext=w_ext))
        first += n
    projections = []
    for ta, tp in vec:
        for sa, sp in vec:
            n = int(M.synapses[ta][tp][sa][sp])
            if n <= 0:
                continue
            w, sd = float(M.W[ta][tp][sa][sp]), float(M.W_sd[ta][tp][sa][sp])
            if ta == sa:
                inhibitory = "I" in sp
                mean_delay = delay["delay_i"] if inhibitory else delay["delay_e"]
            else:
                inhibitory = False
                mean_delay = float(M.distances[ta][sa]) / delay["interarea_speed"]
            if (w < 0) != inhibitory:
                sys.exit(f"{sa} {sp} -> {ta} {tp}: weight {w} pA with NEST's bounds [{'-inf, 0' if inhibitory else '0, inf'}]: "
                         f"its redraws would not end")
            projections.append(dict(source=f"{sa}_{sp}", target=f"{ta}_{tp}", total=n, weight=abs(w), weight_sd=sd,
                                    receptor="inh_spikes" if inhibitory else "exc_spikes", delay=mean_delay,
                                    delay_sd=mean_delay * delay["delay_rel"], delay_min=dt))
    return dict(neuron=neuron, v0=(p["neuron_params"]["V0_mean"], p["neuron_params"]["V0_sd"]), rate_ext=rate_ext,
                populations=pops, projections=projections, dt=dt, dc=dc)


def projection_lines(m):
    """One olive-genconn --projection SPEC per projection."""
    return [f"from={q['source']},to={q['target']},total_out={q['total']},"
            f"weight=normal:{q['weight']:.17g}:{q['weight_sd']:.17g}:0:inf,"
            f"delay=normal:{q['delay']:.17g}:{q['delay_sd']:.17g}:{q['delay_min']:g}:inf,receptor={q['receptor']}"
            for q in m["projections"]]


def genconn_cmd(m, plugin, net, projections_file, seed, olive_bin="", procedural=False):
    n = m["neuron"]
    cmd = [os.path.join(olive_bin, "olive-genconn"), "-q", "-o", net, "--model", plugin, "--seed", str(seed), "--force"]
    cmd += ["--procedural"] if procedural else ["--merge-projections"]
    for q in m["populations"]:
        cmd += ["--population", f"{q['name']}:{q['count']}"]
    for key, val in (("tau_syn_exc", n["tau_syn_ex"]), ("tau_syn_inh", n["tau_syn_in"]), ("E_L", n["E_L"]),
                     ("V_th", n["V_th"]), ("V_reset", n["V_reset"]), ("refr_T", n["t_ref"]), ("C_m", n["C_m"]),
                     ("tau_m", n["tau_m"])):
        cmd += ["--param", f"{key}={val:.17g}"]
    for q in m["populations"]:
        if q["I_e"] != 0:
            cmd += ["--param", f"I_e={q['I_e']:.17g}@{q['name']}"]
    cmd += ["--v0", f"normal:{m['v0'][0]:.17g}:{m['v0'][1]:.17g}", "--projections", projections_file]
    return cmd


def simulate_cmd(m, net, out, time, seed, olive_bin="", extra=()):
    cmd = [os.path.join(olive_bin, "olive-simulate"), "-q", net, "-o", out, "--time", f"{time:g}", "--seed", str(seed),
           "--record", "none", "--force"]
    if not m["dc"]:
        for q in m["populations"]:
            if q["k_ext"] > 0 and q["count"] > 0:
                n = math.ceil(q["k_ext"])
                cmd += ["--poisson", f"rate={m['rate_ext'] * q['k_ext'] / n:.17g},weight={q['w_ext']:.17g},"
                        f"receptor=exc_spikes,n={n},cells={q['first']}:{q['first'] + q['count']}"]
    return cmd + list(extra)


def write_theory(M, path):
    """The model's mean-field rates (Hz) at the end of its integration, per area and population."""
    with contextlib.redirect_stdout(sys.stderr):
        M.init_theory({})
        _, r = M.theory.integrate_siegert()
    vec = [(a, q) for a in M.area_list for q in M.structure[a]]
    out = {a: {} for a in M.area_list}
    for (a, q), x in zip(vec, r[:, -1]):
        out[a][q] = float(x)
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0)
    os.replace(path + ".tmp", path)


def write_files(m, out):
    """OUT/projections.txt and OUT/populations.json; their paths."""
    os.makedirs(out, exist_ok=True)
    proj = os.path.join(out, "projections.txt")
    with open(proj + ".tmp", "w") as f:
        f.write("# multi-area model: one olive-genconn --projection SPEC a line (examples/multiarea/multiarea.py)\n")
        f.write("\n".join(projection_lines(m)) + "\n")
    os.replace(proj + ".tmp", proj)
    pops = os.path.join(out, "populations.json")
    with open(pops + ".tmp", "w") as f:
        json.dump(m["populations"], f, indent=0)
    os.replace(pops + ".tmp", pops)
    return proj, pops


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mam", required=True, help="the user's checkout of INM-6/multi-area-model")
    p.add_argument("--plugin", required=True, help="iaf_psc_exp_v0_neuron's plugin (microcircuit.py --make-model, "
                                                   "olive-model build)")
    p.add_argument("--scale", type=float, default=1.0, help="N_scaling (default 1: the full model)")
    p.add_argument("--k-scale", type=float, help="K_scaling (default: --scale)")
    p.add_argument("--state", choices=sorted(STATES), default="ground")
    p.add_argument("--dc", action="store_true", help="the external drive as its mean DC (the model's poisson_input False)")
    p.add_argument("--time", type=float, default=1000.0, help="ms (default 1000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="multiarea", help="directory of net.h5, run/, projections.txt, populations.json")
    p.add_argument("--bin", default="", help="directory of olive's programs (default: the PATH)")
    p.add_argument("--procedural", action="store_true", help="the projections kept as rules (olive-genconn --procedural)")
    p.add_argument("--run", action="store_true", help="run the commands (default: print them)")
    p.add_argument("--order-free-sums", action="store_true",
                   help="olive-simulate --order-free-sums: the weights rounded to a grid on which every sum is exact, "
                        "so that the GPU adds each event where it is drawn (the full model: 12 s a simulated second "
                        "instead of 26 on an H200; docs/MULTIAREA.md)")
    p.add_argument("--theory", metavar="FILE",
                   help="also write the model's own mean-field rates (its Theory.integrate_siegert) per area and "
                        "population to FILE (JSON), the reference of a full-scale run")
    a = p.parse_args()
    k_scale = a.scale if a.k_scale is None else a.k_scale
    if not (0 < a.scale <= 1 and 0 < k_scale <= 1):
        p.error("--scale and --k-scale must be in (0, 1]")
    M = load_model(a.mam, a.scale, k_scale, a.state)
    m = derive(M, a.dc)
    if a.theory:
        write_theory(M, a.theory)
    proj, _ = write_files(m, a.out)
    net, run = os.path.join(a.out, "net.h5"), os.path.join(a.out, "run")
    cmds = [genconn_cmd(m, a.plugin, net, proj, a.seed, a.bin, a.procedural),
            simulate_cmd(m, net, run, a.time, a.seed, a.bin,
                         extra=["--model-path", a.plugin] + (["--order-free-sums"] if a.order_free_sums else []))]
    with open(os.path.join(a.out, "commands.txt"), "w") as f:
        f.write("".join(" ".join(shlex.quote(x) for x in c) + "\n" for c in cmds))
    for c in cmds:
        if a.run:
            subprocess.run(c, check=True)
        else:
            print(" ".join(shlex.quote(x) for x in c))
    return 0


if __name__ == "__main__":
    sys.exit(main())

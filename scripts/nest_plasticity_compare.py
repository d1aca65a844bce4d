#!/usr/bin/env python3
"""Plastic synapses: olive against NEST 3 on the same network, read by both
from olive's network file.

    nest_plasticity_compare.py --bin BUILD/bin --rule stdp|stdp_nn_symm|tsodyks|tsodyks2|static [--time 1000] [--seed 3]
                               [--ranks 1] [--work DIR] [--json OUT]

Run with the python of a venv holding nest-simulator (pinned; tests/peer_venv.sh).
olive-genconn writes a network of 100 integrate-and-fire cells (80 e, 20 i,
lif_cuba: NEST's iaf_psc_exp with C_m = tau_m, so that a weight or current
is the same number in both) driven by 50 Poisson sources (olive's own
random numbers), with static recurrent synapses and one plastic projection
per rule: stdp or stdp_nn_symm (the sources onto e, additive, and e onto e,
multiplicative), or tsodyks / tsodyks2 (the sources onto e and e onto i). olive-simulate runs it (--ranks ranks under mpirun).
NEST then builds the same network the way its users load connection data:
the sources as parrot neurons, each fed by a spike_generator through a
one-step delay (pyNN.nest's form of a spike source that may drive plastic
synapses: a spike_generator cannot), spiking at olive's source spike times
(olive's spike of step s is stamped (s + 1) dt); the neurons as
iaf_psc_exp with the populations' parameters (lif_cuba holds v one step
less after a spike: olive's t_ref is NEST's + dt); and every projection of
the file through nest.Connect(pre, post, "one_to_one", syn_spec) with the
file's sources, targets, weights and delays (steps x dt) and the projection's
plasticity
parameters under NEST's names (tau_minus on the neurons).
Compared: every neuron's spike steps (identical sets), and every plastic
synapse's final weight (stdp) or final x, y, u (tsodyks; NEST's
GetConnections, matched by (source, target): the p rule draws no multapses)
against olive's state.h5 /state/plastic, to --rtol (1e-12) relative.
Prints a summary; exit 1 on a difference.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

DT = 0.1
NEURON = dict(E_L=-70.0, V_th=-55.0, V_reset=-70.0, t_ref=2.0, tau_m=10.0, tau_e=2.0, tau_i=2.0, I_e=14.0, v0=-70.0)
# lif_cuba holds v for round(t_ref / dt) - 1 steps after the spike's step (Brian2's refractoriness: free again at
# t_spike + t_ref), iaf_psc_exp for t_ref / dt steps: olive's t_ref is NEST's plus one step
OLIVE_T_REF = NEURON["t_ref"] + DT

# per rule: the plastic projections (olive-genconn's --projection), the static ones
RULES = {
    "stdp": dict(
        plastic=["from=inp,to=e,p=0.3,weight=2.0,delay=1.5,receptor=ge,plasticity=stdp,Wmax=6,lambda=0.05,"
                 "alpha=1.05,tau_plus=16.8,tau_minus=33.7,mu_plus=0,mu_minus=0",
                 "from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no,plasticity=stdp,Wmax=3,"
                 "lambda=0.02,alpha=0.9,tau_plus=16.8,tau_minus=33.7,mu_plus=1,mu_minus=1"],
        static=["from=e,to=i,p=0.1,weight=1.0,delay=1.0,receptor=ge"]),
    "stdp_nn_symm": dict(
        plastic=["from=inp,to=e,p=0.3,weight=2.0,delay=1.5,receptor=ge,plasticity=stdp_nn_symm,Wmax=6,lambda=0.05,"
                 "alpha=1.05,tau_plus=16.8,tau_minus=33.7,mu_plus=0,mu_minus=0",
                 "from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no,plasticity=stdp_nn_symm,Wmax=3,"
                 "lambda=0.02,alpha=0.9,tau_plus=16.8,tau_minus=33.7,mu_plus=1,mu_minus=1"],
        static=["from=e,to=i,p=0.1,weight=1.0,delay=1.0,receptor=ge"]),
    # the control: the same network, every synapse static (what the plastic runs change)
    "static": dict(plastic=[], static=["from=inp,to=e,p=0.3,weight=2.0,delay=1.5,receptor=ge",
                                       "from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no",
                                       "from=e,to=i,p=0.1,weight=1.0,delay=1.0,receptor=ge"]),
    "tsodyks": dict(
        plastic=["from=inp,to=e,p=0.3,weight=5.0,delay=1.5,receptor=ge,plasticity=tsodyks,U=0.5,tau_psc=2,"
                 "tau_rec=400,tau_fac=0",
                 "from=e,to=i,p=0.1,weight=3.0,delay=1.0,receptor=ge,plasticity=tsodyks,U=0.1,tau_psc=2,"
                 "tau_rec=100,tau_fac=1000,u=0.1"],
        static=["from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no"]),
    "tsodyks2": dict(
        plastic=["from=inp,to=e,p=0.3,weight=7,delay=1.5,receptor=ge,plasticity=tsodyks2,U=0.5,u=0.5,"
                 "tau_rec=400,tau_fac=0",
                 "from=e,to=i,p=0.1,weight=6,delay=1.0,receptor=ge,plasticity=tsodyks2,U=0.1,u=0.1,"
                 "tau_rec=100,tau_fac=1000"],
        static=["from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no"]),
}
INHIB = ["from=i,to=e,p=0.2,weight=-3.0,delay=0.8,receptor=gi", "from=i,to=i,p=0.2,weight=-3.0,delay=0.8,receptor=gi,autapses=no"]
NEST_PARAMS = {
    "stdp": ("stdp_synapse", ["tau_plus", "lambda", "alpha", "mu_plus", "mu_minus", "Wmax"]),
    "stdp_nn_symm": ("stdp_nn_symm_synapse", ["tau_plus", "lambda", "alpha", "mu_plus", "mu_minus", "Wmax"]),
    "tsodyks": ("tsodyks_synapse", ["U", "tau_psc", "tau_rec", "tau_fac", "x", "y", "u"]),
    "tsodyks2": ("tsodyks2_synapse", ["U", "u", "x", "tau_rec", "tau_fac"]),
}
STATE_VARS = {"stdp": ["weight"], "stdp_nn_symm": ["weight"], "tsodyks": ["x", "y", "u"], "tsodyks2": ["x", "u"]}


def attr_str(v):
    return v.decode() if isinstance(v, (bytes, np.bytes_)) else str(v)


def olive_run(a, work):
    net, out = os.path.join(work, "net.h5"), os.path.join(work, "run")
    cmd = [os.path.join(a.bin, "olive-genconn"), "-q", "-o", net, "--force", "--model", "lif_cuba", "--seed", str(a.seed),
           "--dt", str(DT), "--source-poisson", "inp:50:20:1", "--population", "e:80", "--population", "i:20"]
    for k, v in NEURON.items():
        cmd += ["--param", f"{k}={OLIVE_T_REF if k == 't_ref' else v}"]
    for spec in RULES[a.rule]["plastic"] + RULES[a.rule]["static"] + INHIB:
        cmd += ["--projection", spec]
    subprocess.run(cmd, check=True)
    sim = [os.path.join(a.bin, "olive-simulate"), net, "--time", str(a.time), "-o", out, "--force", "-q", "--backend", "cpu"]
    if a.ranks > 1:
        sim = ["mpirun", "-np", str(a.ranks)] + sim
    subprocess.run(sim, check=True)
    return net, out


def olive_spikes(out):
    """{global cell: sorted spike steps} and the populations' first ids."""
    sp = {}
    with h5py.File(os.path.join(out, "spikes.h5"), "r") as f:
        for pop in f["spikes"]:
            g = f["spikes"][pop]
            first = int(g.attrs["first_cell"])
            for t, i in zip(g["timestamps"][:], g["node_ids"][:]):
                sp.setdefault(first + int(i), []).append(int(round(t / DT)) - 1)
    return {k: sorted(v) for k, v in sp.items()}


def nest_run(a, net, src_spikes):
    import nest
    nest.verbosity = nest.VerbosityLevel.ERROR
    nest.ResetKernel()
    nest.SetKernelStatus({"resolution": DT, "local_num_threads": 1})
    with h5py.File(net, "r") as f:
        pops = {name: (int(g.attrs["first"]), int(g.attrs["count"]), attr_str(g.attrs["model"]))
                for name, g in f["cells/populations"].items()}
        projs = {}
        for name, g in f["synapses"].items():
            rp, col = g["row_ptr"][:], g["col"][:]
            tgt = np.repeat(np.arange(len(rp) - 1), np.diff(rp))
            w = g["weight"][:] if "weight" in g else np.full(len(col), float(g.attrs["weight"]))
            d = g["delay"][:] if "delay" in g else np.full(len(col), int(g.attrs["delay"]))
            pl = attr_str(g.attrs["plasticity"]) if "plasticity" in g.attrs else None
            par = {k[len("plasticity_"):]: float(v) for k, v in g.attrs.items() if k.startswith("plasticity_")}
            projs[name] = (col, tgt, w, d, pl, par)
    count = sum(c for _, c, _ in pops.values())
    # node ids: olive id + 1, created in id order
    sources = []
    for name, (first, cnt, model) in sorted(pops.items(), key=lambda x: x[1][0]):
        if model == "spike_source_poisson":
            gens = nest.Create("parrot_neuron", cnt)
            sources.append((first, gens))
        else:
            gens = nest.Create("iaf_psc_exp", cnt, params=dict(
                E_L=NEURON["E_L"], V_th=NEURON["V_th"], V_reset=NEURON["V_reset"], t_ref=NEURON["t_ref"],
                tau_m=NEURON["tau_m"], C_m=NEURON["tau_m"], tau_syn_ex=NEURON["tau_e"], tau_syn_in=NEURON["tau_i"],
                I_e=NEURON["I_e"], V_m=NEURON["v0"]))
        assert gens.tolist()[0] == first + 1, "NEST's ids are not olive's + 1"
    # a source's spikes: a spike_generator at (s + 1) dt - dt into its parrot (delay dt), which emits at (s + 1) dt
    # (pyNN.nest's form of a spike source with plastic synapses; a spike_generator cannot send through them)
    for first, parrots in sources:
        gens = nest.Create("spike_generator", len(parrots))
        for j, gen in enumerate(gens):
            steps = src_spikes.get(first + j, [])
            assert not steps or steps[0] > 0, "a source spike at step 0 cannot pass a parrot: another --seed"
            gen.set(spike_times=[s * DT for s in steps])
        nest.Connect(gens, parrots, "one_to_one", {"delay": DT})
    tau_minus = {}
    for name, (col, tgt, w, d, pl, par) in projs.items():
        if pl in ("stdp", "stdp_nn_symm"):
            for t in np.unique(tgt):
                tau_minus[int(t)] = par["tau_minus"]
    for t, tm in tau_minus.items():
        nest.NodeCollection([t + 1]).set(tau_minus=tm)
    for name, (col, tgt, w, d, pl, par) in sorted(projs.items()):
        if len(col) == 0:
            continue
        spec = {"weight": w.astype(float), "delay": d.astype(float) * DT}
        if pl:
            model, names = NEST_PARAMS[pl]
            spec["synapse_model"] = model
            for k in names:
                spec[k] = np.full(len(col), par[k])
        else:
            spec["synapse_model"] = "static_synapse"
        nest.Connect((col + 1).tolist(), (tgt + 1).tolist(), "one_to_one", spec)
    neurons = nest.NodeCollection([i + 1 for i in range(count) if any(
        first <= i < first + cnt and model != "spike_source_poisson" for first, cnt, model in pops.values())])
    rec = nest.Create("spike_recorder")
    nest.Connect(neurons, rec)
    nest.Simulate(a.time)
    ev = rec.get("events")
    sp = {}
    for s, t in zip(ev["senders"], ev["times"]):
        sp.setdefault(int(s) - 1, []).append(int(round(t / DT)) - 1)
    conns = {}
    for name, (col, tgt, w, d, pl, par) in projs.items():
        if not pl:
            continue
        c = nest.GetConnections(synapse_model=NEST_PARAMS[pl][0])
        st = c.get(["source", "target"] + STATE_VARS[pl])
        conns[pl] = st
    return {k: sorted(v) for k, v in sp.items()}, projs, conns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rule", choices=sorted(RULES), required=True)
    ap.add_argument("--time", type=float, default=1000.0)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--rtol", type=float, default=1e-12)
    ap.add_argument("--work")
    ap.add_argument("--json")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="olive-plast-")
    os.makedirs(work, exist_ok=True)
    net, out = olive_run(a, work)
    osp = olive_spikes(out)
    nsp, projs, conns = nest_run(a, net, osp)
    with h5py.File(net, "r") as f:
        neuron_ids = [i for name, g in f["cells/populations"].items() if attr_str(g.attrs["model"]) != "spike_source_poisson"
                      for i in range(int(g.attrs["first"]), int(g.attrs["first"]) + int(g.attrs["count"]))]
    differ = [i for i in neuron_ids if osp.get(i, []) != nsp.get(i, [])]
    n_olive = sum(len(osp.get(i, [])) for i in neuron_ids)
    n_nest = sum(len(nsp.get(i, [])) for i in neuron_ids)
    worst, compared, changed = 0.0, 0, 0
    with h5py.File(os.path.join(out, "state.h5"), "r") as f:
        for name, (col, tgt, w, d, pl, par) in projs.items():
            if not pl:
                continue
            g = f["state/plastic"][name]
            st = conns[pl]
            key = {(int(s) - 1, int(t) - 1): j for j, (s, t) in enumerate(zip(st["source"], st["target"]))}
            for var in STATE_VARS[pl]:
                mine = g[var][:]
                theirs = np.array([st[var][key[(int(s), int(t))]] for s, t in zip(col, tgt)])
                rel = np.abs(mine - theirs) / np.maximum(np.abs(theirs), 1e-300)
                rel[(mine == 0) & (theirs == 0)] = 0
                if len(rel) and rel.max() > worst and a.verbose:
                    j = int(np.argmax(rel))
                    print(f"  {name} {var}: largest difference at synapse {j}: olive {mine[j]!r} NEST {theirs[j]!r}")
                worst = max(worst, float(rel.max()) if len(rel) else 0.0)
                compared += len(rel)
                if var == "weight":
                    changed += int(np.sum(mine != w))
                else:
                    changed += int(np.sum(mine != par.get(var, mine)))
    # (the static control compares spikes only)
    ok = not differ and n_olive > 0 and (a.rule == "static" or (worst <= a.rtol and changed > 0))
    print(f"{a.rule}: {len(neuron_ids)} neurons, {a.time:g} ms, olive {n_olive} spikes, NEST {n_nest}; cells whose "
          f"spike steps differ: {len(differ)}; plastic values compared {compared} (changed by the run: {changed}), "
          f"largest relative difference {worst:.3g} (tolerance {a.rtol:g}): {'PASS' if ok else 'FAIL'}")
    if differ:
        i = differ[0]
        print(f"  first differing cell {i}: olive {osp.get(i, [])[:10]} NEST {nsp.get(i, [])[:10]}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dict(rule=a.rule, time_ms=a.time, neurons=len(neuron_ids), olive_spikes=n_olive,
                           nest_spikes=n_nest, cells_differing=len(differ), values=compared, changed=changed,
                           max_rel=worst, rtol=a.rtol, ranks=a.ranks, passed=ok), fh)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

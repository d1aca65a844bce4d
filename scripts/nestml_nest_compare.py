#!/usr/bin/env python3
"""A NESTML model built for olive (olive-model build) against NEST's built-in
model of the same name, on the same input spike trains and current.

    nestml_nest_compare.py --bin BUILD/bin --plugin CACHE/iaf_psc_exp_neuron.so --nest-model iaf_psc_exp
                           [--time 1000] [--cells 10] [--ie PA] [--seed 3] [--tolerance-ms 0]
                           [--max-unmatched 0] [--pulse START:STOP:AMP] [--olive-param NAME=VALUE]

Run with the python of a venv holding nest-simulator (pinned; tests/peer_venv.sh).
olive-genconn writes the network: two populations of Poisson sources (se: 20
cells, si: 10 cells, 40 Hz, olive's own random numbers) and --cells neurons of
the plugin's model, each source projecting onto each neuron with probability
0.5, an excitatory weight (delay 1 ms) onto port exc_spikes and an inhibitory
one (delay 1.5 ms) onto inh_spikes (izhikevich: both onto its one port
spikes, the inhibitory weight negative); every neuron gets I_e = --ie pA.
The weights, I_e (just below the model's rheobase, so the inputs decide the
spikes) and NEST's parameters where its defaults differ from NESTML's are
per model (PRESETS below; iaf_psc_exp: 40 and 60 pA, I_e 360 pA).
--pulse adds a step current: olive-simulate --pulse START:STOP:AMP, NEST a
step_current_generator (amplitude AMP from START to STOP).
olive-simulate runs it; then NEST gets the sources' spike times as
spike_generators (olive's spike of step s is stamped (s + 1) dt, NEST's
spike_generator emits a spike at time t in the step ending at t: the same
step), the same synapses (NEST's inhibitory weight negative: its built-in
models take the sign, NESTML's ports the magnitude), the same I_e, dt =
0.1 ms, and both models' NESTML/NEST parameter defaults. The neurons' spike
times are compared cell by cell as steps (round(t / dt): the two programs
print a step's time with different rounding, 1e-13 ms). Cell by cell, each
olive spike is matched to the nearest unmatched NEST spike within
--tolerance-ms (0 for the exactly integrable models); prints the matched and
unmatched counts and the largest |t_olive - t_NEST| of the matched ones;
exit 1 when more than --max-unmatched spikes (both sides) are unmatched.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

# per NEST model: olive's receptors (exc, inh), weights (exc, inh; in the
# port's unit: pA, nS or mV), I_e (pA) and NEST's parameters where NEST's
# defaults differ from the NESTML model's (docs/MODELS.md)
PRESETS = {
    "iaf_psc_exp": dict(we=40, wi=60, ie=360),
    "iaf_psc_alpha": dict(we=40, wi=60, ie=360),
    "iaf_cond_exp": dict(we=40, wi=60, ie=360),
    "iaf_cond_alpha": dict(we=2, wi=4, ie=300),
    # NEST's aeif t_ref defaults to 0, NESTML's refr_T to 2 ms
    "aeif_cond_exp": dict(we=2, wi=4, ie=700, nest=dict(t_ref=2.0)),
    "hh_psc_alpha": dict(we=100, wi=100, ie=600),
    # NESTML's izhikevich has one signed port; the weights are jumps of V_m (mV)
    "izhikevich": dict(we=2, wi=2, ie=3, receptors=("spikes", "spikes")),
}


def olive_run(a, work):
    net, out = os.path.join(work, "c.h5"), os.path.join(work, "run")
    rexc, rinh = a.receptors
    winh = -a.wi if rinh == rexc else a.wi   # one port: the sign tells
    cmd = [os.path.join(a.bin, "olive-genconn"), "-q", "-o", net, "--model", a.plugin,
           "--source-poisson", "se:20:40", "--source-poisson", "si:10:40", "--population", f"n:{a.cells}",
           "--projection", f"from=se,to=n,p=0.5,weight={a.we},delay=1.0,receptor={rexc}",
           "--projection", f"from=si,to=n,p=0.5,weight={winh},delay=1.5,receptor={rinh}",
           "--param", f"n.I_e={a.ie}", "--seed", str(a.seed)]
    for kv in a.olive_param:
        cmd += ["--param", "n." + kv]
    subprocess.run(cmd, check=True)
    sim = [os.path.join(a.bin, "olive-simulate"), "-q", net, "-o", out, "--time", str(a.time), "--seed", str(a.seed),
           "--model-path", a.plugin]   # (the plugin the user named: a network file names its model, not a path)
    if a.pulse:
        sim += ["--pulse", a.pulse]
    subprocess.run(sim, check=True)
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
                    synapses.append((int(col[k]), tgt, abs(w) if proj == "se_to_n" else -abs(w), d))
    return spikes, synapses


def nest_run(a, spikes, synapses, dt):
    import nest
    nest.set_verbosity("M_ERROR")
    nest.ResetKernel()
    nest.resolution = dt
    first_n, ncell = spikes["n"][0], spikes["n"][1]
    neurons = nest.Create(a.nest_model, ncell, params=dict(a.nest_params, I_e=a.ie))
    gens = {}
    for name in ("se", "si"):
        first, count, t, ids = spikes[name]
        for c in range(count):
            times = np.sort(t[ids == c])
            gens[first + c] = nest.Create("spike_generator", params={"spike_times": times.tolist()})
    for src, tgt, w, d in synapses:
        nest.Connect(gens[src], neurons[tgt - first_n], syn_spec={"weight": w, "delay": d * dt})
    if a.pulse:
        # olive's pulse is on steps round(START/dt) <= i < round(STOP/dt); a
        # step_current_generator's change at time t reaches the neuron
        # through a connection of one step, in the step starting at t + dt
        start, stop, amp = (float(x) for x in a.pulse.split(":")[:3])
        gen = nest.Create("step_current_generator", params={
            "amplitude_times": [round(start / dt) * dt - dt, round(stop / dt) * dt - dt], "amplitude_values": [amp, 0.0]})
        nest.Connect(gen, neurons, syn_spec={"delay": dt})
    rec = nest.Create("spike_recorder")
    nest.Connect(neurons, rec)
    nest.Simulate(a.time)
    ev = rec.events
    return np.asarray(ev["times"]), np.asarray(ev["senders"]) - neurons[0].global_id


def match(x, y, tol):
    """Pairs of steps of two sorted spike trains within tol steps, each
    spike used once, nearest first: (|differences| of the pairs, unmatched
    of x, unmatched of y)."""
    pairs = sorted((abs(int(a) - int(b)), i, j) for i, a in enumerate(x) for j, b in enumerate(y)
                   if abs(int(a) - int(b)) <= tol)
    ux, uy, diffs = set(range(len(x))), set(range(len(y))), []
    for d, i, j in pairs:
        if i in ux and j in uy:
            ux.discard(i)
            uy.discard(j)
            diffs.append(d)
    return diffs, len(ux), len(uy)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--nest-model", required=True)
    p.add_argument("--time", type=float, default=1000)
    p.add_argument("--cells", type=int, default=10)
    p.add_argument("--ie", type=float, help="I_e, pA (default: the model's preset)")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--tolerance-ms", type=float, default=0)
    p.add_argument("--max-unmatched", type=int, default=0, help="spikes (olive's and NEST's) left unmatched allowed")
    p.add_argument("--pulse", metavar="START:STOP:AMP", help="a step current (ms, ms, pA) into every neuron")
    p.add_argument("--olive-param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the olive model (e.g. gsl_abs_error_tol=1e-3); repeatable")
    a = p.parse_args()
    preset = PRESETS.get(a.nest_model, PRESETS["iaf_psc_exp"])
    a.we, a.wi = preset["we"], preset["wi"]
    a.ie = preset["ie"] if a.ie is None else a.ie
    a.receptors = preset.get("receptors", ("exc_spikes", "inh_spikes"))
    a.nest_params = preset.get("nest", {})
    with tempfile.TemporaryDirectory() as work:
        spikes, synapses = olive_run(a, work)
        with h5py.File(os.path.join(work, "run", "spikes.h5"), "r") as f:
            dt = float(f.attrs["dt"])
        nt, nn = nest_run(a, spikes, synapses, dt)
    _, count, ot, on = spikes["n"]
    tol = int(round(a.tolerance_ms / dt))
    worst, matched, un_o, un_n = 0, 0, 0, 0
    for c in range(count):
        x, y = np.sort(np.rint(ot[on == c] / dt)), np.sort(np.rint(nt[nn == c] / dt))
        diffs, ux, uy = match(x, y, tol)
        matched, un_o, un_n = matched + len(diffs), un_o + ux, un_n + uy
        worst = max([worst] + diffs)
        if ux or uy:
            print(f"cell {c}: olive {len(x)} spikes, NEST {len(y)}, {ux} and {uy} unmatched; "
                  f"first olive {x[:5] * dt}, NEST {y[:5] * dt}")
    inputs = sum(len(spikes[s][2]) for s in ("se", "si"))
    ok = un_o + un_n <= a.max_unmatched and worst <= tol
    print(f"{os.path.basename(a.plugin)} vs NEST {a.nest_model}{' with a pulse ' + a.pulse if a.pulse else ''}: "
          f"{inputs} input spikes, {len(synapses)} synapses; olive {len(ot)} spikes, NEST {len(nt)}; "
          f"matched {matched}, unmatched olive {un_o} NEST {un_n}; max |dt| {worst * dt:g} ms "
          f"(tolerance {a.tolerance_ms:g} ms, {a.max_unmatched} unmatched): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

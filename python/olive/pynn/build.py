"""PyNN's network, as olive.write_network's populations and projections and
olive-simulate's --pulse arguments (the unit conversions: standardmodels.py)."""

import warnings

import numpy as np

from olive import initial_values, models

from .digest import digest

_RECEPTOR = {"excitatory": "ge", "inhibitory": "gi"}
_RECEPTOR_TAU = {"excitatory": "tau_e", "inhibitory": "tau_i"}    # a receptor's synaptic time constant
INFOLI_DT = 0.05     # olive-simulate's InfOli step (ms)


def _runs(keys):
    """[(start, stop)] of the runs of equal consecutive keys."""
    out, a = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[a]:
            out.append((a, i))
            a = i
    return out


def _cell_runs(ids, factors):
    """Consecutive cell ids with equal factors, as [(first, last + 1, factor)]."""
    order = np.argsort(ids, kind="stable")
    ids, factors = np.asarray(ids)[order], np.asarray(factors)[order]
    out, a = [], 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[i - 1] + 1 or factors[i] != factors[a]:
            out.append((int(ids[a]), int(ids[i - 1]) + 1, float(factors[a])))
            a = i
    return out


def _projection_parts(q):
    """What a projection's fingerprint covers: its synapses, and their sites where it has them."""
    return [q["name"], q["receptor"], q["source"], q["target"], q["weight"], q["delay_ms"],
            q.get("site_section"), q.get("site_x"), repr(sorted(q.get("plasticity", {}).items()))]


class NetworkSpec:
    def __init__(self):
        self.populations = []
        self.projections = []
        self.pulses = []           # (start, stop, amp, first, last); stop None: to the end
        self.record = []
        self.initial = {}
        self.native = {}
        self.count = 0
        self.infoli = None         # an InfOli network: {"cells", "g_cal", "gap_junctions"}
        self.plastic_maps = []     # (olive projection, PyNN projection index, connections in file order, weight factors)
        self._fingerprint = None

    def fingerprint(self):
        """What one olive run needs unchanged over its whole time (computed once: a NetworkSpec
        is the network as it was when built, and run() may keep it while PyNN's objects change)."""
        if self._fingerprint is None:
            self._fingerprint = self._digest()
        return self._fingerprint

    def _digest(self):
        parts = []
        if self.infoli is not None:
            gj = self.infoli["gap_junctions"]
            parts += [self.infoli["g_cal"], gj["source"], gj["target"], gj["conductance"]]
        for p in self.populations:
            parts.append((p["name"], p["count"], p["model"]))
            for k in sorted(p["params"]):
                parts.append(k)
                parts.append(np.asarray(p["params"][k], dtype=float))
            # spike_times: not part of it: the times up to the last run() are kept (simulator.State.history)
        for q in self.projections:
            parts += _projection_parts(q)
        # pulses: not part of it: those up to the last run() are kept (simulator.State.pulse_history)
        return digest(*parts)

    def structure_fingerprint(self):
        """What a continued run (olive-simulate --restart) needs unchanged: cells, models,
        connections, weights and delays (parameters and currents may change between runs)."""
        parts = []
        if self.infoli is not None:
            return self.fingerprint()      # its g_CaL and conductances are the network's content
        for p in self.populations:
            parts.append((p["name"], p["count"], p["model"]))
        for q in self.projections:
            parts += _projection_parts(q)
        return digest(*parts)

    def native_of_cells(self, ids):
        ids = np.asarray(ids, dtype=int)
        return {k: v[ids] for k, v in self.native.items()}

    def pulses_until(self, tstop):
        out = []
        for start, stop, amp, first, last in self.pulses:
            stop = tstop if stop is None else min(stop, tstop)
            if stop > start and start < tstop:
                out.append((start, stop, amp, first, last))
        return out


def _olive_population(pop, index, dt, t_done, history, tstop, seed):
    """The olive population(s) of one PyNN Population (split where olive takes a parameter per population only)."""
    ct = pop.celltype
    model = ct.olive_model
    known = models.parameters(model)
    n = pop.size
    arrays = {}
    drawn = hasattr(ct, "draw")      # SpikeSourceGamma, SpikeSourcePoissonRefractory
    # the parameters that hold a variable's initial value (v0: v), from PyNN's initialize()
    initial = {param: (var, factor) for var, (param, factor) in ct.initial_parameters.items()}
    for k in known:
        if k in initial:
            var, factor = initial[k]
            if var in pop._initial:
                arrays[k] = np.broadcast_to(np.asarray(pop._initial[var], dtype=float) * factor, (n,))
        elif k in pop._parameters:
            arrays[k] = np.broadcast_to(np.asarray(pop._parameters[k], dtype=float), (n,))
    if "t_ref" in arrays and model.startswith("lif_"):
        # olive's engines hold v at V_reset for t_ref - dt after the step of a spike
        # (Brian2's rule); PyNN's tau_refrac is NEST's: held for tau_refrac after it
        arrays["t_ref"] = arrays["t_ref"] + dt
    spike_times = None
    if model == "spike_source_array":
        spike_times = []
        dropped = 0
        if drawn:
            par = {k: np.broadcast_to(np.asarray(v, dtype=float), (n,)) for k, v in pop._parameters.items()}
            seqs = [ct.draw(pop.first_id + i, {k: v[i] for k, v in par.items()}, tstop, seed) for i in range(n)]
        else:
            seqs = np.broadcast_to(np.asarray(pop._parameters["spike_times"], dtype=object), (n,))
        for i, seq in enumerate(seqs):
            t = np.sort(np.asarray(getattr(seq, "value", seq), dtype=float).ravel())
            # a time between grid points spikes at the next one (as NEST's on-grid
            # spike generators); olive's first possible source spike is at dt
            t = np.ceil(t / dt - 1e-9) * dt
            keep = t >= dt / 2
            dropped += int((~keep).sum())
            t = t[keep]
            cell = pop.first_id + i
            if cell in history:      # what was already simulated stays; the new times act from now on
                t = np.concatenate([history[cell], t[t > t_done + dt / 2]])
            spike_times.append(t)
        if dropped:
            warnings.warn(f"pyNN.olive: {pop.label}: {dropped} spike time(s) at or before 0 dropped "
                          "(olive's first spike of a source is at dt)")
    per_cell = {k for k in arrays if models.per_cell_allowed(model, k)}
    shared = sorted(set(arrays) - per_cell)
    keys = [tuple(float(arrays[k][i]) for k in shared) for i in range(n)]
    runs = _runs(keys) if shared else [(0, n)]
    out = []
    for j, (a, b) in enumerate(runs):
        params = {}
        for k, v in arrays.items():
            v = v[a:b]
            params[k] = float(v[0]) if (k not in per_cell or np.all(v == v[0])) else np.array(v)
        spec = {"name": f"p{index}" if len(runs) == 1 else f"p{index}_{j}", "count": b - a, "model": model,
                "params": params}
        if spike_times is not None:
            spec["spike_times"] = spike_times[a:b]
        if model == "hh_swc":
            spec["morphology"] = ct.morphology
        out.append(spec)
    return out


def build_network(state, tstop):
    """The NetworkSpec of the state's network (tstop: the run's end)."""
    spec = NetworkSpec()
    pops = state.populations
    neuron_models = {p.celltype.olive_model for p in pops if p.celltype.injectable}
    if len(neuron_models) > 1:
        kinds = sorted({type(p.celltype).__name__ for p in pops if p.celltype.injectable})
        raise NotImplementedError(
            f"pyNN.olive: this network mixes the cell types {', '.join(kinds)} (olive models "
            f"{', '.join(sorted(neuron_models))}); olive runs one neuron model per network, "
            "beside any number of spike sources")
    count = state.id_counter
    spec.count = count
    if neuron_models == {"infoli"}:
        return _build_infoli(state, spec, pops, count)
    wf = np.full(count, np.nan)     # olive weight per PyNN weight, per target cell
    cf = np.full(count, np.nan)     # olive current per nA, per cell
    v0 = np.zeros(count)
    for i, p in enumerate(pops):
        spec.populations += _olive_population(p, i, state.dt, state.t, state.history, tstop, state.seed)
        ids = slice(p.first_id, p.first_id + p.size)
        params = {k: np.broadcast_to(np.asarray(v, dtype=object if k == "spike_times" else float), (p.size,))
                  for k, v in p._parameters.items()}
        for k, v in params.items():
            if k == "spike_times":
                continue
            spec.native.setdefault(k, np.full(count, np.nan))[ids] = v
        if p.celltype.injectable:
            wf[ids] = p.celltype.weight_factor(params)
            cf[ids] = p.celltype.current_factor(params)
        if "v" in p._initial:
            v0[ids] = p._initial["v"]
    if not neuron_models:      # olive runs spike sources beside neurons: one idle cell, never recorded
        spec.populations.append({"name": "idle", "count": 1, "model": "lif_cuba",
                                 "params": {"E_L": -65.0, "V_th": -50.0, "v0": -65.0}})
        v0 = np.append(v0, -65.0)
    spec.initial = {"v": v0, "ge": np.zeros(count), "gi": np.zeros(count)}
    for p in pops:   # a plugin's variables (NESTML's V_m, w, ...): the value each starts from
        ct = p.celltype
        pm = models.plugin_of(getattr(ct, "olive_model", None))
        if pm is None:
            continue
        param_names = {n for n, _, _ in pm.params}
        settable = {var: pf for var, pf in ct.initial_parameters.items() if pf[0] in param_names}
        init_of = {n: d for n, _, d in pm.variables}
        ids = slice(p.first_id, p.first_id + p.size)
        # the cells' parameters as the model names them, its defaults where PyNN has none
        native = {n: np.broadcast_to(np.asarray(p._parameters.get(n, d), dtype=float), (p.size,))
                  for n, _, d in pm.params}
        # (PyNN initializes every variable to the cell type's default_initial_values: those pass)
        unset = []
        for k in sorted(set(p._initial) - set(settable)):
            olive_var, factor = ct.variables.get(k, (k, None))
            start = init_of.get(olive_var, np.nan) * (1.0 if factor is None else factor(native))
            if not np.all(np.asarray(p._initial[k], dtype=float) == start):
                unset.append(k)
        if unset:
            raise NotImplementedError(
                f"pyNN.olive: initialize({unset[0]}=...) of {type(ct).__name__}: olive starts a plugin's "
                "variables from its parameters (the model's initial values)" +
                ("".join(f", {param} through initialize({var}=...)" for var, (param, _) in settable.items())) +
                "; set the parameters instead")
        # each variable's value at t = 0 (the first sample): the model's initial value for the cells'
        # own parameters where its descriptor gives the expression (NESTML's V_m = E_L), else the default
        for var, (param, factor) in settable.items():
            if var in p._initial:
                native[param] = np.broadcast_to(np.asarray(p._initial[var], dtype=float) * factor, (p.size,))
        for k, (name, _, init) in enumerate(pm.variables):
            expr = pm.initial[k] if pm.initial else ""
            spec.initial.setdefault(name, np.full(count, np.nan))[ids] = \
                initial_values.evaluate(expr, native) if expr else init

    for k, prj in enumerate(state.projections):
        if not len(prj):
            continue
        pre, post, w, d = prj._arrays()
        src = np.asarray(prj.pre.all_cells, dtype=np.int64)[pre]
        tgt = np.asarray(prj.post.all_cells, dtype=np.int64)[post]
        q = {"name": f"proj{k}", "source": src, "target": tgt, "weight": w * wf[tgt], "delay_ms": np.array(d),
             "receptor": _receptor(prj)}
        if prj.sites is not None:      # keyed by (rng_seed, k, synapse): the same sites for every run()
            q["site_section"], q["site_x"] = prj.sites.draw(state.seed, k, len(src))
            q["sites"] = prj.sites.label
        if getattr(prj, "plastic", False):
            spec.projections += _plastic_groups(spec, k, prj, q, wf)
        else:
            spec.projections.append(q)

    spec.pulses = _current_pulses(state, cf)
    spec.record = _recorded_variables(state)
    delays = [float(np.min(q["delay_ms"])) for q in spec.projections if len(q["delay_ms"])]
    spec.min_delay = min(delays) if delays else None
    spec.fingerprint()
    return spec


def _receptor(prj):
    """olive's receptor of a projection: a standard type's ge/gi, or the spike port its NESTML
    model has for PyNN's receptor type; a plugin's port as PyNN names it."""
    posts = getattr(prj.post, "populations", None) or [prj.post]
    ports = getattr(posts[0].celltype, "receptor_ports", _RECEPTOR)
    return ports.get(prj.receptor_type, prj.receptor_type)


def _plastic_groups(spec, k, prj, q, wf):
    """A plastic projection as olive projections, one per set of rule parameters its connections have
    (olive's are per projection: a TsodyksMarkramSynapse's tau_psc is its target's tau_syn, w_max
    scales with the target's weight factor); spec.plastic_maps gets, per olive projection, its
    connections in the network file's synapse order (by target, then source, stable: the writer's)
    and their weight factors, to read the weights back."""
    data, tgt = prj._data(), q["target"]
    posts = getattr(prj.post, "populations", None) or [prj.post]
    receptor_tau = getattr(posts[0].celltype, "receptor_tau", _RECEPTOR_TAU).get(prj.receptor_type)
    tau = spec.native.get(receptor_tau) if receptor_tau else None
    rules = []
    for i in range(len(tgt)):
        native = {name: float(data[name][i]) for name in prj.synapse_type.get_native_names() if name in data}
        if getattr(prj.synapse_type, "needs_tau_syn", False) and tau is None:
            raise NotImplementedError("pyNN.olive: TsodyksMarkramSynapse onto a cell type without tau_syn_E/tau_syn_I")
        rules.append(prj.synapse_type.olive_plasticity(native, float(wf[tgt[i]]),
                                                       float(tau[tgt[i]]) if tau is not None else None))
    keys = [tuple(sorted(r.items())) for r in rules]
    groups = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    out = []
    for m, (key, members) in enumerate(sorted(groups.items())):
        idx = np.asarray(members, dtype=np.int64)
        name = q["name"] if len(groups) == 1 else f"{q['name']}_{m}"
        g = {kk: (v[idx] if isinstance(v, np.ndarray) and v.shape[:1] == tgt.shape else v) for kk, v in q.items()}
        g["name"], g["plasticity"] = name, dict(key)
        out.append(g)
        order = idx[np.lexsort((g["source"], g["target"]))]
        spec.plastic_maps.append((name, k, order, wf[tgt[order]]))
    return out


def _current_pulses(state, cf):
    """The --pulse tuples of the injected currents (cf: olive current per PyNN current, per cell).
    What acted up to the last run() stays (a change acts from now on, as in NEST)."""
    pulses = list(state.pulse_history)
    t_done = state.t
    for source, cells in state.current_sources:
        cells = np.asarray(cells, dtype=np.int64)
        for start, stop, amp in source.steps():
            stop = stop if stop is not None and stop < 1e11 else None
            if amp == 0 or (stop is not None and stop <= t_done + state.dt / 2):
                continue
            start = max(start, t_done)
            for first, last, f in _cell_runs(cells, cf[cells]):
                pulses.append((start, stop, amp * f, first, last))
    return pulses


def _build_infoli(state, spec, pops, count):
    """An InfOli network: cells, g_cal per cell, gap junctions both ways per ElectricalSynapse connection."""
    if any(not p.celltype.injectable for p in pops):
        raise NotImplementedError("pyNN.olive: an InfOli network has no spike sources (its cells are coupled "
                                  "by gap junctions only)")
    if abs(state.dt - INFOLI_DT) > 1e-12:
        raise NotImplementedError(f"pyNN.olive: InfOli cells run at olive's InfOli step, {INFOLI_DT} ms: "
                                  f"setup(timestep={INFOLI_DT}), not {state.dt}")
    g_cal = np.empty(count)
    for p in pops:
        v = np.broadcast_to(np.asarray(p._initial.get("v", -60.0), dtype=float), (p.size,))
        if np.any(v != -60.0):
            raise NotImplementedError("pyNN.olive: InfOli cells start from -60 mV in every compartment "
                                      "(docs/MODEL.md); initialize(v=...) is not supported for them")
        g_cal[p.first_id:p.first_id + p.size] = np.broadcast_to(np.asarray(p._parameters["g_cal"], dtype=float),
                                                                 (p.size,))
    src, tgt, g = [], [], []
    for prj in state.projections:
        if not len(prj):
            continue
        pre, post, w, _ = prj._arrays()
        a = np.asarray(prj.pre.all_cells, dtype=np.int64)[pre]
        b = np.asarray(prj.post.all_cells, dtype=np.int64)[post]
        if np.any(a == b):
            raise ValueError(f"pyNN.olive: projection {prj.label!r} joins a cell to itself by a gap junction")
        src += [a, b]
        tgt += [b, a]
        g += [w, w]
    cat = (lambda x, t: np.concatenate(x) if x else np.zeros(0, dtype=t))
    src, tgt, g = cat(src, np.int64), cat(tgt, np.int64), cat(g, float)
    # PyNN makes a junction of each connection, so a pair may be joined twice (i -> j and
    # j -> i, or two projections); olive takes one junction per direction: conductances in
    # parallel add (every gap-junction model's current is g times a function of the voltages)
    pairs, inverse = np.unique(tgt * count + src, return_inverse=True)
    summed = np.zeros(len(pairs))
    np.add.at(summed, inverse, g)
    spec.infoli = {"cells": count, "g_cal": g_cal,
                   "gap_junctions": {"source": pairs % count, "target": pairs // count, "conductance": summed}}
    spec.native = {"g_cal": g_cal}
    spec.initial = {v: np.full(count, -60.0) for v in ("v_soma", "v_dend", "v_axon")}
    spec.pulses = _current_pulses(state, np.ones(count))
    spec.record = _recorded_variables(state)
    spec.min_delay = None
    spec.fingerprint()
    return spec


def _recorded_variables(state):
    """olive's names of the variables PyNN records."""
    variables = set()
    for rec in state.recorders:
        ct = rec.population.celltype if hasattr(rec.population, "celltype") else None
        for var in rec.recorded:
            if var.name != "spikes" and rec.recorded[var]:
                cts = [ct] if ct is not None else [p.celltype for p in rec.population.populations]
                for c in cts:
                    if var.name in c.variables:
                        variables.add(c.variables[var.name][0])
    return sorted(variables)

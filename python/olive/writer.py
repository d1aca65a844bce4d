"""Writing network files that olive-simulate runs (docs/FORMAT.md, network file).

write_network takes populations and projections as Python values, checks
them the way olive's readers will (so a mistake is reported here, naming the
population or projection and the entry, rather than later by the
simulator), sorts the synapses into the CSR-by-target layout, and writes the
file atomically (atomic.py).
"""

import numbers
import os
import re

import h5py
import numpy as np

from . import conductance, models, plugin
from .version import __version__
from .atomic import atomic_output
from .network import GapJunctions, Population, Projection

MAX_NAMED = 256          # OLIVE_MAX_POPS: populations, and projections, per file
MAX_NAME_LEN = 63        # OLIVE_NAME_LEN - 1
MAX_CELLS = 2 ** 31 - 1  # int32 cell ids
_NAME = re.compile(r"^[A-Za-z0-9_\-+:]+$")


class _Fault(ValueError):
    pass



def _number_ok(v):
    """olive's one rule for a number (util.h's olive_number_fault): finite and not
    subnormal (nonzero below 2.2e-308 in size, which olive-simulate's command line refuses too)."""
    a = np.asarray(v, dtype=np.float64)
    return np.isfinite(a) & ((a == 0) | (np.abs(a) >= np.finfo(np.float64).tiny))

def _s(text):
    """A fixed-length ASCII string attribute, as olive writes them."""
    return np.bytes_(str(text).encode("ascii", "replace"))


def _check_name(kind, name):
    if not isinstance(name, str) or not name:
        raise _Fault(f"a {kind} needs a non-empty string name, got {name!r}")
    if len(name) > MAX_NAME_LEN or not _NAME.match(name):
        raise _Fault(f"{kind} name {name!r} must be 1..{MAX_NAME_LEN} characters of letters, digits, _ - + :")


def _as_population(p, default_model):
    """(name, count, model, {param: scalar}, {param: array}) from a dict or a Population."""
    if isinstance(p, Population):
        morphology = getattr(p, "morphology", None) or p.attrs.get("morphology")   # read_network keeps it in attrs
        extra = {"morphology": morphology} if morphology else {}
        return p.name, p.count, p.model, dict(p.parameters), dict(p.per_cell), extra
    if not isinstance(p, dict):
        raise _Fault(f"a population must be a dict (name, count, model, params) or an olive.Population, got {type(p).__name__}")
    known = {"name", "count", "model", "params", "morphology", "spike_times"}
    unknown = set(p) - known
    if unknown:
        raise _Fault(f"population {p.get('name')!r}: unknown key(s) {sorted(unknown)} (known: {', '.join(sorted(known))})")
    name, count = p.get("name"), p.get("count")
    model = p.get("model", default_model)
    scalars, arrays = {}, {}
    for k, v in (p.get("params") or {}).items():
        if np.ndim(v) == 0:
            scalars[k] = v
        else:
            arrays[k] = v
    extra = {k: p[k] for k in ("morphology", "spike_times") if k in p}
    return name, count, model, scalars, arrays, extra


def _extra(where, model, count, extra):
    """A population's morphology (hh_swc: the SWC file, stored absolute) and
    spike times (spike_source_array: one sequence of ms per cell, as
    spike_times and spike_times_ptr)."""
    out = {}
    if ("morphology" in extra) != (model == "hh_swc"):
        raise _Fault(f"{where}: a morphology (an SWC file) is given for, and only for, hh_swc populations")
    if "morphology" in extra:
        m = os.path.abspath(os.fspath(extra["morphology"]))
        if not os.path.isfile(m):
            raise _Fault(f"{where}: morphology {m}: no such file")
        out["morphology"] = m
    if ("spike_times" in extra) != (model == "spike_source_array"):
        raise _Fault(f"{where}: spike_times are given for, and only for, spike_source_array populations")
    if "spike_times" in extra:
        trains = list(extra["spike_times"])
        if len(trains) != count:
            raise _Fault(f"{where}: {len(trains)} spike trains for {count} cells")
        ts = [np.asarray(t, dtype=np.float64).ravel() for t in trains]
        for c, t in enumerate(ts):
            if len(t) and (not np.all(np.isfinite(t)) or np.any(np.diff(t) < 0) or t[0] < 0):
                raise _Fault(f"{where}: the spike times of cell {c} must be finite, >= 0 and sorted")
        out["spike_times"] = np.concatenate(ts) if ts else np.zeros(0)
        out["spike_times_ptr"] = np.concatenate([[0], np.cumsum([len(t) for t in ts])]).astype(np.int64)
    return out


def _populations(specs, default_model):
    if isinstance(specs, dict):
        raise _Fault("populations must be a list (their order gives the cell ids), not a dict")
    specs = list(specs)
    pops, first = [], 0
    if not specs:
        raise _Fault("a spiking network needs at least one population")
    if len(specs) > MAX_NAMED:
        raise _Fault(f"{len(specs)} populations; olive reads at most {MAX_NAMED}")
    for spec in specs:
        name, count, model, scalars, arrays, extra = _as_population(spec, default_model)
        _check_name("population", name)
        where = f"population {name!r}"
        if any(q["name"] == name for q in pops):
            raise _Fault(f"{where} is given twice")
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1:
            raise _Fault(f"{where}: count must be a positive integer, got {count!r}")
        if model is None:
            raise _Fault(f"{where}: no model (give model=... to write_network or 'model' in the population)")
        try:
            if plugin.is_plugin_spec(model):   # PATH.so or X.nestml: the plugin's model name
                model = plugin.use(model)
            defaults = models.parameters(model)
        except ValueError as e:
            raise _Fault(f"{where}: {e}") from None
        params, per_cell = {}, {}
        for k, v in scalars.items():
            if k not in defaults:
                raise _Fault(f"{where}: {k!r} is not a parameter of {model} (known: {', '.join(defaults)})")
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not _number_ok(v):
                raise _Fault(f"{where}: parameter {k} = {v!r} is not a finite number (nor subnormal)")
            params[k] = float(v)
        for k, v in arrays.items():
            if k not in defaults:
                raise _Fault(f"{where}: {k!r} is not a parameter of {model} (known: {', '.join(defaults)})")
            if not models.per_cell_allowed(model, k):
                raise _Fault(f"{where}: {model} takes {k} per population only (a scalar), not per cell")
            a = np.asarray(v)
            if a.ndim != 1 or len(a) != count:
                raise _Fault(f"{where}: parameter {k} has shape {a.shape}; per-cell values need {count}")
            if a.dtype.kind not in "iuf":
                raise _Fault(f"{where}: parameter {k} must be numbers, got {a.dtype}")
            a = a.astype(np.float64)
            bad = np.flatnonzero(~_number_ok(a))
            if len(bad):
                raise _Fault(f"{where}: parameter {k}[{bad[0]}] = {a[bad[0]]} is not finite (or is subnormal)")
            per_cell[k] = a
        pops.append({"name": name, "first": first, "count": int(count), "model": model,
                     "params": params, "per_cell": per_cell, **_extra(where, model, int(count), extra)})
        first += int(count)
    if first > MAX_CELLS:
        raise _Fault(f"{first} cells; olive reads at most {MAX_CELLS}")
    return pops, first


def _ids(where, what, values, count):
    a = np.asarray(values)
    if a.ndim != 1:
        raise _Fault(f"{where}: {what} must be a 1-D array of cell ids, has shape {a.shape}")
    if len(a) and a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise _Fault(f"{where}: {what} must hold integer cell ids, got {a.dtype}")
    a = a.astype(np.int64)
    bad = np.flatnonzero((a < 0) | (a >= count))
    if len(bad):
        raise _Fault(f"{where}: {what}[{bad[0]}] = {a[bad[0]]} is not a cell id (the network has {count} cells)")
    return a


def _per_synapse(where, what, values, n):
    """(array[n] float64, is_scalar) from a scalar or an array of n numbers."""
    if np.ndim(values) == 0:
        v = values
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise _Fault(f"{where}: {what} must be a number or an array of numbers, got {v!r}")
        return np.full(n, float(v)), True
    a = np.asarray(values)
    if a.ndim != 1 or len(a) != n:
        raise _Fault(f"{where}: {what} has shape {a.shape}; {n} synapses need {n} values or one")
    if n and a.dtype.kind not in "iuf":
        raise _Fault(f"{where}: {what} must be numbers, got {a.dtype}")
    return a.astype(np.float64), False


MAX_DELAY_STEPS = 65535   # a synapse's delay: uint16 steps in the network file (olive's delay buffer)
MAX_INT64 = 2 ** 63 - 1


def ms_to_steps(ms, dt, what, most=MAX_INT64, rounding="half_up"):
    """Times or delays in ms as whole steps of dt (int64): every such conversion of the package.

    rounding "half_up": half a step up, as olive's llround rounds the values
    it takes (>= 0); "even": numpy.rint (PyNN's nearest step). A value that is
    not finite, is negative, or rounds to more than most steps (what the
    integer of the file or program holds) raises ValueError naming what (e.g.
    "projection 'p': delay_ms") and the entry, with the rounded value.
    """
    a = np.asarray(ms, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):     # inf and nan are refused below
        q = a / dt
        r = np.floor(q) + ((q - np.floor(q)) >= 0.5) if rounding == "half_up" else np.rint(q)
    flat, rflat = a.ravel(), r.ravel()
    bad = np.flatnonzero(~np.isfinite(flat) | (flat < 0) | ~(rflat <= most) | (rflat >= 2.0 ** 63))
    if len(bad):
        i = bad[0]
        name = what if a.ndim == 0 else f"{what}[{i}]"
        v = float(flat[i])
        if not np.isfinite(v):
            fault = "is not finite"
        elif v < 0:
            fault = "is negative"
        else:
            fault = f"rounds to {rflat[i]:.0f} steps of {dt} ms; at most {most} steps fit"
        raise _Fault(f"{name} = {v!r} ms {fault}")
    return r.astype(np.int64)


def delay_steps(delay_ms, dt, what="delay_ms"):
    """Synaptic delays in ms as steps of dt (ms_to_steps, at most MAX_DELAY_STEPS)."""
    return ms_to_steps(delay_ms, dt, what, most=MAX_DELAY_STEPS)


def _projection(spec, count, dt, model_of_cell):
    """The CSR arrays of one projection, checked, from a dict or an olive.Projection."""
    if isinstance(spec, Projection):
        name, receptor = spec.name, spec.receptor
        src, tgt = spec.sources.astype(np.int64), spec.targets
        weight, w_scalar = spec.weight, False
        where = f"projection {name!r}"
        steps = np.asarray(spec.delay_steps) if spec.dt == dt else delay_steps(spec.delay_ms, dt, f"{where}: delay_ms")
        if len(steps) and (steps.dtype.kind not in "iu" or steps.min() < 0 or steps.max() > MAX_DELAY_STEPS):
            raise _Fault(f"{where}: delay_steps must be integers in 0..{MAX_DELAY_STEPS}")
        d_scalar = False
    else:
        if not isinstance(spec, dict):
            raise _Fault(f"a projection must be a dict (name, source, target, weight, delay_ms, receptor) "
                         f"or an olive.Projection, got {type(spec).__name__}")
        required = {"name", "source", "target", "weight", "delay_ms", "receptor"}
        known = required | set(SITE_KEYS) | {"plasticity"}
        unknown = set(spec) - known
        if unknown:
            raise _Fault(f"projection {spec.get('name')!r}: unknown key(s) {sorted(unknown)} (known: {', '.join(sorted(known))})")
        missing = required - set(spec)
        if missing:
            raise _Fault(f"projection {spec.get('name')!r}: missing {', '.join(sorted(missing))}")
        name, receptor = spec["name"], spec["receptor"]
        _check_name("projection", name)
        where = f"projection {name!r}"
        src = _ids(where, "source", spec["source"], count)
        tgt = _ids(where, "target", spec["target"], count)
        if len(src) != len(tgt):
            raise _Fault(f"{where}: {len(src)} sources but {len(tgt)} targets")
        weight, w_scalar = _per_synapse(where, "weight", spec["weight"], len(src))
        dms, d_scalar = _per_synapse(where, "delay_ms", spec["delay_ms"], len(src))
        steps = delay_steps(dms, dt, f"{where}: delay_ms")
        site_sec, site_x, sites = (spec.get(k) for k in SITE_KEYS)
    plasticity = _plasticity(f"projection {name!r}", spec.get("plasticity") if isinstance(spec, dict) else None, weight)
    if isinstance(spec, Projection):
        site_sec, site_x, sites = spec.site_section, spec.site_x, spec.attrs.get("sites")
    _check_name("projection", name)
    where = f"projection {name!r}"
    _check_receptor(where, receptor, tgt, model_of_cell)
    bad = np.flatnonzero(~_number_ok(weight))
    if len(bad):
        raise _Fault(f"{where}: weight[{bad[0]}] = {weight[bad[0]]} is not finite" +
                     ("" if not np.isfinite(weight[bad[0]]) else " (it is subnormal)"))
    if len(tgt):
        into = np.flatnonzero(np.isin(model_of_cell[tgt], list(models.SOURCES)))
        if len(into):
            raise _Fault(f"{where}: synapse {into[0]} targets cell {tgt[into[0]]}, a spike source (it takes no input)")
        conductances = [m for m in set(model_of_cell[tgt]) if models.weights_nonnegative(m)]
        neg = np.flatnonzero((weight < 0) & np.isin(model_of_cell[tgt], conductances))
        if len(neg):
            e = neg[0]
            raise _Fault(f"{where}: weight[{e}] = {weight[e]} onto a {model_of_cell[tgt[e]]} cell is a conductance "
                         "and cannot be negative")
    site = _sites(where, site_sec, site_x, sites, tgt, model_of_cell)
    order = np.lexsort((src, tgt))   # by target, then source; stable: multapses keep their order
    row_ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(tgt, minlength=count), out=row_ptr[1:])
    if site is not None:
        site = (site[0][order], site[1][order], site[2])
    return {"name": name, "receptor": receptor, "row_ptr": row_ptr, "col": src[order].astype(np.int32),
            "weight": weight[order], "w_scalar": w_scalar and len(weight) > 0,
            "delay": steps[order], "d_scalar": d_scalar and len(steps) > 0, "site": site, "plasticity": plasticity}


# olive's plastic synapse rules (docs/MODELS.md "Plastic synapses"): NEST's models, their parameters and defaults
PLASTICITY = {
    "stdp": {"tau_plus": 20.0, "lambda": 0.01, "alpha": 1.0, "mu_plus": 1.0, "mu_minus": 1.0, "Wmax": 100.0,
             "tau_minus": 20.0},
    "tsodyks": {"U": 0.5, "tau_psc": 3.0, "tau_rec": 800.0, "tau_fac": 0.0, "x": 1.0, "y": 0.0, "u": 0.0},
    "tsodyks2": {"U": 0.5, "u": 0.5, "x": 1.0, "tau_rec": 800.0, "tau_fac": 0.0},
}
PLASTICITY["stdp_nn_symm"] = dict(PLASTICITY["stdp"])


def _plasticity(where, spec, weight):
    """A projection's "plasticity": {"rule": stdp|tsodyks|tsodyks2, parameter: value, ...} (NEST's names;
    NEST's defaults for those left out), checked; None: static. olive-simulate checks the values too."""
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("rule") not in PLASTICITY:
        raise _Fault(f"{where}: plasticity must be a dict with rule one of {', '.join(PLASTICITY)}, got {spec!r}")
    params = dict(PLASTICITY[spec["rule"]])
    for k, v in spec.items():
        if k == "rule":
            continue
        if k not in params:
            raise _Fault(f"{where}: {k!r} is not a parameter of plasticity {spec['rule']} ({', '.join(params)})")
        if not np.isfinite(float(v)):
            raise _Fault(f"{where}: plasticity parameter {k} = {v} is not finite")
        params[k] = float(v)
    if spec["rule"] in ("stdp", "stdp_nn_symm") and len(weight) and np.any((np.asarray(weight) >= 0) != (params["Wmax"] >= 0)):
        raise _Fault(f"{where}: the weights and Wmax = {params['Wmax']} must have the same sign (NEST's stdp_synapse)")
    return (spec["rule"], params)


SITE_KEYS = ("site_section", "site_x", "sites")
# the cable models that take sites, with their section count (None: the morphology's)
SITE_MODELS = {"hh_swc": None, "hh_cable": 2}
MAX_SITES_TEXT = 255                            # olive_projection.sites holds 256 bytes


def _sites(where, section, x, text, tgt, model_of_cell):
    """(site_section int32[n], site_x float64[n], sites text) of a projection's synapses
    in the given order, checked as olive-simulate checks them (docs/FORMAT.md "Synapses":
    both arrays or neither, one entry per synapse, x in [0, 1], a section of the target);
    None when it has none. Whether an hh_swc section exists is the morphology's: olive-simulate checks it."""
    if section is None and x is None:
        if text is not None:
            raise _Fault(f"{where}: 'sites' (the rule that drew the sites) needs site_section and site_x")
        return None
    if section is None or x is None:
        raise _Fault(f"{where}: site_section and site_x come together (one gives each synapse's section, "
                     "the other its position on it)")
    n = len(tgt)
    sec, pos = np.asarray(section), np.asarray(x)
    for what, a in (("site_section", sec), ("site_x", pos)):
        if a.ndim != 1 or len(a) != n:
            raise _Fault(f"{where}: {what} has shape {a.shape}; {n} synapses need {n} values")
    if n and (sec.dtype.kind not in "iu" and not (sec.dtype.kind == "f" and np.all(sec == np.round(sec)))):
        raise _Fault(f"{where}: site_section must hold integer section indices, got {sec.dtype}")
    if n and pos.dtype.kind not in "iuf":
        raise _Fault(f"{where}: site_x must be numbers, got {pos.dtype}")
    sec, pos = sec.astype(np.int64), pos.astype(np.float64)
    bad = np.flatnonzero((sec < 0) | (sec > 2 ** 31 - 1))
    if len(bad):
        raise _Fault(f"{where}: site_section[{bad[0]}] = {sec[bad[0]]} is not a section index (0: the soma)")
    bad = np.flatnonzero(~((pos >= 0) & (pos <= 1)))
    if len(bad):
        raise _Fault(f"{where}: site_x[{bad[0]}] = {pos[bad[0]]} is not a position in [0, 1] on the section")
    if n:
        models_hit = model_of_cell[tgt]
        other = np.flatnonzero(~np.isin(models_hit, list(SITE_MODELS)))
        if len(other):
            raise _Fault(f"{where}: synapse {other[0]} has a site but targets a {models_hit[other[0]]} cell "
                         f"(only {' and '.join(SITE_MODELS)} cells have sections)")
        beyond = np.flatnonzero((models_hit == "hh_cable") & (sec >= SITE_MODELS["hh_cable"]))
        if len(beyond):
            raise _Fault(f"{where}: site_section[{beyond[0]}] = {sec[beyond[0]]}: an hh_cable cell has sections "
                         "0 (the soma) and 1 (the dendrite)")
    if text is not None:
        if not isinstance(text, str) or len(text) > MAX_SITES_TEXT or not text.isascii():
            long = isinstance(text, str) and len(text) > 40
            shown = f"{text[:40]!r}... ({len(text)} characters)" if long else repr(text)
            raise _Fault(f"{where}: sites {shown} must be a string of at most {MAX_SITES_TEXT} ASCII characters")
    return sec.astype(np.int32), pos, text


def _check_receptor(where, receptor, tgt, model_of_cell):
    """The receptor is one of every target model's (built-in: ge, gi; a plugin: its
    spike ports); a projection without synapses, one of some neuron model's."""
    hit = set(model_of_cell[tgt]) if len(tgt) else set(model_of_cell) - models.SOURCES
    for m in sorted(hit - models.SOURCES):
        if receptor not in models.receptors(m):
            raise _Fault(f"{where}: receptor {receptor!r} must be one of {', '.join(models.receptors(m))} (model {m})")


def _check_times(pops, dt):
    """The times in ms that olive turns into steps of dt (spike_source_array's spike_times,
    spike_source_poisson's start and its end) fit int64 steps: ms_to_steps refuses the others."""
    for p in pops:
        where = f"population {p['name']!r}"
        if "spike_times" in p:
            ms_to_steps(p["spike_times"], dt, f"{where}: spike_times")
        if p["model"] == "spike_source_poisson":
            start = p["params"].get("start", models.parameters(p["model"])["start"])
            duration = p["params"].get("duration", models.parameters(p["model"])["duration"])
            ms_to_steps(start, dt, f"{where}: start")
            ms_to_steps(start + duration, dt, f"{where}: start + duration")


def _gap_junctions(spec, count):
    """CSR arrays and packed conductances of the gap junctions."""
    if spec is None:
        return np.zeros(count + 1, np.int64), np.zeros(0, np.int32), (0, 0.0, 0.0, None), {}
    if isinstance(spec, GapJunctions):
        src, tgt, w = spec.col.astype(np.int64), spec.targets, spec.conductance
        extra = {k: v for k, v in spec.attrs.items() if k in ("symmetric",)}
    else:
        if not isinstance(spec, dict) or set(spec) - {"source", "target", "conductance"} or \
                not {"source", "target"} <= set(spec):
            raise _Fault("gap_junctions must be a dict with source, target and conductance, or an olive.GapJunctions")
        where = "gap_junctions"
        src = _ids(where, "source", spec["source"], count)
        tgt = _ids(where, "target", spec["target"], count)
        if len(src) != len(tgt):
            raise _Fault(f"{where}: {len(src)} sources but {len(tgt)} targets")
        w, _ = _per_synapse(where, "conductance", spec.get("conductance", 0.04), len(src))
        extra = {}
    where = "gap_junctions"
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise _Fault(f"{where}: conductance[{bad[0]}] = {w[bad[0]]} is negative or not finite")
    self_j = np.flatnonzero(src == tgt)
    if len(self_j):
        raise _Fault(f"{where}: junction {self_j[0]} joins cell {src[self_j[0]]} to itself")
    order = np.lexsort((src, tgt))
    src, tgt, w = src[order], tgt[order], w[order]
    dup = np.flatnonzero((src[1:] == src[:-1]) & (tgt[1:] == tgt[:-1]))
    if len(dup):
        raise _Fault(f"{where}: the junction from cell {src[dup[0]]} into cell {tgt[dup[0]]} is given twice")
    row_ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(tgt, minlength=count), out=row_ptr[1:])
    return row_ptr, src.astype(np.int32), conductance.encode_exact(w), extra


def _write_plugin_attrs(obj, model):
    """A plugin model's hash, as olive-genconn records it (docs/FORMAT.md): a file names
    its model, never the path of its code."""
    pm = models.plugin_of(model)
    if pm is not None:
        obj.attrs["model_hash"] = _s(pm.hash)


def _write(tmp, count, dims, pops, projs, dt, gj, g_cal):
    row_ptr, col, (bits, offset, scale, stored), gj_extra = gj
    with h5py.File(tmp, "w", libver="earliest") as f:
        f.attrs["format"] = _s("olive-network")
        f.attrs["format_version"] = np.int64(1)
        f.attrs["olive_version"] = _s(f"python-olive {__version__}")
        c = f.create_group("cells")
        c.attrs["count"] = np.int64(count)
        c.attrs["dims"] = np.asarray(dims, dtype=np.int64)
        if g_cal is not None:
            c.create_dataset("g_CaL", data=g_cal)
        if pops:   # /cells model: the neurons' (spike sources beside them do not count)
            names = {p["model"] for p in pops if p["model"] not in models.SOURCES}
            if not names:
                raise _Fault("only spike sources: a network needs a population of neurons")
            c.attrs["model"] = _s(names.pop() if len(names) == 1 else "mixed")
            if c.attrs["model"] != b"mixed":
                _write_plugin_attrs(c, c.attrs["model"].decode())
            pg = c.create_group("populations")
            for p in pops:
                g = pg.create_group(p["name"])
                g.attrs["model"] = _s(p["model"])
                _write_plugin_attrs(g, p["model"])
                g.attrs["first"] = np.int64(p["first"])
                g.attrs["count"] = np.int64(p["count"])
                for k, v in p["params"].items():
                    g.attrs[k] = np.float64(v)
                for k, v in p["per_cell"].items():
                    g.create_dataset(k, data=v)
                if "morphology" in p:
                    g.attrs["morphology"] = _s(p["morphology"])
                if "spike_times" in p:
                    g.create_dataset("spike_times", data=p["spike_times"])
                    g.create_dataset("spike_times_ptr", data=p["spike_times_ptr"])
        g = f.create_group("gap_junctions")
        g.create_dataset("row_ptr", data=row_ptr)
        g.create_dataset("col", data=col)
        if stored is not None:
            g.create_dataset("conductance", data=stored)
        g.attrs["bits"] = np.int64(bits)
        g.attrs["offset"] = np.float64(offset)
        g.attrs["scale"] = np.float64(scale)
        g.attrs["generator"] = _s("python" if len(col) else "none")
        g.attrs["command"] = _s("olive.write_network")
        for k, v in gj_extra.items():
            g.attrs[k] = np.int64(v)
        if pops:
            s = f.create_group("synapses")
            s.attrs["dt"] = np.float64(dt)
            for p in projs:
                q = s.create_group(p["name"])
                q.attrs["receptor"] = _s(p["receptor"])
                q.attrs["rule"] = _s("olive.write_network")
                if p["plasticity"] is not None:
                    q.attrs["plasticity"] = _s(p["plasticity"][0])
                    for k, v in p["plasticity"][1].items():
                        q.attrs[f"plasticity_{k}"] = np.float64(v)
                q.create_dataset("row_ptr", data=p["row_ptr"])
                q.create_dataset("col", data=p["col"])
                if p["w_scalar"]:
                    q.attrs["weight"] = np.float64(p["weight"][0])
                else:
                    q.create_dataset("weight", data=p["weight"].astype(np.float64))
                if p["d_scalar"]:
                    q.attrs["delay"] = np.int64(p["delay"][0])
                else:
                    q.create_dataset("delay", data=p["delay"].astype(np.uint16))
                if p["site"] is not None:
                    section, x, text = p["site"]
                    q.create_dataset("site_section", data=section)
                    q.create_dataset("site_x", data=x)
                    if text is not None:
                        q.attrs["sites"] = _s(text)


def write_network(path, populations=None, projections=(), dt=None, *, model=None, cells=None, dims=None,
                  gap_junctions=None, g_cal=None, force=False):
    """Write a network file that olive-simulate runs; return its path.

    A spiking network: populations, a list (the order gives the cell ids) of
    dicts {"name", "count", "model" (or write_network's model=), "params":
    {name: scalar, or an array of count values per cell}} (model: a built-in
    model's name, a plugin's PATH.so, or a NESTML file X.nestml built on the
    fly and cached, docs/MODELS.md) or olive.Population
    objects; projections, a list of dicts {"name", "source", "target",
    "weight", "delay_ms", "receptor"} (source and target arrays of cell ids,
    weight and delay_ms arrays or scalars, receptor "ge" or "gi", or a
    plugin's spike port; "plasticity", optional: {"rule": "stdp", "tsodyks"
    or "tsodyks2", and parameters by NEST's names}; onto
    hh_swc and hh_cable cells optionally "site_section" and "site_x", each
    synapse's section (olive's order, 0 the soma) and position in [0, 1]
    on it, and "sites", the rule that drew them) or olive.Projection
    objects; dt, the step in ms the delays are rounded to
    (default: the model's, 0.1 ms for lif_*).

    An InfOli network (no populations): cells (and dims, default
    [cells, 1, 1]), gap_junctions {"source", "target", "conductance"} (into
    target from source, mS/cm2; stored exactly) and g_cal (per cell).

    The file is written under a temporary name and renamed when complete; an
    existing file is refused unless force=True. Faults in the input raise
    ValueError naming the file, the population or projection, and the entry.
    """
    path = str(path)
    try:
        if populations:
            if gap_junctions is not None:
                raise _Fault("gap junctions couple InfOli cells only: a spiking network cannot have them")
            pops, count = _populations(populations, model)
            if cells is not None and cells != count:
                raise _Fault(f"cells = {cells} but the populations hold {count}")
            if dt is None:
                dts = {models.default_dt(p["model"]) for p in pops if p["model"] not in models.SOURCES} or {0.1}
                dt = min(dts)
            if isinstance(dt, bool) or not isinstance(dt, numbers.Real) or not (0 < dt <= 10):
                raise _Fault(f"dt = {dt!r} ms must be a number in (0, 10]")
            dt = float(dt)
            _check_times(pops, dt)
            model_of_cell = np.empty(count, dtype=object)
            for p in pops:
                model_of_cell[p["first"]:p["first"] + p["count"]] = p["model"]
            if isinstance(projections, dict):
                raise _Fault("projections must be a list of dicts or olive.Projection objects, not a dict")
            projs = [_projection(p, count, dt, model_of_cell) for p in projections]
            if len(projs) > MAX_NAMED:
                raise _Fault(f"{len(projs)} projections; olive reads at most {MAX_NAMED}")
            names = [p["name"] for p in projs]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise _Fault(f"projection {twice[0]!r} is given twice")
            gj = _gap_junctions(None, count)
        else:
            if projections:
                raise _Fault("projections need populations (a spiking network)")
            if cells is None:
                raise _Fault("give populations (a spiking network) or cells (an InfOli network)")
            if isinstance(cells, bool) or not isinstance(cells, numbers.Integral) or not 1 <= cells <= MAX_CELLS:
                raise _Fault(f"cells = {cells!r} must be an integer in 1..{MAX_CELLS}")
            count, pops, projs = int(cells), [], []
            gj = _gap_junctions(gap_junctions, count)
        dims = [count, 1, 1] if dims is None else [int(x) for x in dims] + [1] * (3 - len(dims))
        if len(dims) != 3 or min(dims) < 1 or int(np.prod(dims)) != count:
            raise _Fault(f"dims {dims} must be up to 3 positive numbers multiplying to {count} cells")
        if g_cal is not None:
            if pops:
                raise _Fault("g_cal belongs to InfOli cells; a spiking network has none")
            g_cal = np.broadcast_to(np.asarray(g_cal, dtype=np.float64), (count,)).copy()
            bad = np.flatnonzero(~np.isfinite(g_cal) | (g_cal < 0))
            if len(bad):
                raise _Fault(f"g_cal[{bad[0]}] = {g_cal[bad[0]]} is negative or not finite")
    except _Fault as e:
        raise ValueError(f"{path}: {e}") from None
    with atomic_output(path, force=force) as tmp:
        _write(tmp, count, dims, pops, projs, dt, gj, g_cal)
    return path

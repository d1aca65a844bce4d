"""The cell models olive-simulate knows, with their parameters and defaults.

A copy of common/models/cellmodel.c's tables (docs/FORMAT.md lists the same), kept
here so that write_network can refuse a misspelt parameter before
olive-simulate does, and so that a population read from a file can report
the value of a parameter its file leaves at the default.
"""

INFOLI = "infoli"


def _swc_type_params():
    """hh_swc's biophysics per section type (SWC_TYPE_PARAMS of
    common/models/cellmodel.c): TYPE.Ra ... for soma, axon, dend, apic, custom; hh
    on soma and axon, pas on the rest by default."""
    out = []
    for kind, hh in (("soma", 1.0), ("axon", 1.0), ("dend", 0.0), ("apic", 0.0), ("custom", 0.0)):
        out += [(kind + "." + n, u, d) for n, u, d in (
            ("Ra", "ohm cm", 100.0), ("cm", "uF/cm2", 1.0), ("hh", "1", hh), ("gnabar", "S/cm2", 0.12),
            ("gkbar", "S/cm2", 0.036), ("gl", "S/cm2", 0.0003), ("el", "mV", -54.3), ("ena", "mV", 50.0),
            ("ek", "mV", -77.0), ("pas", "1", 1.0 - hh), ("g_pas", "S/cm2", 1e-4), ("e_pas", "mV", -65.0))]
    return out


# name -> (parameter, unit, default), in the order of common/models/cellmodel.c
_PARAMS = {
    "lif_cuba": [
        ("E_L", "mV", -49.0), ("V_th", "mV", -50.0), ("V_reset", "mV", -60.0), ("t_ref", "ms", 0.0),
        ("tau_m", "ms", 20.0), ("tau_e", "ms", 5.0), ("tau_i", "ms", 10.0), ("I_e", "mV", 0.0),
        ("v0", "mV", -60.0),
    ],
    "lif_coba": [
        ("E_L", "mV", -60.0), ("V_th", "mV", -50.0), ("V_reset", "mV", -60.0), ("t_ref", "ms", 5.0),
        ("C", "pF", 200.0), ("g_L", "nS", 10.0), ("E_e", "mV", 0.0), ("E_i", "mV", -80.0),
        ("tau_e", "ms", 5.0), ("tau_i", "ms", 10.0), ("I_e", "pA", 0.0), ("v0", "mV", -60.0),
    ],
    "hh_traub": [
        ("g_Na", "nS", 20000.0), ("g_K", "nS", 6000.0), ("g_L", "nS", 10.0), ("C_m", "pF", 200.0),
        ("E_Na", "mV", 50.0), ("E_K", "mV", -90.0), ("E_L", "mV", -60.0), ("V_T", "mV", -63.0),
        ("E_e", "mV", 0.0), ("E_i", "mV", -80.0), ("tau_e", "ms", 5.0), ("tau_i", "ms", 10.0),
        ("t_ref", "ms", 2.0), ("I_e", "pA", 0.0), ("area", "um2", 20000.0), ("v0", "mV", -60.0),
    ],
    "hh_cable": [
        ("soma_L", "um", 20.0), ("soma_diam", "um", 20.0), ("soma_Ra", "ohm cm", 35.4),
        ("dend_L", "um", 200.0), ("dend_diam", "um", 1.0), ("dend_nseg", "1", 5.0), ("dend_Ra", "ohm cm", 100.0),
        ("cm", "uF/cm2", 1.0), ("gnabar", "S/cm2", 0.12), ("gkbar", "S/cm2", 0.036), ("gl", "S/cm2", 0.0003),
        ("el", "mV", -54.3), ("ena", "mV", 50.0), ("ek", "mV", -77.0), ("g_pas", "S/cm2", 0.001),
        ("e_pas", "mV", -65.0), ("celsius", "degC", 6.3), ("syn_x", "1", 0.5), ("tau_e", "ms", 2.0),
        ("E_e", "mV", 0.0), ("tau_i", "ms", 5.0), ("E_i", "mV", -80.0), ("V_th", "mV", 10.0),
        ("I_e", "nA", 0.0), ("v0", "mV", -65.0), ("hh_tables", "1", 1.0),
        ("tau_rise_e", "ms", 0.0), ("tau_rise_i", "ms", 0.0),
    ],
    "hh_swc": [
        ("seg_length", "um", 20.0), ("celsius", "degC", 6.3), ("syn_sec", "1", 0.0), ("syn_x", "1", 0.5),
        ("tau_e", "ms", 2.0), ("E_e", "mV", 0.0), ("tau_i", "ms", 5.0), ("E_i", "mV", -80.0), ("V_th", "mV", 10.0),
        ("I_e", "nA", 0.0), ("v0", "mV", -65.0), ("d_lambda", "1", 0.1), ("d_lambda_freq", "Hz", 100.0),
        ("hh_tables", "1", 1.0),
    ] + _swc_type_params() + [("tau_rise_e", "ms", 0.0), ("tau_rise_i", "ms", 0.0)],
    # lif_cuba_alpha, lif_coba_alpha: the same parameters (below)
    # spike sources: populations beside a network's neurons (their spike times
    # for spike_source_array: datasets spike_times and spike_times_ptr)
    "spike_source_poisson": [("rate", "Hz", 1.0), ("start", "ms", 0.0), ("duration", "ms", 1e10)],
    "spike_source_array": [],
}

# the alpha-synapse forms (NEST's iaf_psc_alpha, iaf_cond_alpha) take the parameters of
# their exponential forms, in common/models/cellmodel.c's order after lif_coba
_ordered = list(_PARAMS.items())
_ordered[2:2] = [("lif_cuba_alpha", _PARAMS["lif_cuba"]), ("lif_coba_alpha", _PARAMS["lif_coba"])]
_PARAMS = dict(_ordered)

# Spike sources: no neuron of theirs, no synapses into them.
SOURCES = frozenset({"spike_source_poisson", "spike_source_array"})

# Parameters that may be given per cell (a dataset beside the attribute).
# hh_cable builds one cable per population, so only its v0 may vary per cell.
_PER_CELL = {"hh_traub": {"v0"}, "hh_cable": {"v0"}, "hh_swc": {"v0"}, "spike_source_poisson": set(),
             "spike_source_array": set()}

# The default time step (ms) olive-genconn writes for each model.
DEFAULT_DT = {"lif_cuba": 0.1, "lif_coba": 0.1, "lif_cuba_alpha": 0.1, "lif_coba_alpha": 0.1, "hh_traub": 0.01,
              "hh_cable": 0.025, "hh_swc": 0.025}

# The receptors a synaptic event can add to.
RECEPTORS = ("ge", "gi")

# Models whose weights are conductances and therefore may not be negative.
NONNEGATIVE_WEIGHTS = {"lif_coba", "lif_coba_alpha", "hh_traub", "hh_cable", "hh_swc"}

SPIKING_MODELS = tuple(_PARAMS)


# Plugin models this process has loaded (olive.plugin), by model name: they take
# their parameters, receptors, default dt and weight sign from their descriptor.
_PLUGINS = {}


def register(pm):
    """Registers plugin model pm (an olive.plugin.PluginModel); returns its name."""
    if pm.name in _PARAMS or pm.name == INFOLI:
        raise ValueError(f"{pm.path}: model name {pm.name!r} is a built-in model's (rename the model)")
    old = _PLUGINS.get(pm.name)
    if old is not None and old.path != pm.path:
        raise ValueError(f"{pm.path}: model {pm.name} is also loaded from {old.path}")
    _PLUGINS[pm.name] = pm
    return pm.name


def plugin_files_for(network):
    """The .so files of the plugins this process registered (write_network's, use_plugin's)
    that network names by model and hash: olive-simulate's --model-path for them, so that a
    network written from Python runs without the user saying again where its model is."""
    if not _PLUGINS:
        return []
    import h5py
    out = []
    try:
        with h5py.File(network, "r") as f:
            pops = f["cells/populations"] if "cells/populations" in f else {}
            for name in pops:
                a = pops[name].attrs
                m, h = a.get("model", b""), a.get("model_hash", b"")
                m, h = (v.decode() if isinstance(v, bytes) else str(v) for v in (m, h))
                pm = _PLUGINS.get(m)
                if pm is not None and pm.hash == h and pm.path not in out:
                    out.append(pm.path)
    except (OSError, KeyError):
        return []   # (olive-simulate names the fault of the file)
    return out


def plugin_of(model):
    """The olive.plugin.PluginModel of a registered plugin model, None for a built-in one."""
    return _PLUGINS.get(model)


def known_models():
    """The spiking models olive-simulate runs, as a tuple of names."""
    return SPIKING_MODELS


def _table(model):
    """[(parameter, unit, default)] of a built-in or registered plugin model."""
    if model in _PARAMS:
        return _PARAMS[model]
    if model in _PLUGINS:
        return list(_PLUGINS[model].params)
    raise ValueError(f"unknown model {model!r} (known: {', '.join(SPIKING_MODELS + tuple(_PLUGINS))}; "
                     "a plugin: its PATH.so or a NESTML file)")


def parameters(model):
    """{name: default} of a spiking model, in olive's order.

    Raises ValueError naming the known models for an unknown one.
    """
    return {name: default for name, _, default in _table(model)}


def units(model):
    """{parameter: unit} of a spiking model."""
    return {name: unit for name, unit, _ in _table(model)}


def receptors(model):
    """The receptor names projections onto a model's cells take."""
    return _PLUGINS[model].receptors if model in _PLUGINS else RECEPTORS


def default_dt(model):
    """The time step (ms) olive-genconn writes for a model."""
    return _PLUGINS[model].dt_default if model in _PLUGINS else DEFAULT_DT[model]


def weights_nonnegative(model):
    """True when the model's weights are conductances (a negative one is a fault)."""
    return _PLUGINS[model].weights_nonnegative if model in _PLUGINS else model in NONNEGATIVE_WEIGHTS


def per_cell_allowed(model, name):
    """True when the parameter may be stored per cell for this model."""
    allowed = _PER_CELL.get(model)
    return allowed is None or name in allowed

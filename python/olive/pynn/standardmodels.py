"""PyNN's standard cell, synapse and current-source types, as olive models.

Each cell type names its olive model (olive_model) and translates PyNN's
parameters (mV, ms, nF, nA, uS) to olive's (docs/FORMAT.md):

* IF_curr_exp -> lif_cuba: olive's ge/gi and I_e are in mV (the current
  times the membrane resistance tau_m/cm), so a weight or current of w nA
  becomes w*tau_m/cm mV.
* IF_cond_exp -> lif_coba: C pF = 1000 cm, g_L nS = 1000 cm/tau_m,
  weights uS -> nS (x1000), I_e pA = 1000 i_offset.
* IF_curr_alpha -> lif_cuba_alpha, IF_cond_alpha -> lif_coba_alpha (NEST's
  iaf_psc_alpha, iaf_cond_alpha): as their exponential forms; a weight is
  the alpha function's peak.
* HH_cond_exp -> hh_traub (both are the Traub-Miles model of NEST's
  hh_cond_exp_traub): conductances uS -> nS, cm nF -> C_m pF, v_offset ->
  V_T, currents nA -> pA.
* SpikeSourcePoisson -> spike_source_poisson, SpikeSourceArray ->
  spike_source_array.
* InfOli (olive's own cell type) -> infoli, with ElectricalSynapse
  projections as its gap junctions (olive's units: mS/cm2, uA/cm2).
* HHBallAndStick -> hh_cable, HHSwcCell -> hh_swc (olive's own cable cell
  types, NEURON's units: weights uS, currents nA): the parameters are
  olive's, a '.' written '_' (dend_g_pas is hh_swc's dend.g_pas).
"""

import os

import numpy as np

from pyNN.parameters import ParameterSpace, Sequence
from pyNN.standardmodels import StandardCellType, cells, synapses, electrodes, build_translations

from olive import models, plugin
from olive.writer import ms_to_steps

from .simulator import state


class _OliveCell:
    """What the network builder needs of a cell type besides the translations."""
    olive_model = None
    # PyNN variable -> (olive report variable, PyNN value = olive value * factor(native params))
    variables = {}
    # PyNN variable -> (the model's parameter holding its initial value, its unit per PyNN's)
    initial_parameters = {"v": ("v0", 1.0)}

    @staticmethod
    def weight_factor(p):
        """olive weight per PyNN weight, per cell (p: native parameters as arrays)."""
        raise NotImplementedError

    current_factor = weight_factor


def _one_over_thousand(p):
    return 1e-3


def _thousand(p):
    return 1000.0


class IF_curr_exp(_OliveCell, cells.IF_curr_exp):
    __doc__ = cells.IF_curr_exp.__doc__
    olive_model = "lif_cuba"
    translations = build_translations(
        ('tau_m', 'tau_m'),
        ('cm', 'cm'),                      # not olive's: kept to convert currents
        ('v_rest', 'E_L'),
        ('v_thresh', 'V_th'),
        ('v_reset', 'V_reset'),
        ('tau_refrac', 't_ref'),
        ('i_offset', 'I_e', 'i_offset*tau_m/cm', 'I_e*cm/tau_m'),
        ('tau_syn_E', 'tau_e'),
        ('tau_syn_I', 'tau_i'),
    )
    variables = {"v": ("v", None)}

    @staticmethod
    def weight_factor(p):
        return np.asarray(p["tau_m"], dtype=float) / np.asarray(p["cm"], dtype=float)

    current_factor = weight_factor


class IF_curr_alpha(_OliveCell, cells.IF_curr_alpha):
    __doc__ = cells.IF_curr_alpha.__doc__
    olive_model = "lif_cuba_alpha"
    translations = IF_curr_exp.translations
    variables = {"v": ("v", None)}
    weight_factor = staticmethod(IF_curr_exp.weight_factor)
    current_factor = staticmethod(IF_curr_exp.current_factor)


class IF_cond_exp(_OliveCell, cells.IF_cond_exp):
    __doc__ = cells.IF_cond_exp.__doc__
    olive_model = "lif_coba"
    translations = build_translations(
        ('v_rest', 'E_L'),
        ('cm', 'C', 1000.0),
        ('tau_m', 'g_L', '1000.0*cm/tau_m', 'C/g_L'),
        ('v_thresh', 'V_th'),
        ('v_reset', 'V_reset'),
        ('tau_refrac', 't_ref'),
        ('i_offset', 'I_e', 1000.0),
        ('tau_syn_E', 'tau_e'),
        ('tau_syn_I', 'tau_i'),
        ('e_rev_E', 'E_e'),
        ('e_rev_I', 'E_i'),
    )
    variables = {"v": ("v", None), "gsyn_exc": ("ge", _one_over_thousand), "gsyn_inh": ("gi", _one_over_thousand)}
    weight_factor = staticmethod(_thousand)
    current_factor = staticmethod(_thousand)


class IF_cond_alpha(_OliveCell, cells.IF_cond_alpha):
    __doc__ = cells.IF_cond_alpha.__doc__
    olive_model = "lif_coba_alpha"
    translations = IF_cond_exp.translations
    variables = IF_cond_exp.variables
    weight_factor = staticmethod(_thousand)
    current_factor = staticmethod(_thousand)


class HH_cond_exp(_OliveCell, cells.HH_cond_exp):
    __doc__ = cells.HH_cond_exp.__doc__
    olive_model = "hh_traub"
    translations = build_translations(
        ('gbar_Na', 'g_Na', 1000.0),
        ('gbar_K', 'g_K', 1000.0),
        ('g_leak', 'g_L', 1000.0),
        ('cm', 'C_m', 1000.0),
        ('v_offset', 'V_T'),
        ('e_rev_Na', 'E_Na'),
        ('e_rev_K', 'E_K'),
        ('e_rev_leak', 'E_L'),
        ('e_rev_E', 'E_e'),
        ('e_rev_I', 'E_i'),
        ('tau_syn_E', 'tau_e'),
        ('tau_syn_I', 'tau_i'),
        ('i_offset', 'I_e', 1000.0),
    )
    variables = {"v": ("v", None), "gsyn_exc": ("ge", _one_over_thousand), "gsyn_inh": ("gi", _one_over_thousand)}
    weight_factor = staticmethod(_thousand)
    current_factor = staticmethod(_thousand)


class InfOli(_OliveCell, StandardCellType):
    """The inferior-olive cell olive was built for (docs/MODEL.md: the
    three-compartment model of De Gruijl et al. 2012 as the InfOli code runs
    it), coupled by gap junctions: Projection(..., ElectricalSynapse(weight=g),
    receptor_type="gap") with g the junction's conductance in mS/cm2.

    Its units are olive's, per membrane area: injected currents (DCSource,
    StepCurrentSource) in uA/cm2 into the dendrite, as olive-simulate --pulse;
    g_cal, the soma's low-threshold calcium conductance, in mS/cm2. It runs
    at olive's InfOli step, 0.05 ms, from -60 mV in every compartment.
    Recordable: spikes (upward crossings of 0 mV at the axon), v (the soma),
    v_dend, v_axon.
    """
    olive_model = "infoli"
    default_parameters = {"g_cal": 0.68}
    recordable = ["spikes", "v", "v_dend", "v_axon"]
    default_initial_values = {"v": -60.0}
    units = {"v": "mV", "v_dend": "mV", "v_axon": "mV", "g_cal": "mS/cm2"}
    receptor_types = ("gap",)
    conductance_based = True          # gap conductances must not be negative
    translations = build_translations(('g_cal', 'g_cal'))
    variables = {"v": ("v_soma", None), "v_dend": ("v_dend", None), "v_axon": ("v_axon", None)}

    @staticmethod
    def weight_factor(p):
        return 1.0

    current_factor = weight_factor


def _renamed(name):
    """A translation that takes the parameter called name as it is (PyNN evaluates a string
    transform as an expression, and olive's names such as dend.g_pas are not identifiers)."""
    def value(**parameters):
        return parameters[name]
    return value


def _unit(p):
    return 1.0


class _CableCell(_OliveCell, StandardCellType):
    """A cable cell of olive (common/models/cable_model.c), in NEURON's units: its parameters are
    the olive model's (docs/FORMAT.md "Hodgkin-Huxley cells") with '.' written '_', its
    weights uS (NEURON's ExpSyn weight), its currents nA into the soma (an IClamp)."""
    recordable = ["spikes", "v", "gsyn_exc", "gsyn_inh"]
    default_initial_values = {"v": -65.0}
    receptor_types = ("excitatory", "inhibitory")
    conductance_based = True
    variables = {"v": ("v", None), "gsyn_exc": ("ge", None), "gsyn_inh": ("gi", None)}
    weight_factor = staticmethod(_unit)
    current_factor = staticmethod(_unit)


def _cable_type(name, model, doc, base=_CableCell):
    """The PyNN cell type of an olive cable model: every parameter of the model but v0 (the
    initial value of v), named as olive names it with '.' -> '_'."""
    defaults, units = models.parameters(model), models.units(model)
    pairs = [(k.replace(".", "_"), k) for k in defaults if k != "v0"]
    attrs = {"__doc__": doc, "olive_model": model,
             "default_parameters": {p: defaults[k] for p, k in pairs},
             "units": {**{p: units[k] for p, k in pairs}, "v": "mV", "gsyn_exc": "uS", "gsyn_inh": "uS"},
             "translations": build_translations(*[(p, k) if p == k else (p, k, _renamed(p), _renamed(k))
                                                  for p, k in pairs])}
    return type(name, (base,), attrs)


HHBallAndStick = _cable_type("HHBallAndStick", "hh_cable", """NEURON's ball-and-stick cell as olive's hh_cable
    runs it (docs/FORMAT.md): a soma cylinder with hh, a passive dendrite of dend_nseg
    segments, the synapses at dend(syn_x) (ExpSyn; Exp2Syn for synapses at sites when
    tau_rise_e / tau_rise_i > 0). Parameters are hh_cable's (soma_L, dend_Ra, gnabar, g_pas,
    tau_e, E_e, I_e nA, V_th: the NetCon threshold at the soma, ...); weights in uS.""")


class _SwcCell(_CableCell):
    def __init__(self, morphology=None, **parameters):
        if morphology is None:
            raise ValueError("HHSwcCell needs morphology=FILE, the SWC file of its cells")
        path = os.path.abspath(os.fspath(morphology))
        if not os.path.isfile(path):
            raise ValueError(f"HHSwcCell: morphology {path}: no such file")
        self.morphology = path
        _CableCell.__init__(self, **parameters)


HHSwcCell = _cable_type("HHSwcCell", "hh_swc", """A cell of an SWC reconstruction as olive's hh_swc runs
    it (docs/FORMAT.md "Morphologies"): HHSwcCell(morphology="cell.swc", ...), the file read
    as NEURON's Import3d reads it. The biophysics per section type TYPE (soma, axon, dend,
    apic, custom) are hh_swc's TYPE.FIELD parameters written TYPE_FIELD: soma_Ra, dend_cm,
    apic_hh (1: insert hh), dend_gnabar, axon_pas (1: insert pas), dend_g_pas, custom_e_pas,
    ...; besides seg_length (0: NEURON's d_lambda rule), d_lambda, d_lambda_freq, celsius,
    hh_tables, syn_sec, syn_x, tau_e, E_e, tau_i, E_i, tau_rise_e, tau_rise_i, V_th, I_e (nA).
    Weights in uS.""", base=_SwcCell)


class SpikeSourcePoisson(_OliveCell, cells.SpikeSourcePoisson):
    __doc__ = cells.SpikeSourcePoisson.__doc__
    olive_model = "spike_source_poisson"
    translations = build_translations(
        ('rate', 'rate'),
        ('start', 'start'),
        ('duration', 'duration'),
    )


class _DrawnSource(_OliveCell):
    """A renewal-process source whose spike times pyNN.olive draws (numpy, one stream per
    cell from setup()'s rng_seed and the cell's id; the same times for every run() of a
    segment) and hands to olive as a spike_source_array; between grid points a time goes
    to the next grid point, as an array's."""
    olive_model = "spike_source_array"
    translations = None      # set by the subclasses
    CHUNK = 1024             # intervals drawn at a time: the times up to t do not depend on t

    def intervals(self, rng, params, n):
        raise NotImplementedError

    def draw(self, cell, params, tstop, seed):
        """The spike times (ms) of one cell in (start, min(start + duration, tstop)]."""
        start = float(params["start"])
        stop = min(start + float(params["duration"]), tstop)
        rng = np.random.default_rng([seed, 0x6f6c, int(cell)])
        out, t = [], start
        while t <= stop:
            isi = self.intervals(rng, params, self.CHUNK)
            if isi is None:
                break
            times = t + np.cumsum(isi)
            out.append(times[times <= stop])
            t = times[-1]
        return np.concatenate(out) if out else np.zeros(0)


class SpikeSourceGamma(_DrawnSource, cells.SpikeSourceGamma):
    __doc__ = cells.SpikeSourceGamma.__doc__
    translations = build_translations(('alpha', 'alpha'), ('beta', 'beta'), ('start', 'start'),
                                      ('duration', 'duration'))

    def intervals(self, rng, params, n):
        alpha, beta = float(params["alpha"]), float(params["beta"])
        if beta <= 0:
            return None
        if alpha <= 0:
            raise ValueError(f"SpikeSourceGamma: alpha = {alpha} must be more than 0")
        return rng.gamma(alpha, 1000.0 / beta, n)


class SpikeSourcePoissonRefractory(_DrawnSource, cells.SpikeSourcePoissonRefractory):
    __doc__ = cells.SpikeSourcePoissonRefractory.__doc__
    translations = build_translations(('rate', 'rate'), ('tau_refrac', 'tau_refrac'), ('start', 'start'),
                                      ('duration', 'duration'))

    def intervals(self, rng, params, n):
        rate, dead = float(params["rate"]), float(params["tau_refrac"])
        if rate <= 0:
            return None
        free = 1000.0 / rate - dead
        if free <= 0:
            raise ValueError(f"SpikeSourcePoissonRefractory: rate {rate} Hz cannot be reached with a dead time "
                             f"of {dead} ms")
        return dead + rng.exponential(free, n)


class SpikeSourceArray(_OliveCell, cells.SpikeSourceArray):
    __doc__ = cells.SpikeSourceArray.__doc__
    olive_model = "spike_source_array"
    translations = build_translations(
        ('spike_times', 'spike_times'),
    )


class ElectricalSynapse(synapses.ElectricalSynapse):
    """A gap junction between two InfOli cells, the same conductance (weight,
    mS/cm2 for olive's InfOli cells) in both directions."""
    translations = build_translations(
        ('weight', 'weight'),
    )

    def _get_minimum_delay(self):
        return state.dt


class StaticSynapse(synapses.StaticSynapse):
    __doc__ = synapses.StaticSynapse.__doc__
    translations = build_translations(
        ('weight', 'weight'),
        ('delay', 'delay'),
    )

    def _get_minimum_delay(self):
        d = state.min_delay
        if d == 'auto':
            d = state.dt
        return d


# -- current sources: olive's --pulse ------------------------------------------

class _OliveCurrentSource:
    """Injected currents become olive-simulate --pulse arguments (built at run())."""

    def inject_into(self, cells):
        for c in cells:
            if not c.celltype.injectable:
                raise TypeError("Can't inject current into a spike source.")
        state.current_sources.append((self, [int(c) for c in cells]))
        state.touch()

    def set_native_parameters(self, parameters):
        parameters.evaluate(simplify=True)
        values = self._checked(dict(parameters.items()))
        self.parameter_space.update(**values)
        state.touch()

    def _checked(self, values):
        return values

    def get_native_parameters(self):
        values = {}
        for k in self.parameter_space.keys():
            v = self._value(k)
            values[k] = np.asarray(v.value) if isinstance(v, Sequence) else v
        return ParameterSpace(values, shape=None)

    def _value(self, name):
        v = self.parameter_space[name]
        if hasattr(v, "base_value"):
            v = v.base_value
        if hasattr(v, "evaluate"):
            v = v.evaluate()
        return v

    def record(self):
        """Record the injected current (what olive injects is known exactly: no simulation needed)."""
        self._recorded = True

    def get_data(self):
        """The injected current as a Neo AnalogSignal of one column, in nA, at 0, dt, ... t:
        the value at k dt is the current injected over the step from k dt (what the
        source's parameters give now)."""
        import neo
        import quantities as pq
        if not self.__dict__.get("_recorded"):
            raise ValueError("pyNN.olive: this current source was not recorded (call record() first)")
        dt = state.dt
        n = int(round(state.t / dt)) + 1
        values = np.zeros(n)
        for start, stop, amp in self.steps():
            a = int(round(start / dt))
            b = n if stop is None or stop >= 1e11 else min(n, int(round(stop / dt)))
            values[max(a, 0):b] += amp
        return neo.AnalogSignal(values[:, None], units=pq.nA, sampling_period=dt * pq.ms, t_start=0 * pq.ms,
                                name="i")

    def steps(self):
        """[(start, stop, amplitude nA)] on the time axis; stop None: to the end."""
        raise NotImplementedError

    def _grid(self):
        """The steps k of [start, stop) (stop at most the end of the time simulated so far, or
        to come: steps() is called at run() with state's new end in state.t_next)."""
        dt = state.dt
        end = max(state.t, getattr(state, "t_next", state.t))
        stop = min(float(self._value("stop")), end)
        name = type(self).__name__
        return np.arange(ms_to_steps(float(self._value("start")), dt, f"{name}: start", rounding="even"),
                         ms_to_steps(max(stop, 0.0), dt, f"{name}: stop", rounding="even"), dtype=np.int64)


class DCSource(_OliveCurrentSource, electrodes.DCSource):
    __doc__ = electrodes.DCSource.__doc__
    translations = build_translations(
        ('amplitude', 'amplitude'),
        ('start', 'start'),
        ('stop', 'stop'),
    )

    def steps(self):
        return [(float(self._value("start")), float(self._value("stop")), float(self._value("amplitude")))]


class StepCurrentSource(_OliveCurrentSource, electrodes.StepCurrentSource):
    __doc__ = electrodes.StepCurrentSource.__doc__
    translations = build_translations(
        ('amplitudes', 'amplitudes'),
        ('times', 'times'),
    )

    def __init__(self, **parameters):
        electrodes.StepCurrentSource.__init__(self, **parameters)
        self.parameter_space.update(**self._checked({k: self._value(k) for k in ("times", "amplitudes")}))

    def _checked(self, values):
        """Times on the dt grid (PyNN's rule: the nearest step), later amplitudes
        of one step replacing earlier ones; negative or decreasing times refused."""
        if "times" not in values and "amplitudes" not in values:
            return values
        times = np.asarray(getattr(values.get("times", self._value("times")), "value",
                                   values.get("times", self._value("times"))), dtype=float).ravel()
        amps = np.asarray(getattr(values.get("amplitudes", self._value("amplitudes")), "value",
                                  values.get("amplitudes", self._value("amplitudes"))), dtype=float).ravel()
        if len(times) != len(amps):
            raise ValueError("StepCurrentSource: times and amplitudes must have the same length")
        if np.any(times < 0):
            raise ValueError("StepCurrentSource: negative times")
        if np.any(np.diff(times) <= 0):
            raise ValueError("StepCurrentSource: times must increase")
        dt = state.dt
        steps = ms_to_steps(times, dt, "StepCurrentSource: times", rounding="even")
        last = np.append(steps[1:] != steps[:-1], True)     # the last of each step's values
        return {"times": Sequence(steps[last] * dt), "amplitudes": Sequence(amps[last])}

    def steps(self):
        times = np.asarray(getattr(self._value("times"), "value", self._value("times")), dtype=float).ravel()
        amps = np.asarray(getattr(self._value("amplitudes"), "value", self._value("amplitudes")),
                          dtype=float).ravel()
        out = []
        for k, (t, a) in enumerate(zip(times, amps)):
            stop = float(times[k + 1]) if k + 1 < len(times) else None
            out.append((float(t), stop, float(a)))
        return out


class ACSource(_OliveCurrentSource, electrodes.ACSource):
    __doc__ = electrodes.ACSource.__doc__ + """
    In olive: one --pulse per step, offset + amplitude sin(2 pi frequency (t - start) + phase)
    at the step's start t (the phase holds at t = start, as PyNN asks)."""
    translations = build_translations(*[(n, n) for n in electrodes.ACSource.default_parameters])

    def steps(self):
        dt = state.dt
        k = self._grid()
        t = k * dt - float(self._value("start"))
        amp = float(self._value("offset")) + float(self._value("amplitude")) * np.sin(
            2 * np.pi * float(self._value("frequency")) * t / 1000.0 + np.deg2rad(float(self._value("phase"))))
        return [(float(a * dt), float((a + 1) * dt), float(v)) for a, v in zip(k, amp)]


class NoisyCurrentSource(_OliveCurrentSource, electrodes.NoisyCurrentSource):
    __doc__ = electrodes.NoisyCurrentSource.__doc__ + """
    In olive: one --pulse per interval dt of the source (a multiple of the time step), the
    values drawn from rng (default: a NumpyRNG seeded from setup()'s rng_seed and the
    source's creation order), the same draws for every run() of a segment."""
    translations = build_translations(*[(n, n) for n in electrodes.NoisyCurrentSource.default_parameters])

    def __init__(self, rng=None, **parameters):
        electrodes.NoisyCurrentSource.__init__(self, **parameters)
        state.noise_sources += 1
        self._seed = (state.seed, state.noise_sources)
        self.rng = rng
        self._z, self._gen = np.zeros(0), None

    def _normal(self, n):
        """The first n standard normal draws of this source (kept: every run() of a segment
        re-simulates from 0 and must inject the same values)."""
        z = self._z
        if len(z) < n:
            more = n - len(z)
            if self.rng is not None:
                new = np.asarray(self.rng.next(more, "normal", {"mu": 0.0, "sigma": 1.0}), dtype=float).ravel()
            else:
                if self._gen is None:
                    self._gen = np.random.default_rng(list(self._seed))
                new = self._gen.standard_normal(more)
            self._z = z = np.concatenate([z, new])
        return z[:n]

    def steps(self):
        dt = state.dt
        every = int(ms_to_steps(float(self._value("dt")), dt, "NoisyCurrentSource: dt", rounding="even"))
        if every < 1 or abs(every * dt - float(self._value("dt"))) > 1e-9 * dt:
            raise ValueError(f"NoisyCurrentSource: dt = {self._value('dt')} ms is not a multiple of the "
                             f"time step {dt} ms")
        k = self._grid()[::every]
        if len(k) == 0:
            return []
        values = float(self._value("mean")) + float(self._value("stdev")) * self._normal(len(k))
        stop = min(float(self._value("stop")), max(state.t, getattr(state, "t_next", state.t)))
        return [(float(a * dt), float(min((a + every) * dt, stop)), float(v)) for a, v in zip(k, values)]


# -- PyNN standard types that olive runs as NESTML models of its own -------------

NESTML_SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nestml")
_standard_models = {}


def _prebuilt(name):
    """A build of olive's NESTML model name in the places olive loads plugins from (made by
    olive-model build NESTML_SOURCES/name.nestml), for a Python without NESTML."""
    from olive import plugin_files
    for place, _ in plugin_files.places():
        so = place if os.path.isfile(place) else os.path.join(place, name + ".so")
        if not os.path.isfile(so) or (not os.path.isfile(place) and plugin_files.dir_fault(place)):
            continue
        try:
            pm = plugin_files.read_descriptor(so)
        except ValueError:
            continue
        if pm.name == name and pm.origin.startswith(name + ".nestml "):
            return pm
    return None


def standard_model(name, celltype):
    """olive's model of a PyNN standard type written in NESTML by olive (NESTML_SOURCES/name.nestml):
    built by olive-model build on its first use, then taken from the model cache (a cache hit imports
    no NESTML); in a Python without the nestml package, a build of it in the model places."""
    if name in _standard_models:
        return _standard_models[name]
    src = os.path.join(NESTML_SOURCES, name + ".nestml")
    try:
        from olive.nestml import versions
        versions.nestml_version()
        model = plugin.use(src)
    except ImportError:
        pm = _prebuilt(name)
        if pm is None:
            raise NotImplementedError(
                f"pyNN.olive: {celltype} runs as olive's NESTML model {src}, built on first use: that needs the "
                f"nestml package (pip install 'olive[nestml]'), or a build of it in the model cache (olive-model "
                f"build {src}, where NESTML is installed)") from None
        model = models.register(pm)
    _standard_models[name] = model
    return model


def model_name(celltype):
    """The olive model a cell type names, without building one olive runs as a NESTML model of its
    own (its NESTML model's name then: built at run())."""
    return getattr(celltype, "nestml", None) or getattr(celltype, "olive_model", None)


class _NestmlCell(_OliveCell):
    """A PyNN standard cell type olive runs as a NESTML model of its own (nestml: its name),
    parameters translated as pyNN.nest translates them for NEST's model of the same
    equations. receptor_ports: olive's receptor (the model's spike port) per PyNN receptor
    type; initial_parameters: the model's parameter holding a variable's initial value, with the
    factor from PyNN's unit to the model's."""
    nestml = None
    receptor_ports = {"excitatory": "exc_spikes", "inhibitory": "inh_spikes"}
    initial_parameters = {"v": ("v0", 1.0)}

    @property
    def olive_model(self):
        return standard_model(self.nestml, type(self).__name__)


class Izhikevich(_NestmlCell, cells.Izhikevich):
    __doc__ = cells.Izhikevich.__doc__ + """
    In olive: olive's NESTML model pynn_izhikevich (python/olive/pynn/nestml), NEST's izhikevich
    update (forward Euler from the step's old v and u, the step's input spikes added to v, then
    the threshold test), parameters as pyNN.nest gives them; weights in mV (a jump of v)."""
    nestml = "pynn_izhikevich"
    translations = build_translations(
        ('a', 'a'),
        ('b', 'b'),
        ('c', 'c'),
        ('d', 'd'),
        ('i_offset', 'I_e', 1000.0),
    )
    receptor_ports = {"excitatory": "spikes", "inhibitory": "spikes"}
    initial_parameters = {"v": ("v0", 1.0), "u": ("u0", 1.0)}
    variables = {"v": ("V_m", None), "u": ("U_m", None)}
    weight_factor = staticmethod(_unit)
    current_factor = staticmethod(_thousand)


_EIF_TRANSLATIONS = build_translations(
    ('cm', 'C_m', 1000.0),
    ('tau_refrac', 't_ref'),
    ('v_spike', 'V_peak'),
    ('v_reset', 'V_reset'),
    ('v_rest', 'E_L'),
    ('tau_m', 'tau_m'),      # (pyNN.nest: g_L = 1000 cm / tau_m; olive's model computes it)
    ('i_offset', 'I_e', 1000.0),
    ('a', 'a'),
    ('b', 'b', 1000.0),
    ('delta_T', 'Delta_T'),
    ('tau_w', 'tau_w'),
    ('v_thresh', 'V_th'),
    ('e_rev_E', 'E_ex'),
    ('tau_syn_E', 'tau_syn_ex'),
    ('e_rev_I', 'E_in'),
    ('tau_syn_I', 'tau_syn_in'),
)


class EIF_cond_exp_isfa_ista(_NestmlCell, cells.EIF_cond_exp_isfa_ista):
    __doc__ = cells.EIF_cond_exp_isfa_ista.__doc__ + """
    In olive: olive's NESTML model pynn_eif_cond_exp_isfa_ista (python/olive/pynn/nestml), NEST's
    aeif_cond_exp equations in NEST's units, integrated by olive's RKF45 (GSL's rkf45 and
    control); NEST finds a spike inside the step's RKF45 sub-steps, olive at the step's end
    (docs/PYNN.md: the spikes agree within a step or two)."""
    nestml = "pynn_eif_cond_exp_isfa_ista"
    translations = _EIF_TRANSLATIONS
    initial_parameters = {"v": ("v0", 1.0), "w": ("w0", 1000.0)}
    receptor_tau = {"excitatory": "tau_syn_ex", "inhibitory": "tau_syn_in"}
    variables = {"v": ("V_m", None), "w": ("w", _one_over_thousand),
                 "gsyn_exc": ("g_ex__X__exc_spikes", _one_over_thousand),
                 "gsyn_inh": ("g_in__X__inh_spikes", _one_over_thousand)}
    weight_factor = staticmethod(_thousand)
    current_factor = staticmethod(_thousand)


class EIF_cond_alpha_isfa_ista(EIF_cond_exp_isfa_ista, cells.EIF_cond_alpha_isfa_ista):
    __doc__ = cells.EIF_cond_alpha_isfa_ista.__doc__ + """
    In olive: olive's NESTML model pynn_eif_cond_alpha_isfa_ista, NEST's aeif_cond_alpha (as
    EIF_cond_exp_isfa_ista, with alpha-function conductances peaking at the weight)."""
    nestml = "pynn_eif_cond_alpha_isfa_ista"


def NESTMLCellType(path):
    """A native PyNN cell type of a plugin model: PATH.so, or a NESTML file built on the fly
    (olive.plugin). Its parameters are the model's, names and units as the model has them
    (default_parameters: its defaults); its receptor types, the model's spike ports; its
    recordables, spikes and every state variable. Weights and currents are in the model's units."""
    model = plugin.use(path)
    pm = models.plugin_of(model)
    names = [p for p, _, _ in pm.params if p != "v0"]
    attrs = {"__doc__": f"{pm.name}: {pm.origin} ({pm.path})", "olive_model": model,
             "default_parameters": {p: d for p, _, d in pm.params if p != "v0"},
             "default_initial_values": {v: d for v, _, d in pm.variables},
             "units": {**{p: u for p, u, _ in pm.params}, **{v: u for v, u, _ in pm.variables}},
             "recordable": ["spikes"] + [v for v, _, _ in pm.variables],
             "receptor_types": pm.receptors, "conductance_based": pm.weights_nonnegative,
             "variables": {v: (v, None) for v, _, _ in pm.variables},
             "translations": build_translations(*[(p, p) for p in names]),
             "weight_factor": staticmethod(_unit), "current_factor": staticmethod(_unit)}
    return type(pm.name, (_OliveCell, StandardCellType), attrs)


nestml_cell_type = NESTMLCellType

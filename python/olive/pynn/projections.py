"""Projection of pyNN.olive: PyNN's connectors fill arrays of connections
(pre index, post index, weight in PyNN's units, delay ms); the network
builder converts them to olive's synapses at run()."""

import warnings

import numpy as np

from olive import models

from pyNN import common
from pyNN.space import Space

from . import simulator
from .sites import check_selector
from .standardmodels import StaticSynapse, model_name
from .plasticity import PLASTIC


def _numpy2_compatible_connectors():
    """PyNN 0.13.0's Connector._standard_connect calls nonzero() on the 0-d
    mask a one-cell presynaptic population gives, which numpy >= 2.1 refuses
    (ValueError: Calling nonzero on 0d arrays is not allowed): hand it 1-d masks."""
    from pyNN.connectors import MapConnector as Connector
    original = Connector._standard_connect
    if getattr(original, "_olive_wrapped", False):
        return

    def standard_connect(self, projection, connection_map_generator, distance_map=None):
        def masks(*args):
            for m in connection_map_generator(*args):
                yield np.atleast_1d(m) if isinstance(m, (np.ndarray, np.bool_)) and np.ndim(m) == 0 else m
        return original(self, projection, masks, distance_map)

    standard_connect._olive_wrapped = True
    Connector._standard_connect = standard_connect


_numpy2_compatible_connectors()


class Connection(common.Connection):
    """One synapse of a projection, a view of its arrays: presynaptic_index,
    postsynaptic_index and the synapse's attributes (weight, delay, ...),
    read and written in place."""

    def __init__(self, projection, i):
        object.__setattr__(self, "_projection", projection)
        object.__setattr__(self, "_i", i)

    def __getattr__(self, name):
        data = self._projection._values()
        key = _KEYS.get(name, name)
        if key not in data:
            raise AttributeError(name)
        v = data[key][self._i]
        return int(v) if key in ("pre", "post") else float(v)

    def __setattr__(self, name, value):
        simulator.state.touch()
        self._projection._data()[_KEYS.get(name, name)][self._i] = value

    def as_tuple(self, *attribute_names):
        return tuple(getattr(self, name) for name in attribute_names)


_KEYS = {"presynaptic_index": "pre", "postsynaptic_index": "post"}


class Projection(common.Projection):
    __doc__ = common.Projection.__doc__
    _simulator = simulator
    _static_synapse_class = StaticSynapse

    def __init__(self, presynaptic_population, postsynaptic_population, connector, synapse_type=None,
                 source=None, receptor_type=None, space=Space(), label=None):
        common.Projection.__init__(self, presynaptic_population, postsynaptic_population, connector,
                                   synapse_type, source, receptor_type, space, label)
        kind = type(self.synapse_type).__name__
        self.plastic = isinstance(self.synapse_type, PLASTIC)
        if kind not in ("StaticSynapse", "ElectricalSynapse") and not self.plastic:
            raise NotImplementedError(f"pyNN.olive: synapse type {kind} is not supported (olive's "
                                      "synapses: StaticSynapse, STDPMechanism, TsodyksMarkramSynapse, and "
                                      "ElectricalSynapse between InfOli cells)")
        # the weights the last olive run left (plastic synapses), by connection; None: the initial ones
        self.plastic_weights = None
        self.electrical = kind == "ElectricalSynapse"
        infoli = [model_name(getattr(p, "celltype", None)) == "infoli" for p in (self.pre, self.post)]
        if self.electrical != all(infoli) or any(infoli) != all(infoli):
            raise NotImplementedError("pyNN.olive: gap junctions (ElectricalSynapse) couple InfOli cells, and "
                                      "InfOli cells are coupled by gap junctions only")
        # every cell type the projection reaches (an Assembly: each of its populations'),
        # and whether each takes the receptor type: a plugin's spike ports, a standard type's
        # excitatory/inhibitory
        posts = getattr(self.post, "populations", None) or [self.post]
        celltypes = [getattr(p, "celltype", None) for p in posts]
        plugin = [models.plugin_of(model_name(c)) is not None for c in celltypes]
        for c, is_plugin in zip(celltypes, plugin):
            if self.electrical:
                break
            if is_plugin and self.receptor_type not in c.receptor_types:
                raise ValueError(f"pyNN.olive: receptor type {self.receptor_type!r} is not one of "
                                 f"{', '.join(c.receptor_types)} (cell type {type(c).__name__})")
            if not is_plugin and self.receptor_type not in ("excitatory", "inhibitory"):
                raise NotImplementedError(f"pyNN.olive: receptor type {self.receptor_type!r} (PyNN's standard "
                                          f"{type(c).__name__} has 'excitatory' and 'inhibitory')")
        self._plugin_targets = bool(plugin) and all(plugin)
        if getattr(self.post, "celltype", None) is not None and getattr(self.post.celltype, "injectable", True) is False:
            raise NotImplementedError("pyNN.olive: a projection onto a spike source")
        # the connections as arrays, appended per target cell and joined on first use:
        # a million connections cost tens of megabytes, not a million Python objects
        self._parts = {"pre": [], "post": [],     # and the synapse type's attributes, even for no connections
                       **{name: [] for name in self.synapse_type.get_native_names()}}
        self._joined = None
        self.sites = None         # a SiteList from the connector's location_selector: where the synapses sit
        with warnings.catch_warnings():
            if self._plugin_targets:   # (olive checks a plugin's weights: sign, units; PyNN cannot know its ports)
                warnings.filterwarnings("ignore", message="Can't check weight, conductance status unknown.")
            connector.connect(self)
        simulator.state.projections.append(self)
        simulator.state.touch()

    def _data(self):
        """{"pre", "post", attribute: array} of every connection, in the order they were made."""
        if self._joined is None or any(self._parts.values()):
            old = self._joined or {}
            self._joined = {k: np.concatenate(([old[k]] if k in old else []) + self._parts.get(k, []))
                            if (self._parts.get(k) or k in old)
                            else np.zeros(0, dtype=np.int64 if k in ("pre", "post") else float)
                            for k in set(old) | set(self._parts)}
            self._parts = {k: [] for k in self._parts}
        return self._joined

    def _values(self):
        """_data(), with the weights the last olive run left where the synapses are plastic (olive runs
        what run() asked for first)."""
        if not self.plastic:
            return self._data()
        simulator.state.flush()
        if self.plastic_weights is None:
            return self._data()
        return dict(self._data(), weight=self.plastic_weights)

    def _set_attributes_check(self, names):
        if self.plastic and self.plastic_weights is not None and "weight" in names:
            raise NotImplementedError("pyNN.olive: set(weight=...) of plastic synapses after a run (olive continues "
                                      "the run from its state; reset() first)")

    @property
    def connections(self):
        return [Connection(self, i) for i in range(len(self))]

    def __len__(self):
        return len(self._data()["pre"])

    def __getitem__(self, i):
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return Connection(self, i % len(self))

    def _convergent_connect(self, presynaptic_indices, postsynaptic_index, location_selector=None,
                            **connection_parameters):
        if location_selector is not None and self.sites is None:
            self.sites = check_selector(location_selector, self.post)
        pre = np.asarray(presynaptic_indices, dtype=np.int64).ravel()
        self._parts["pre"].append(pre)
        self._parts["post"].append(np.full(len(pre), int(postsynaptic_index), dtype=np.int64))
        for name, value in connection_parameters.items():
            self._parts.setdefault(name, []).append(
                np.array(np.broadcast_to(np.asarray(value, dtype=float), (len(pre),))))

    def _set_attributes(self, parameter_space):
        simulator.state.touch()
        self._set_attributes_check(list(parameter_space.keys()))
        parameter_space.evaluate(simplify=False)
        data = self._data()
        for name, value in parameter_space.items():
            value = np.asarray(value, dtype=float)
            data[name] = (value[data["pre"], data["post"]] if value.ndim == 2
                          else np.array(np.broadcast_to(value, data["pre"].shape)))

    def _get_attributes_as_list(self, names):
        data = self._values()
        columns = [data[_KEYS.get(n, n)].tolist() for n in names]
        return list(zip(*columns))

    def _get_attributes_as_arrays(self, names, multiple_synapses='sum'):
        data = self._values()
        pre, post = data["pre"], data["post"]
        single = len(np.unique(pre * self.post.size + post)) == len(pre)
        if not single and multiple_synapses != "sum":
            return common.Projection._get_attributes_as_arrays(self, names, multiple_synapses)
        out = []
        for name in names:
            name = name[:-1] if name[-1] == "s" else name     # weights -> weight, delays -> delay
            values = np.full((self.pre.size, self.post.size), np.nan)
            if single:
                values[pre, post] = data[name]
            else:                                         # several synapses of one pair: summed
                values[pre, post] = 0.0
                np.add.at(values, (pre, post), data[name])
            out.append(values)
        return out

    def _arrays(self):
        """(pre index, post index, weight, delay) arrays, in PyNN's units."""
        data = self._data()
        delay = data.get("delay", np.zeros(len(data["pre"])))
        return data["pre"], data["post"], data["weight"], delay

"""Projection of pyNN.olive: PyNN's connectors fill a list of connections
(pre index, post index, weight in PyNN's units, delay ms); the network
builder converts them to olive's synapses at run()."""

from itertools import repeat

import numpy as np

from pyNN import common
from pyNN.core import ezip
from pyNN.space import Space

from . import simulator
from .standardmodels import StaticSynapse


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
    """One synapse: presynaptic_index, postsynaptic_index, weight, delay."""

    def __init__(self, pre, post, **attributes):
        self.presynaptic_index = pre
        self.postsynaptic_index = post
        for name, value in attributes.items():
            setattr(self, name, value)

    def as_tuple(self, *attribute_names):
        return tuple(getattr(self, name) for name in attribute_names)


class Projection(common.Projection):
    __doc__ = common.Projection.__doc__
    _simulator = simulator
    _static_synapse_class = StaticSynapse

    def __init__(self, presynaptic_population, postsynaptic_population, connector, synapse_type=None,
                 source=None, receptor_type=None, space=Space(), label=None):
        common.Projection.__init__(self, presynaptic_population, postsynaptic_population, connector,
                                   synapse_type, source, receptor_type, space, label)
        kind = type(self.synapse_type).__name__
        if kind not in ("StaticSynapse", "ElectricalSynapse") and not hasattr(self.synapse_type, "reason"):
            raise NotImplementedError(f"pyNN.olive: synapse type {kind} is not supported (olive's "
                                      "synapses are static: StaticSynapse, and ElectricalSynapse between "
                                      "InfOli cells)")
        self.electrical = kind == "ElectricalSynapse"
        if hasattr(self.synapse_type, "reason"):      # declared only: build_network refuses it
            kind = "StaticSynapse"
        infoli = [getattr(getattr(p, "celltype", None), "olive_model", None) == "infoli" for p in (self.pre, self.post)]
        if self.electrical != all(infoli) or any(infoli) != all(infoli):
            raise NotImplementedError("pyNN.olive: gap junctions (ElectricalSynapse) couple InfOli cells, and "
                                      "InfOli cells are coupled by gap junctions only")
        if not self.electrical and self.receptor_type not in ("excitatory", "inhibitory"):
            raise NotImplementedError(f"pyNN.olive: receptor type {self.receptor_type!r} (olive has "
                                      "'excitatory' -> ge and 'inhibitory' -> gi)")
        if getattr(self.post, "celltype", None) is not None and getattr(self.post.celltype, "injectable", True) is False:
            raise NotImplementedError("pyNN.olive: a projection onto a spike source")
        self.connections = []
        connector.connect(self)
        simulator.state.projections.append(self)

    def __len__(self):
        return len(self.connections)

    def __getitem__(self, i):
        return self.connections[i]

    def _convergent_connect(self, presynaptic_indices, postsynaptic_index, location_selector=None,
                            **connection_parameters):
        if location_selector is not None:
            raise NotImplementedError("pyNN.olive does not support multicompartmental models")
        for name, value in connection_parameters.items():
            if np.ndim(value) == 0:
                connection_parameters[name] = repeat(float(value))
        for pre, values in ezip(presynaptic_indices, *connection_parameters.values()):
            self.connections.append(Connection(int(pre), int(postsynaptic_index),
                                               **dict(zip(connection_parameters.keys(), values))))

    def _set_attributes(self, parameter_space):
        parameter_space.evaluate(simplify=False)
        for name, value in parameter_space.items():
            value = np.asarray(value)
            for c in self.connections:
                v = value[c.presynaptic_index, c.postsynaptic_index] if value.ndim == 2 else value
                setattr(c, name, float(v))

    def _arrays(self):
        """(pre index, post index, weight, delay) arrays, in PyNN's units."""
        n = len(self.connections)
        pre = np.fromiter((c.presynaptic_index for c in self.connections), dtype=np.int64, count=n)
        post = np.fromiter((c.postsynaptic_index for c in self.connections), dtype=np.int64, count=n)
        w = np.fromiter((c.weight for c in self.connections), dtype=float, count=n)
        d = np.fromiter((getattr(c, "delay", 0.0) for c in self.connections), dtype=float, count=n)
        return pre, post, w, d

"""Population, PopulationView and Assembly of pyNN.olive (pyNN.common's, with
the parameters held here as native (olive) values, one array per parameter)."""

import numpy as np

from pyNN import common, errors
from pyNN.standardmodels import StandardCellType
from pyNN.parameters import ParameterSpace, simplify

from . import simulator
from .recording import Recorder


def _check_spike_times(celltype, parameters):
    """PyNN's rule: a SpikeSourceArray's times must not decrease."""
    if type(celltype).__name__ != "SpikeSourceArray" or "spike_times" not in parameters:
        return
    for seq in np.atleast_1d(np.asarray(parameters["spike_times"], dtype=object)):
        t = np.asarray(getattr(seq, "value", seq), dtype=float).ravel()
        if np.any(np.diff(t) < 0):
            raise errors.InvalidParameterValueError(f"SpikeSourceArray: spike times must be sorted, got {t}")


def _evaluate(lazy, size):
    v = lazy.evaluate(simplify=False) if hasattr(lazy, "evaluate") else lazy
    return np.array(np.broadcast_to(np.asarray(v, dtype=float), (size,)))


class Assembly(common.Assembly):
    _simulator = simulator


class _Parameters:
    """Reading parameters back in PyNN's units (shared by Population and PopulationView)."""

    def _get_parameters(self, *names):
        if isinstance(self.celltype, StandardCellType):
            if any(n in self.celltype.computed_parameters() for n in names):
                native = self.celltype.get_native_names()     # all of them: the expressions need them
            else:
                native = self.celltype.get_native_names(*names)
            return self.celltype.reverse_translate(self._get_native_parameters(*native))
        return self._get_native_parameters(*names)


class PopulationView(_Parameters, common.PopulationView):
    _assembly_class = Assembly
    _simulator = simulator

    def _get_native_parameters(self, *names):
        values = {}
        for n in names:
            v = self.parent._parameters[n]
            values[n] = simplify(v[self.mask] if isinstance(v, np.ndarray) else v)
        return ParameterSpace(values, shape=(self.size,))

    def _set_parameters(self, parameter_space):
        try:
            parameter_space.evaluate(simplify=False)
        except ValueError as e:
            raise errors.InvalidParameterValueError(f"{', '.join(parameter_space.keys())}: {e}")
        _check_spike_times(self.celltype, dict(parameter_space.items()))
        simulator.state.touch()
        for name, value in parameter_space.items():
            try:
                self.parent._parameters[name][self.mask] = value
            except ValueError:
                raise errors.InvalidParameterValueError(f"{name} should not be of type {type(value)}")

    def _set_initial_value_array(self, variable, initial_values):
        simulator.state.touch()
        self.parent._initial.setdefault(variable, np.zeros(self.parent.size))[self.mask] = \
            _evaluate(initial_values, self.size)

    def _get_view(self, selector, label=None):
        return PopulationView(self, selector, label)


class Population(_Parameters, common.Population):
    __doc__ = common.Population.__doc__
    _simulator = simulator
    _recorder_class = Recorder
    _assembly_class = Assembly

    def _create_cells(self):
        state = simulator.state
        first = state.id_counter
        self.all_cells = np.array([simulator.ID(i) for i in range(first, first + self.size)],
                                  dtype=simulator.ID)
        self._mask_local = np.ones(self.size, dtype=bool)
        self.first_id = first
        if isinstance(self.celltype, StandardCellType):
            ps = self.celltype.native_parameters
        else:
            raise NotImplementedError("pyNN.olive runs PyNN's standard cell types only "
                                      "(IF_curr_exp, IF_cond_exp, HH_cond_exp, SpikeSourcePoisson, "
                                      "SpikeSourceArray)")
        # (a type olive runs as a NESTML model of its own is built at run(), not here)
        if getattr(self.celltype, "nestml", None) is None and getattr(self.celltype, "olive_model", None) is None:
            raise NotImplementedError(f"pyNN.olive: {type(self.celltype).__name__} is not an olive model")
        ps.shape = (self.size,)
        ps.evaluate(mask=self._mask_local, simplify=False)
        self._parameters = ps.as_dict()
        _check_spike_times(self.celltype, self._parameters)
        self._initial = {}
        for c in self.all_cells:
            c.parent = self
        state.id_counter += self.size
        state.populations.append(self)
        simulator.state.touch()

    def _set_initial_value_array(self, variable, initial_values):
        simulator.state.touch()
        self._initial[variable] = _evaluate(initial_values, self.size)

    def _get_view(self, selector, label=None):
        return PopulationView(self, selector, label)

    def _get_native_parameters(self, *names):
        return ParameterSpace({n: simplify(self._parameters[n]) for n in names}, shape=(self.local_size,))

    def _set_parameters(self, parameter_space):
        parameter_space.evaluate(simplify=False, mask=self._mask_local)
        _check_spike_times(self.celltype, dict(parameter_space.items()))
        simulator.state.touch()
        for name, value in parameter_space.items():
            self._parameters[name] = value

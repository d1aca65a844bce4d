"""A simulation output directory as Python objects (docs/FORMAT.md, simulation output).

read_run reads what olive-simulate wrote into OUTDIR: spikes.h5, one report
per recorded variable, the compartment reports of cable cells, state.h5 and
the provenance attributes. Report data are read when first used, so opening
a run with large reports is cheap; spikes, mappings and times are read at once.

The files hold one SONATA population per network population, node ids local
to it. run.spikes and run.reports[var] gather every population with the
network's (global) cell ids; run.spikes(population="exc") and
run.report("v", population="exc") give one population with its own ids.
"""

import functools
import os
from dataclasses import dataclass, field
from typing import Dict, Optional

import h5py
import numpy as np

from .errors import FormatError
from .h5attrs import attrs_dict, dataset, decode, get_str

COMPARTMENT_SUFFIX = "_compartments"
_NOT_REPORTS = {"spikes", "state", "weights"}   # (weights.h5: per plastic projection, Run.weights)


@dataclass
class Spikes:
    """Every spike of one population: times in ms and the cell (node id) of each, sorted by time."""

    times: np.ndarray
    node_ids: np.ndarray
    population: str
    sorting: str = "by_time"
    parts: Dict[str, "Spikes"] = field(default_factory=dict)   # gathered: each population's, local ids

    def __len__(self):
        return len(self.times)

    def __call__(self, population=None):
        """One population's spikes (node ids local to it); population None: the only one."""
        return _pick(self, population, self.parts, "spikes")

    def of_cell(self, cell):
        """float64 array: the spike times of one cell."""
        return self.times[self.node_ids == cell]

    def trains(self, cells):
        """[float64 array per cell] for cell ids 0..cells-1 (cells an int) or the ids given."""
        ids = np.arange(cells) if np.ndim(cells) == 0 else np.asarray(cells)
        order = np.argsort(self.node_ids, kind="stable")
        sorted_ids = self.node_ids[order]
        lo = np.searchsorted(sorted_ids, ids, side="left")
        hi = np.searchsorted(sorted_ids, ids, side="right")
        return [self.times[order[a:b]] for a, b in zip(lo, hi)]


@dataclass(eq=False)
class Report:
    """One recorded variable: data[frame, column] of cell node_ids[column] at times[frame].

    For a compartment report (compartments is True) column j is a compartment:
    cell i's columns are index_pointers[i]..index_pointers[i+1]-1, element_ids
    its section (0 soma, 1 dendrite) and element_pos its centre along it.
    """

    variable: str
    path: str
    population: str
    node_ids: np.ndarray
    index_pointers: np.ndarray
    element_ids: np.ndarray
    element_pos: np.ndarray
    start: float
    stop: float
    step: float
    units: str
    frames: int
    compartments: bool = False
    attrs: Dict[str, object] = field(default_factory=dict)
    parts: Dict[str, "Report"] = field(default_factory=dict)   # gathered: each population's, local ids

    @functools.cached_property
    def data(self):
        """float32 or float64 [frames, columns], read from the file on first use."""
        if self.parts:
            return np.hstack([p.data for p in self.parts.values()])
        with h5py.File(self.path, "r") as f:
            return f[f"report/{self.population}/data"][()]

    def __call__(self, population=None):
        """One population's report (node ids local to it); population None: the only one."""
        return _pick(self, population, self.parts, f"{self.variable} report")

    @property
    def times(self):
        """float64[frames] in ms; (k+1)*step when start = step, as olive-analyze computes them."""
        k = np.arange(self.frames, dtype=np.float64)
        if self.start == self.step:
            return (k + 1.0) * self.step
        return self.start + k * self.step

    def columns_of(self, cell):
        """The column indices holding a cell's values (one, or a cell's compartments)."""
        where = np.flatnonzero(self.node_ids == cell)
        if not len(where):
            raise KeyError(f"{self.path}: cell {cell} is not recorded")
        c = int(where[0])
        return np.arange(self.index_pointers[c], self.index_pointers[c + 1])

    def trace(self, cell):
        """The values of one cell (one column; compartments: [frames, its compartments])."""
        cols = self.columns_of(cell)
        return self.data[:, cols[0]] if not self.compartments else self.data[:, cols]


@dataclass
class State:
    """The state after the last step (state.h5): values[variable] is an array over every cell.

    in_flight: a spiking network's spikes still in flight, (steps, cells) arrays
    (what olive-simulate --restart delivers; empty for InfOli networks).
    """

    values: Dict[str, np.ndarray]
    units: Dict[str, str]
    step: int
    time_ms: float
    precision: str
    kind: str
    attrs: Dict[str, object] = field(default_factory=dict)
    in_flight: tuple = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def __getitem__(self, variable):
        return self.values[variable]


@dataclass
class Population:
    """A population of the output: its name and its cells first..first+count-1 of the network."""

    name: str
    first: int
    count: int


def _pick(whole, population, parts, what):
    if not parts:
        if population not in (None, whole.population):
            raise KeyError(f"no population '{population}' in the {what} (it has: {whole.population})")
        return whole
    if population is None:
        if len(parts) == 1:
            return next(iter(parts.values()))
        raise KeyError(f"the {what} holds the populations {', '.join(parts)}: give population=...")
    if population not in parts:
        raise KeyError(f"no population '{population}' in the {what} (it has: {', '.join(parts)})")
    return parts[population]


@dataclass
class Run:
    """What one olive-simulate run wrote: spikes, reports, compartment reports, state, provenance.

    provenance holds the root attributes of spikes.h5 (olive_version,
    command, network, dt, steps, cells, start_step, end_step, timings, ...).
    """

    path: str
    spikes: Spikes
    reports: Dict[str, Report]
    compartment_reports: Dict[str, Report]
    state: Optional[State]
    provenance: Dict[str, object]
    populations: Dict[str, Population] = field(default_factory=dict)
    # weights.h5 (--record-weights): per plastic projection its synapses' weights over time,
    # a Report whose columns are the recorded synapses (mapping/source_ids, node_ids: targets)
    weights: Dict[str, Report] = field(default_factory=dict)

    def population_of(self, cell):
        """The name of the population holding network cell id cell."""
        for p in self.populations.values():
            if p.first <= cell < p.first + p.count:
                return p.name
        return self.spikes.population

    def report(self, variable, population=None, compartments=False):
        """One variable's report of one population (node ids local to it)."""
        return (self.compartment_reports if compartments else self.reports)[variable](population)

    @property
    def dt(self):
        return float(self.provenance["dt"])

    @property
    def cells(self):
        return int(self.provenance["cells"])

    @property
    def t_start(self):
        """ms: the start of the time this output covers (later than 0 after --restart)."""
        return int(self.provenance.get("start_step", 0)) * self.dt

    @property
    def t_stop(self):
        """ms: the end of the time this output covers."""
        end = self.provenance.get("end_step")
        if end is None:
            end = int(self.provenance.get("start_step", 0)) + int(self.provenance["steps"])
        return int(end) * self.dt

    def plot_raster(self, **kwargs):
        """Spike raster coloured by population, pulses shaded (olive.plotting.plot_raster; needs matplotlib)."""
        from .plotting import plot_raster
        return plot_raster(self, **kwargs)

    def plot_rates(self, **kwargs):
        """Population rates over time (olive.plotting.plot_rates; needs matplotlib)."""
        from .plotting import plot_rates
        return plot_rates(self, **kwargs)

    def plot_traces(self, variable=None, cells=None, **kwargs):
        """Recorded traces of a few cells or compartments (olive.plotting.plot_traces; needs matplotlib)."""
        from .plotting import plot_traces
        return plot_traces(self, variable, cells, **kwargs)

    def to_neo(self, **kwargs):
        """A neo.Block (see olive.neo_export.run_to_neo); needs neo installed."""
        from .neo_export import run_to_neo
        return run_to_neo(self, **kwargs)

    def to_nwb(self, path, **kwargs):
        """Write an NWB file (see olive.nwb_export.run_to_nwb); needs pynwb installed."""
        from .nwb_export import run_to_nwb
        return run_to_nwb(self, path, **kwargs)


def _read_pop_spikes(path, f, pop):
    if f"spikes/{pop}" not in f:
        raise FormatError(path, f"/spikes/{pop} is missing")
    g = f[f"spikes/{pop}"]
    times = dataset(path, g, "timestamps", "f").astype(np.float64)
    units = get_str(path, g["timestamps"], "units", "ms")
    if units == "s":
        times = times * 1000.0
    elif units != "ms":
        raise FormatError(path, f"/spikes/{pop}/timestamps has units '{units}'; expected ms or s")
    ids = dataset(path, g, "node_ids", "iu", len(times)).astype(np.int64)
    sorting = "by_time"
    if "sorting" in g.attrs:
        s = g.attrs["sorting"]
        sorting = decode(s) if isinstance(s, (bytes, str, np.bytes_)) else \
            {0: "none", 1: "by_id", 2: "by_time"}.get(int(s), str(int(s)))
    return Spikes(times, ids, pop, sorting)


def _read_pop_report(path, f, variable, pop):
    base = f"report/{pop}"
    if base not in f:
        raise FormatError(path, f"/{base} is missing")
    g = f[base]
    if "data" not in g or "mapping" not in g:
        raise FormatError(path, f"/{base} needs 'data' and 'mapping'")
    d = g["data"]
    if d.ndim != 2:
        raise FormatError(path, f"/{base}/data must be 2-D [frames, columns], has shape {d.shape}")
    m = g["mapping"]
    node_ids = dataset(path, m, "node_ids", "iu").astype(np.int64)
    n = len(node_ids)
    if "index_pointers" in m:
        ptr = dataset(path, m, "index_pointers", "iu", n + 1).astype(np.int64)
    elif "index_pointer" in m:
        ptr = dataset(path, m, "index_pointer", "iu", n + 1).astype(np.int64)
    else:
        ptr = np.arange(n + 1, dtype=np.int64)
    columns = int(ptr[-1])
    if d.shape[1] != columns or ptr[0] != 0 or np.any(np.diff(ptr) < 0):
        raise FormatError(path, f"/{base}/mapping/index_pointers (ending at {ptr[-1]}) does not fit "
                                f"data's {d.shape[1]} columns")
    elem = dataset(path, m, "element_ids", "iu", columns).astype(np.int64) if "element_ids" in m \
        else np.zeros(columns, np.int64)
    pos = dataset(path, m, "element_pos", "f", columns).astype(np.float64) if "element_pos" in m \
        else np.full(columns, 0.5)
    t = dataset(path, m, "time", "f", 3).astype(np.float64)
    units = get_str(path, d, "units", "")
    return Report(variable, path, pop, node_ids, ptr, elem, pos, float(t[0]), float(t[1]), float(t[2]),
                  units, int(d.shape[0]), variable.endswith(COMPARTMENT_SUFFIX), attrs_dict(f))


def _groups(path, f, top, population):
    if top not in f or not isinstance(f[top], h5py.Group) or len(f[top]) == 0:
        raise FormatError(path, f"/{top} is missing or empty")
    if population is not None:
        if population not in f[top]:
            raise FormatError(path, f"/{top}/{population} is missing (populations: {', '.join(f[top])})")
        return [population]
    return list(f[top])


def _read_populations(path, f, cells):
    """The output's populations, from the spike groups' first_cell and cells
    (olive-simulate); other writers' groups are stacked in the file's order."""
    pops, end = {}, 0
    for name, g in f["spikes"].items():
        if "first_cell" in g.attrs and "cells" in g.attrs:
            first, count = int(g.attrs["first_cell"]), int(g.attrs["cells"])
        else:
            ids = g["node_ids"][()] if "node_ids" in g else np.zeros(0)
            first = end
            count = cells - end if len(f["spikes"]) == 1 and cells else (int(ids.max()) + 1 if len(ids) else 0)
        pops[name] = Population(name, first, count)
        end = max(end, first + count)
    return pops


def _gather_spikes(parts, pops):
    if len(parts) == 1:
        (name, s), = parts.items()
        if pops[name].first == 0:
            return Spikes(s.times, s.node_ids, name, s.sorting, parts)
    t = np.concatenate([s.times for s in parts.values()])
    ids = np.concatenate([s.node_ids + pops[n].first for n, s in parts.items()])
    order = np.lexsort((ids, t))
    return Spikes(t[order], ids[order], ",".join(parts), "by_time", parts)


def _gather_report(path, variable, parts, pops):
    """Every population's columns side by side, node ids the network's."""
    if len(parts) == 1:
        (name, r), = parts.items()
        if pops[name].first == 0:
            return Report(**{**r.__dict__, "parts": parts})
    rs = list(parts.values())
    ptr = [np.zeros(1, np.int64)]
    for r in rs:
        ptr.append(r.index_pointers[1:] + ptr[-1][-1])
    r0 = rs[0]
    return Report(variable, path, ",".join(parts), np.concatenate([r.node_ids + pops[n].first for n, r in parts.items()]),
                  np.concatenate(ptr), np.concatenate([r.element_ids for r in rs]),
                  np.concatenate([r.element_pos for r in rs]), r0.start, r0.stop, r0.step, r0.units, r0.frames,
                  r0.compartments, r0.attrs, parts)


def _read_spikes(path, population):
    with h5py.File(path, "r") as f:
        names = _groups(path, f, "spikes", population)
        parts = {n: _read_pop_spikes(path, f, n) for n in names}
        attrs = attrs_dict(f)
        pops = _read_populations(path, f, int(attrs.get("cells", 0)))
    parts = dict(sorted(parts.items(), key=lambda kv: pops[kv[0]].first))   # network order, not HDF5's by name
    if population is not None:
        return parts[population], attrs, {population: pops[population]}
    return _gather_spikes(parts, pops), attrs, pops


def _read_report(path, variable, population, pops):
    with h5py.File(path, "r") as f:
        names = _groups(path, f, "report", population)
        for n in names:
            if population is None and n not in pops:
                raise FormatError(path, f"/report/{n} is no population of the run's spikes.h5 ({', '.join(pops)})")
        names.sort(key=lambda n: pops[n].first if population is None else 0)   # HDF5 lists them by name
        parts = {n: _read_pop_report(path, f, variable, n) for n in names}
    if population is not None:
        return parts[population]
    return _gather_report(path, variable, parts, pops)


def _read_state(path):
    with h5py.File(path, "r") as f:
        if "state" not in f:
            raise FormatError(path, "/state is missing")
        g = f["state"]
        values, units = {}, {}
        for name in g:
            if isinstance(g[name], h5py.Dataset) and not name.startswith("in_flight_"):
                values[name] = g[name][()]
                units[name] = get_str(path, g[name], "units", "")
        in_flight = (g["in_flight_step"][()], g["in_flight_cell"][()]) if "in_flight_step" in g else \
            (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        a = attrs_dict(g)
        return State(values, units, int(a.get("step", 0)), float(a.get("time_ms", 0.0)),
                     str(a.get("precision", "")), str(a.get("kind", "")), attrs_dict(f), in_flight)


def read_run(directory, population=None):
    """Read an olive-simulate output directory into a Run.

    population: read that SONATA population only (node ids local to it);
    default: every population, gathered with the network's cell ids
    (run.spikes(population=...) and run.report(var, population=...) still
    give each one). Raises FileNotFoundError when the
    directory or its spikes.h5 is missing, FormatError naming the file and
    the fault when a file does not follow docs/FORMAT.md.
    """
    directory = str(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{directory}: no such output directory")
    spikes_path = os.path.join(directory, "spikes.h5")
    if not os.path.isfile(spikes_path):
        raise FileNotFoundError(f"{spikes_path}: missing; is {directory} an olive-simulate output directory?")
    spikes, provenance, pops = _read_spikes(spikes_path, population)
    reports, compartments = {}, {}
    for name in sorted(os.listdir(directory)):
        stem, ext = os.path.splitext(name)
        if ext != ".h5" or stem in _NOT_REPORTS:
            continue   # NAME.h5.tmp-PID-N files (an unfinished checkpointed run) end otherwise
        rep = _read_report(os.path.join(directory, name), stem, population, pops)
        if rep.compartments:
            compartments[stem[:-len(COMPARTMENT_SUFFIX)]] = rep
            rep.variable = stem[:-len(COMPARTMENT_SUFFIX)]
        else:
            reports[stem] = rep
    state_path = os.path.join(directory, "state.h5")
    state = _read_state(state_path) if os.path.isfile(state_path) else None
    weights_path = os.path.join(directory, "weights.h5")
    weights = {}
    if os.path.isfile(weights_path):
        with h5py.File(weights_path, "r") as f:
            for proj in _groups(weights_path, f, "report", None):
                weights[proj] = _read_pop_report(weights_path, f, "weight", proj)
    return Run(directory, spikes, reports, compartments, state, provenance, pops, weights)

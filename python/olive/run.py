"""A simulation output directory as Python objects (docs/FORMAT.md, simulation output).

read_run reads what olive-simulate wrote into OUTDIR: spikes.h5, one report
per recorded variable, the compartment reports of cable cells, state.h5 and
the provenance attributes. Report data are read when first used, so opening
a run with large reports is cheap; spikes, mappings and times are read at once.
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
_NOT_REPORTS = {"spikes", "state"}


@dataclass
class Spikes:
    """Every spike of one population: times in ms and the cell (node id) of each, sorted by time."""

    times: np.ndarray
    node_ids: np.ndarray
    population: str
    sorting: str = "by_time"

    def __len__(self):
        return len(self.times)

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

    @functools.cached_property
    def data(self):
        """float32 or float64 [frames, columns], read from the file on first use."""
        with h5py.File(self.path, "r") as f:
            return f[f"report/{self.population}/data"][()]

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


def _only_group(path, f, top):
    if top not in f or not isinstance(f[top], h5py.Group) or len(f[top]) == 0:
        raise FormatError(path, f"/{top} is missing or empty")
    groups = list(f[top])
    if len(groups) != 1:
        raise FormatError(path, f"/{top} holds {len(groups)} populations ({', '.join(groups)}); "
                                "olive writes one: give population=...")
    return groups[0]


def _read_spikes(path, population):
    with h5py.File(path, "r") as f:
        pop = population or _only_group(path, f, "spikes")
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
        return Spikes(times, ids, pop, sorting), attrs_dict(f)


def _read_report(path, variable, population):
    with h5py.File(path, "r") as f:
        pop = population or _only_group(path, f, "report")
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

    population picks the SONATA population when a file holds several (olive
    writes one, 'io' unless --population). Raises FileNotFoundError when the
    directory or its spikes.h5 is missing, FormatError naming the file and
    the fault when a file does not follow docs/FORMAT.md.
    """
    directory = str(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{directory}: no such output directory")
    spikes_path = os.path.join(directory, "spikes.h5")
    if not os.path.isfile(spikes_path):
        raise FileNotFoundError(f"{spikes_path}: missing; is {directory} an olive-simulate output directory?")
    spikes, provenance = _read_spikes(spikes_path, population)
    reports, compartments = {}, {}
    for name in sorted(os.listdir(directory)):
        stem, ext = os.path.splitext(name)
        if ext != ".h5" or stem in _NOT_REPORTS:
            continue   # NAME.h5.tmp-PID-N files (an unfinished checkpointed run) end otherwise
        rep = _read_report(os.path.join(directory, name), stem, population)
        if rep.compartments:
            compartments[stem[:-len(COMPARTMENT_SUFFIX)]] = rep
            rep.variable = stem[:-len(COMPARTMENT_SUFFIX)]
        else:
            reports[stem] = rep
    state_path = os.path.join(directory, "state.h5")
    state = _read_state(state_path) if os.path.isfile(state_path) else None
    return Run(directory, spikes, reports, compartments, state, provenance)

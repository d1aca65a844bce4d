"""The network file as Python objects (docs/FORMAT.md, network file).

read_network gives the cells, the populations of a spiking network with
their parameters, the chemical projections and the gap junctions as numpy
arrays, checked as olive's own readers (common/io/netfile.c, common/io/synfile.c)
check them, so that what Python reads is what olive-simulate would run.
"""

from dataclasses import dataclass, field
from typing import Dict, Optional

import h5py
import numpy as np

from . import conductance, models
from .errors import FormatError
from .h5attrs import attrs_dict, dataset, get_float, get_int, get_str

DEFAULT_G_CAL = 0.68


def _targets(row_ptr):
    """The row (target cell) of every CSR entry."""
    return np.repeat(np.arange(len(row_ptr) - 1, dtype=np.int64), np.diff(row_ptr))


@dataclass
class GapJunctions:
    """Gap junctions as CSR by receiving cell: entries row_ptr[i]..row_ptr[i+1]-1 flow into cell i.

    col holds the sending cell of each junction, conductance its decoded
    value in mS/cm2; bits, offset, scale and codes are what the file stores.
    """

    row_ptr: np.ndarray
    col: np.ndarray
    conductance: np.ndarray
    bits: int
    offset: float
    scale: float
    codes: Optional[np.ndarray] = None
    attrs: Dict[str, object] = field(default_factory=dict)

    @property
    def nnz(self):
        return int(self.row_ptr[-1])

    @property
    def targets(self):
        """int64[nnz]: the receiving cell of each junction."""
        return _targets(self.row_ptr)

    @property
    def sources(self):
        """int32[nnz]: the sending cell of each junction (the same as col)."""
        return self.col

    def to_scipy(self):
        """A scipy.sparse.csr_matrix G with G[i, j] the conductance into i from j (needs scipy)."""
        import scipy.sparse as sp
        n = len(self.row_ptr) - 1
        return sp.csr_matrix((self.conductance, self.col, self.row_ptr), shape=(n, n))


@dataclass
class Population:
    """Cells first <= id < first + count of one model, with their parameters.

    parameters: the attributes of the population group (what the file sets;
    absent ones take the model's default, see value()); per_cell: the
    datasets that override a parameter cell by cell; attrs: any other
    attribute (e.g. a morphology file name).
    """

    name: str
    first: int
    count: int
    model: str
    parameters: Dict[str, float] = field(default_factory=dict)
    per_cell: Dict[str, np.ndarray] = field(default_factory=dict)
    attrs: Dict[str, object] = field(default_factory=dict)

    @property
    def ids(self):
        """int64[count]: the cell ids of this population."""
        return np.arange(self.first, self.first + self.count, dtype=np.int64)

    def value(self, name):
        """float64[count]: the parameter as each cell has it (per-cell dataset, attribute, or default)."""
        if name in self.per_cell:
            return np.asarray(self.per_cell[name], dtype=np.float64)
        if name in self.parameters:
            return np.full(self.count, self.parameters[name])
        defaults = models.parameters(self.model)
        if name not in defaults:
            raise KeyError(f"population {self.name}: {name!r} is not a parameter of model {self.model}")
        return np.full(self.count, defaults[name])


@dataclass
class Projection:
    """Chemical synapses as CSR by target cell; col holds each synapse's source cell.

    weight is float64 per synapse (mV for lif_cuba, nS for lif_coba and
    hh_traub, uS for hh_cable); delay_steps counts steps of dt (the file's
    /synapses dt); delay_ms = delay_steps * dt. site_section (int32) and
    site_x (float64): each synapse's section on its cable target cell and
    position on it (None: the model's syn_sec / syn_x); attrs["sites"], the
    rule that drew them, where the file says.
    """

    name: str
    receptor: str
    row_ptr: np.ndarray
    col: np.ndarray
    weight: np.ndarray
    delay_steps: np.ndarray
    dt: float
    attrs: Dict[str, object] = field(default_factory=dict)
    site_section: Optional[np.ndarray] = None
    site_x: Optional[np.ndarray] = None

    @property
    def nnz(self):
        return int(self.row_ptr[-1])

    @property
    def sources(self):
        """int32[nnz]: the source cell of each synapse (the same as col)."""
        return self.col

    @property
    def targets(self):
        """int64[nnz]: the target cell of each synapse."""
        return _targets(self.row_ptr)

    @property
    def delay_ms(self):
        """float64[nnz]: the delays in ms (steps times dt)."""
        return self.delay_steps.astype(np.float64) * self.dt


@dataclass
class ProceduralProjection:
    """A projection stored as its rule (olive-genconn --procedural, docs/FORMAT.md
    "Procedural projections"): no synapses in the file; olive-simulate draws them
    with olive's own draws (common/connect), which this package does not repeat.
    rule: the rule's attributes (procedural, procedural_p or procedural_n,
    source_cells, target_cells, autapses, seed, key, the weight's and the delay's);
    attrs: the others (source, target, rule text)."""

    name: str
    receptor: str
    rule: Dict[str, object]
    dt: float
    attrs: Dict[str, object] = field(default_factory=dict)

    @property
    def nnz(self):
        """None: a procedural projection's synapse count is known once drawn (total=N, total_out=N: N)."""
        return int(self.rule["procedural_n"]) if self.rule.get("procedural") in ("total", "total_out") else None


@dataclass
class Network:
    """A network file's content. model is 'infoli' for an InfOli (gap-junction) network."""

    path: str
    count: int
    dims: np.ndarray
    model: str
    g_cal: Optional[np.ndarray]
    gap_junctions: GapJunctions
    populations: Dict[str, Population]
    projections: Dict[str, Projection]
    dt: Optional[float]
    attrs: Dict[str, object] = field(default_factory=dict)

    @property
    def is_spiking(self):
        return self.model != models.INFOLI

    def g_cal_values(self):
        """float64[count]: each cell's g_CaL (0.68 where the file has none)."""
        return self.g_cal if self.g_cal is not None else np.full(self.count, DEFAULT_G_CAL)

    def population_of(self, cell):
        """The Population holding a cell id."""
        for p in self.populations.values():
            if p.first <= cell < p.first + p.count:
                return p
        raise IndexError(f"{self.path}: cell {cell} is not in any population")


def _check_csr(path, where, row_ptr, col, count, strict, no_self):
    """The CSR checks of netfile.c / synfile.c, vectorised."""
    if len(row_ptr) != count + 1:
        raise FormatError(path, f"{where}/row_ptr has {len(row_ptr)} entries, expected count+1 = {count + 1}")
    if row_ptr[0] != 0:
        raise FormatError(path, f"{where}/row_ptr[0] = {row_ptr[0]}, must be 0")
    dec = np.flatnonzero(np.diff(row_ptr) < 0)
    if len(dec):
        raise FormatError(path, f"{where}/row_ptr decreases at row {dec[0]}")
    if row_ptr[-1] != len(col):
        raise FormatError(path, f"{where}/row_ptr ends at {row_ptr[-1]}, but col has {len(col)} entries")
    bad = np.flatnonzero((col < 0) | (col >= count))
    if len(bad):
        raise FormatError(path, f"{where}/col[{bad[0]}] = {col[bad[0]]} is not a cell id (the network has {count} cells)")
    if len(col) > 1:
        same_row = np.ones(len(col) - 1, bool)
        starts = row_ptr[1:-1]
        starts = starts[(starts > 0) & (starts < len(col))]
        same_row[starts - 1] = False
        step = np.diff(col.astype(np.int64))
        wrong = np.flatnonzero(same_row & ((step <= 0) if strict else (step < 0)))
        if len(wrong):
            row = int(np.searchsorted(row_ptr, wrong[0] + 1, side="right") - 1)
            order = "strictly ascending" if strict else "ascending"
            raise FormatError(path, f"{where}: the entries of row {row} are not in {order} order")
    if no_self and len(col):
        self_e = np.flatnonzero(col == _targets(row_ptr))
        if len(self_e):
            raise FormatError(path, f"{where}/col[{self_e[0]}] joins cell {col[self_e[0]]} to itself")


def _read_gap_junctions(path, f, count):
    if "gap_junctions" not in f:
        raise FormatError(path, "/gap_junctions is missing")
    g = f["gap_junctions"]
    row_ptr = dataset(path, g, "row_ptr", "iu").astype(np.int64)
    col = dataset(path, g, "col", "iu").astype(np.int32)
    _check_csr(path, "/gap_junctions", row_ptr, col, count, strict=True, no_self=True)
    bits = get_int(path, g, "bits")
    offset = get_float(path, g, "offset", 0.0)
    scale = get_float(path, g, "scale", 0.0)
    stored = g["conductance"][()] if "conductance" in g else None
    w = conductance.decode(path, bits, offset, scale, stored, len(col))
    if not np.all(np.isfinite(w)) or (len(w) and w.min() < 0):
        raise FormatError(path, "/gap_junctions: a conductance is negative or not finite")
    extra = {k: v for k, v in attrs_dict(g).items() if k not in ("bits", "offset", "scale")}
    return GapJunctions(row_ptr, col, w, bits, offset, scale, stored, extra)


def _plugin(model, digest, model_path):
    """Registers the plugin a population names by name and hash: the one this process
    registered, else its descriptor from the places the user chose (olive.plugin.find; a
    path written in the file, model_path of earlier versions, is never used)."""
    pm = models.plugin_of(model)
    if pm is None or pm.hash != digest:
        from . import plugin_files as plugin
        models.register(plugin.find(model, digest, model_path))


def _read_populations(path, cells, count, model_path=()):
    if "populations" not in cells:
        return {}
    pg = cells["populations"]
    if not isinstance(pg, h5py.Group) or len(pg) == 0:
        raise FormatError(path, "/cells/populations is empty or not a group")
    pops = []
    for name in pg:
        g = pg[name]
        where = f"/cells/populations/{name}"
        if not isinstance(g, h5py.Group):
            raise FormatError(path, f"{where} is not a group")
        model = get_str(path, g, "model")
        try:
            if model not in models.SPIKING_MODELS and "model_hash" in g.attrs:   # a plugin's (docs/FORMAT.md)
                _plugin(model, get_str(path, g, "model_hash"), model_path)
            defaults = models.parameters(model)
        except ValueError as e:
            raise FormatError(path, f"{where}: {e}") from None
        first, n = get_int(path, g, "first"), get_int(path, g, "count")
        if first < 0 or n < 0 or first + n > count:
            raise FormatError(path, f"{where}: cells [{first}, {first} + {n}) are not inside the network's {count} cells")
        params, extra = {}, {}
        for a, v in attrs_dict(g).items():
            if a in ("model", "first", "count"):
                continue
            if a in defaults:
                params[a] = get_float(path, g, a)
                if not np.isfinite(params[a]):
                    raise FormatError(path, f"{where}: parameter {a} is not finite")
            elif isinstance(v, str):
                extra[a] = v
            else:
                raise FormatError(path, f"{where}: '{a}' is not a parameter of model {model}")
        per_cell = {}
        for d in g:
            if d not in defaults:
                raise FormatError(path, f"{where}/{d}: '{d}' is not a parameter of model {model}")
            per_cell[d] = dataset(path, g, d, "iuf", n).astype(np.float64)
            if not np.all(np.isfinite(per_cell[d])):
                raise FormatError(path, f"{where}/{d}: a value is not finite")
        pops.append(Population(name, first, n, model, params, per_cell, extra))
    pops.sort(key=lambda p: p.first)
    nxt = 0
    for p in pops:
        if p.first != nxt:
            raise FormatError(path, f"the populations do not tile the cells: population {p.name} starts at {p.first}, expected {nxt}")
        nxt += p.count
    if nxt != count:
        raise FormatError(path, f"the populations cover {nxt} of the {count} cells")
    return {p.name: p for p in pops}


def _read_projection(path, g, name, count, dt):
    where = f"/synapses/{name}"
    if not isinstance(g, h5py.Group):
        raise FormatError(path, f"{where} is not a group")
    receptor = get_str(path, g, "receptor")
    if "procedural" in g.attrs:   # a rule, no synapses (docs/FORMAT.md "Procedural projections")
        kind = get_str(path, g, "procedural")
        if kind not in ("p", "indegree", "total", "outdegree", "total_out"):
            raise FormatError(path, f"{where}: procedural = {kind!r} is not p, indegree, total, outdegree or total_out")
        extra = attrs_dict(g)
        rule_keys = ("procedural", "procedural_p", "procedural_n", "source_cells", "target_cells", "autapses", "seed",
                     "key", "weight", "weight_uniform", "weight_normal", "delay", "delay_uniform_ms", "delay_normal_ms")
        rule = {k: extra.pop(k) for k in rule_keys if k in extra}
        extra.pop("receptor", None)
        return ProceduralProjection(name, receptor, rule, dt, extra)
    row_ptr = dataset(path, g, "row_ptr", "iu").astype(np.int64)
    col = dataset(path, g, "col", "iu").astype(np.int32)
    _check_csr(path, where, row_ptr, col, count, strict=False, no_self=False)
    nnz = len(col)
    if "weight" in g:
        weight = dataset(path, g, "weight", "f", nnz).astype(np.float64)
    elif "weight" in g.attrs:
        weight = np.full(nnz, get_float(path, g, "weight"))
    else:
        raise FormatError(path, f"{where} has neither a dataset nor an attribute 'weight'")
    if not np.all(np.isfinite(weight)):
        raise FormatError(path, f"{where}/weight: a value is not finite")
    if "delay" in g:
        delay = dataset(path, g, "delay", "iu", nnz).astype(np.int64)
    elif "delay" in g.attrs:
        delay = np.full(nnz, get_int(path, g, "delay"), dtype=np.int64)
    else:
        raise FormatError(path, f"{where} has neither a dataset nor an attribute 'delay'")
    if nnz and (delay.min() < 0 or delay.max() > 65535):
        raise FormatError(path, f"{where}: a delay is outside 0..65535 steps")
    extra = {k: v for k, v in attrs_dict(g).items() if k not in ("receptor", "weight", "delay")}
    site_section, site_x = _read_sites(path, g, where, nnz)
    return Projection(name, receptor, row_ptr, col, weight, delay, dt, extra, site_section, site_x)


def _read_sites(path, g, where, nnz):
    """The synapse sites (datasets site_section, site_x; both or neither), checked as
    common/io/synfile.c checks them; (None, None) when the projection has none. Whether a
    section exists on its target cell is the model's (olive-simulate checks it)."""
    have = [k for k in ("site_section", "site_x") if k in g]
    if not have:
        return None, None
    if len(have) == 1:
        raise FormatError(path, f"{where}/{have[0]} is there without {({'site_section', 'site_x'} - set(have)).pop()} "
                                "(a synapse site needs both)")
    section = dataset(path, g, "site_section", "iu", nnz).astype(np.int64)
    x = dataset(path, g, "site_x", "f", nnz).astype(np.float64)
    bad = np.flatnonzero((section < 0) | (section > 2 ** 31 - 1))
    if len(bad):
        raise FormatError(path, f"{where}/site_section[{bad[0]}] = {section[bad[0]]} is not a section index")
    bad = np.flatnonzero(~((x >= 0) & (x <= 1)))
    if len(bad):
        raise FormatError(path, f"{where}/site_x[{bad[0]}] = {x[bad[0]]} is not in [0, 1]")
    return section.astype(np.int32), x


def read_network(path, model_path=()):
    """Read a network file (olive-genconn's output, or one written by hand) into a Network.

    A plugin model the file names (by name and hash) is looked for in model_path
    (directories or .so files, searched first), OLIVE_MODEL_PATH and the model
    cache, and only its descriptor is read: reading a file runs no code.

    Raises FileNotFoundError when the file is missing and FormatError naming
    the file, the object and the fault when it does not follow docs/FORMAT.md.
    """
    path = str(path)
    try:
        f = h5py.File(path, "r")
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such network file") from None
    except OSError as e:
        raise FormatError(path, f"cannot be opened as HDF5 ({e})") from None
    with f:
        if get_str(path, f, "format", "") != "olive-network":
            raise FormatError(path, "root attribute 'format' is not 'olive-network': not an olive network file")
        version = get_int(path, f, "format_version")
        if version != 1:
            raise FormatError(path, f"format_version {version} is not supported (this package reads 1)")
        if "cells" not in f:
            raise FormatError(path, "/cells is missing")
        cells = f["cells"]
        count = get_int(path, cells, "count")
        if count < 1:
            raise FormatError(path, f"/cells count = {count}, must be >= 1")
        dims = np.asarray(cells.attrs.get("dims", [count, 1, 1]), dtype=np.int64).reshape(-1)
        if len(dims) != 3 or int(np.prod(dims)) != count:
            raise FormatError(path, f"/cells dims {list(dims)} do not multiply to count {count}")
        g_cal = None
        if "g_CaL" in cells:
            g_cal = dataset(path, cells, "g_CaL", "iuf", count).astype(np.float64)
            if not np.all(np.isfinite(g_cal)) or g_cal.min() < 0:
                raise FormatError(path, "/cells/g_CaL: a value is negative or not finite")
        gj = _read_gap_junctions(path, f, count)
        pops = _read_populations(path, cells, count, model_path)
        model = get_str(path, cells, "model", "") or models.INFOLI
        if pops and "model" not in cells.attrs:
            raise FormatError(path, "/cells has populations but no attribute 'model'")
        projections, dt = {}, None
        if "synapses" in f:
            s = f["synapses"]
            dt = get_float(path, s, "dt")
            if not (0 < dt <= 10):
                raise FormatError(path, f"/synapses dt = {dt} ms must be in (0, 10]")
            for name in sorted(s):
                projections[name] = _read_projection(path, s[name], name, count, dt)
        return Network(path, count, dims, model, g_cal, gj, pops, projections, dt, attrs_dict(f))

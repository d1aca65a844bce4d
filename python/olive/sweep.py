"""Parameter sweeps: a grid of olive-simulate runs and one table of their summaries.

    import olive
    table = olive.sweep("net.h5", params={"exc.tau_m": [10, 15, 20], "rate": [5, 10, 20]},
                        poisson=[{"rate": "{rate}", "weight": 0.5, "receptor": "ge"}],
                        time=200, outdir="sweep", jobs=4)

Every combination of the values (a cartesian product, the last key varying
fastest) is one run, into outdir/point-NNN. A key is one of:
  - a cell parameter, POP.NAME, NAME@POP or NAME: passed as --param KEY=VALUE
    (olive-simulate's --param: the network file is not rewritten);
  - a placeholder: "{key}" appears in another argument (a --poisson or
    --pulse specification, an option value) and is replaced by the value;
  - an option, "--seed" and the like: passed as --seed VALUE.
outdir/grid.csv lists the points (point, then one column per key);
outdir/sweep.csv is the table: the point's values, then its summary (spikes,
rate_hz, and per population POP_spikes, POP_rate_hz, POP_cv_isi), and an
error column naming why a point failed. The SLURM job array of
examples/slurm/sweep-array.sbatch runs the points of a grid.csv as array
tasks; `python3 -m olive.sweep collect OUTDIR` builds the same table.
"""

import csv
import itertools
import os
import sys
import types
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np

from .commands import _value, simulate_argv
from .errors import OliveError
from .network import read_network
from .programs import run_program


class SweepError(OliveError):
    """Points of a sweep failed: failures is [(point, {key: value}, message)]; table holds every row."""

    def __init__(self, failures, table):
        self.failures, self.table = failures, table
        lines = [f"point {i} ({_describe(p)}): {why}" for i, p, why in failures]
        RuntimeError.__init__(self, f"{len(failures)} of the sweep's points failed:\n  " + "\n  ".join(lines))
        self.program, self.returncode, self.stderr, self.command = "olive.sweep", 1, "", []
        self.message = str(self)


def _describe(point):
    return ", ".join(f"{k}={v}" for k, v in point.items())


def grid(params):
    """The points of params {key: [values]}: a list of {key: value}, the last key varying fastest."""
    keys = list(params)
    for k in keys:
        if isinstance(params[k], (str, bytes)) or not hasattr(params[k], "__iter__"):
            raise TypeError(f"sweep: params[{k!r}] must be a list of values, not {params[k]!r}")
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(params[k]) for k in keys))]


def point_dir(outdir, i):
    return os.path.join(os.fspath(outdir), f"point-{i:03d}")


def write_grid(path, points):
    """points ({key: value} each) as CSV: point, then one column per key."""
    keys = list(points[0]) if points else []
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")   # read by the SLURM example's bash too
        w.writerow(["point"] + keys)
        for i, p in enumerate(points):
            w.writerow([i] + [_value(p[k]) for k in keys])


def read_grid(path):
    """The points of a grid.csv (values as text): [(point, {key: value})]."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0][:1] != ["point"]:
        raise ValueError(f"{path}: not a sweep grid (its first column must be 'point')")
    keys = rows[0][1:]
    out = []
    for n, r in enumerate(rows[1:], start=2):
        if len(r) != len(keys) + 1 or not r[0].isdigit():
            raise ValueError(f"{path}: line {n} must hold a point number and {len(keys)} value(s)")
        out.append((int(r[0]), dict(zip(keys, r[1:]))))
    return out


def point_args(key, value):
    """olive-simulate arguments of one grid value that is not a placeholder."""
    text = _value(value)
    return [key, text] if key.startswith("--") else ["--param", f"{key}={text}"]


def _substitute(argv, point):
    out = []
    for a in argv:
        for k, v in point.items():
            a = a.replace("{" + k + "}", _value(v))
        out.append(a)
    return out


def _populations(network):
    """[(name, first, count)] of the network's populations by first cell."""
    net = read_network(network)
    return sorted(((p.name, p.first, p.count) for p in net.populations.values()), key=lambda p: p[1])


def _cv(times, ids):
    """Mean coefficient of variation of the inter-spike intervals over the cells with 3 or more spikes (NaN: none)."""
    order = np.lexsort((times, ids))
    t, c = times[order], ids[order]
    cvs = []
    for cell in np.unique(c):
        isi = np.diff(t[c == cell])
        if len(isi) >= 2 and isi.mean() > 0:
            cvs.append(isi.std() / isi.mean())
    return float(np.mean(cvs)) if cvs else float("nan")


def summarize(directory, network=None):
    """The numbers of one run: spikes and rate_hz over every cell, and per population POP_spikes, POP_rate_hz, POP_cv_isi.

    network: the network file (default: the one in the run's provenance),
    for the populations. Reads every spike population of spikes.h5: one per
    network population (by name), or one over all cells, split by the
    populations' id ranges.
    """
    path = os.path.join(os.fspath(directory), "spikes.h5")
    with h5py.File(path, "r") as f:
        a = f.attrs
        dt, steps = float(a["dt"]), int(a["steps"])
        cells = int(a["cells"])
        net = network or (a["network"].decode() if isinstance(a["network"], bytes) else str(a["network"]))
        groups = {name: (f[f"spikes/{name}/timestamps"][()].astype(np.float64), f[f"spikes/{name}/node_ids"][()].astype(np.int64))
                  for name in f["spikes"]}
    duration_s = steps * dt / 1000.0
    pops = _populations(net) if net and os.path.isfile(net) else []
    row = {"spikes": sum(len(t) for t, _ in groups.values())}
    row["rate_hz"] = row["spikes"] / max(cells, 1) / duration_s if duration_s > 0 else float("nan")
    for name, first, count in pops:
        if name in groups:   # a spike population per network population
            t, ids = groups[name]
        else:                # one over every cell: the population's id range
            t = np.concatenate([g[0] for g in groups.values()]) if groups else np.zeros(0)
            ids = np.concatenate([g[1] for g in groups.values()]) if groups else np.zeros(0, np.int64)
            sel = (ids >= first) & (ids < first + count)
            t, ids = t[sel], ids[sel]
        row[f"{name}_spikes"] = len(t)
        row[f"{name}_rate_hz"] = len(t) / count / duration_s if duration_s > 0 else float("nan")
        row[f"{name}_cv_isi"] = _cv(t, ids)
    return row


class Table(list):
    """The sweep's rows (dicts) where pandas is not installed, with the few
    DataFrame operations the docs use: table["col"] (a list), table[["a", "b"]]
    (a Table of those columns), len(), iteration over rows, to_string(index=False)."""

    def __getitem__(self, key):
        if isinstance(key, str):
            return [r.get(key) for r in self]
        if isinstance(key, (list, tuple)) and all(isinstance(k, str) for k in key):
            return Table({k: r.get(k) for k in key} for r in self)
        return list.__getitem__(self, key)

    @property
    def columns(self):
        keys = []
        for r in self:
            keys += [k for k in r if k not in keys]
        return keys

    def to_string(self, index=True):
        cols = self.columns
        cells = [[_fmt(r.get(c)) for c in cols] for r in self]
        heads = ([""] if index else []) + cols
        rows = [([str(i)] if index else []) + c for i, c in enumerate(cells)]
        w = [max([len(h)] + [len(r[j]) for r in rows]) for j, h in enumerate(heads)]
        return "\n".join(" ".join(x.rjust(w[j]) for j, x in enumerate(line)) for line in [heads] + rows)

    def __str__(self):
        return self.to_string()


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}" if v == v else "NaN"
    return "" if v is None else str(v)


def _table(rows):
    """A pandas DataFrame where pandas is installed (pip install 'olive[sweep]'), else a Table."""
    try:
        import pandas
    except ImportError:
        return Table(rows)
    return pandas.DataFrame(rows)


def write_table(path, rows):
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, restval="")
        w.writeheader()
        w.writerows(rows)


def collect(outdir, network=None, points=None, errors=None):
    """The table of a sweep directory (its grid.csv and point-NNN runs), also written as outdir/sweep.csv.

    points: [(point, {key: value})] (default: read from outdir/grid.csv);
    errors: {point: message} of the runs known to have failed. A point
    whose run is missing or unreadable gets its reason in the error column.
    Returns a pandas DataFrame when pandas is installed, else a Table (a list of dicts
    that takes table[["a", "b"]] and to_string() as a DataFrame does);
    raises SweepError (its table attribute holds the rows) when any point failed.
    """
    outdir = os.fspath(outdir)
    if points is None:
        points = read_grid(os.path.join(outdir, "grid.csv"))
    errors = dict(errors or {})
    rows, failures = [], []
    for i, p in points:
        row = {"point": i, **p}
        why = errors.get(i)
        if why is None:
            d = point_dir(outdir, i)
            try:
                row.update(summarize(d, network))
            except (OSError, KeyError, ValueError) as e:
                why = f"{d}: no readable run ({e})"
        row["error"] = why or ""
        if why:
            failures.append((i, p, why))
        rows.append(row)
    write_table(os.path.join(outdir, "sweep.csv"), rows)
    table = _table(rows)
    if failures:
        raise SweepError(failures, table)
    return table


def sweep(network, params, *, outdir, time=None, steps=None, jobs=1, record="none", threads=None, force=False,
          **simulate_kwargs):
    """Run olive-simulate on network for every point of the grid params, jobs at a time; return the table.

    params: {key: [values]} (see the module's help: --param keys, "{key}"
    placeholders in other arguments, "--option" keys). time/steps, record,
    pulses, poisson and every other keyword are olive.simulate's. threads:
    OpenMP threads per run (default 1 when jobs > 1). outdir must not exist
    unless force. Returns collect()'s table (sweep.csv): one row per point;
    a failed point raises SweepError naming it and olive-simulate's message,
    after every other point has run.
    """
    outdir = os.fspath(outdir)
    if os.path.exists(outdir) and not force:
        raise FileExistsError(f"{outdir} exists (force=True replaces its runs)")
    os.makedirs(outdir, exist_ok=True)
    points = grid(params)
    if threads is None and jobs > 1:
        threads = 1
    kw = dict(time=time, steps=steps, record=record, threads=threads, force=True, **simulate_kwargs)
    probe = " ".join(simulate_argv(network, "", **kw))
    placeholders = {k for k in params if "{" + k + "}" in probe}

    def argv_of(i, p):
        argv = _substitute(simulate_argv(network, point_dir(outdir, i), **kw), {k: p[k] for k in placeholders})
        for k in params:
            if k not in placeholders:
                argv += point_args(k, p[k])
        return argv

    def run(i, p):
        for attempt in range(3):
            try:
                run_program("olive-simulate", argv_of(i, p), progress=False)
                return i, None
            except OliveError as e:
                # Open MPI that could not start (seen with many runs at once on a busy machine): the run never
                # began, so it is started again, twice at most; any other failure is the point's
                if "MPI_Init" not in e.message or attempt == 2:
                    return i, e.message

    write_grid(os.path.join(outdir, "grid.csv"), points)
    with ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
        errors = dict(r for r in pool.map(lambda ip: run(*ip), enumerate(points)) if r[1])
    return collect(outdir, network, list(enumerate(points)), errors)


def _main(argv):
    """python3 -m olive.sweep grid OUTDIR KEY=V1,V2,... | collect OUTDIR [NETWORK]"""
    usage = ("usage: python3 -m olive.sweep grid OUTDIR KEY=V1,V2,... ...   (writes OUTDIR/grid.csv)\n"
             "       python3 -m olive.sweep collect OUTDIR [NETWORK]         (OUTDIR/sweep.csv from OUTDIR/point-NNN)")
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(usage, file=sys.stderr if argv[:1] != ["--help"] and argv[:1] != ["-h"] else sys.stdout)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "grid":
        params = {}
        for spec in rest[1:]:
            key, eq, values = spec.partition("=")
            if not eq or not key or not values:
                print(f"olive.sweep grid: '{spec}' must be KEY=V1,V2,...", file=sys.stderr)
                return 2
            params[key] = values.split(",")
        os.makedirs(rest[0], exist_ok=True)
        points = grid(params)
        write_grid(os.path.join(rest[0], "grid.csv"), points)
        print(len(points))
        return 0
    if cmd == "collect" and len(rest) in (1, 2):
        try:
            table = collect(rest[0], rest[1] if len(rest) == 2 else None)
        except SweepError as e:
            print(f"olive.sweep collect: {e}", file=sys.stderr)
            return 1
        print(f"{os.path.join(rest[0], 'sweep.csv')}: {len(table)} points")
        return 0
    print(usage, file=sys.stderr)
    return 2


class _CallableModule(types.ModuleType):
    """olive.sweep(...) runs sweep(); olive.sweep.collect etc. stay reachable, and `python3 -m
    olive.sweep` works without the package importing this module first (runpy would warn)."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))

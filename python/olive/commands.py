"""genconn, simulate and analyze: the programs' command lines from Python arguments.

These are thin: every keyword argument becomes the program's option of the
same name (record_every=20 -> --record-every 20; True -> a bare flag; a
list -> the option repeated; a (lo, hi) pair -> LO:HI), so every option of
the programs' --help is reachable and the programs themselves judge the
values. Only the options with a structure of their own (populations,
projections, parameters, pulses, Poisson inputs) get Python forms.
"""

import numbers
import os

from . import models
from .errors import OliveInterrupted
from .programs import run_program
from .run import read_run


def _value(v):
    """One option value as text: a (lo, hi) pair as LO:HI, a list of names as a,b,c."""
    if isinstance(v, bool):
        raise TypeError("a boolean is a flag, not a value")
    if isinstance(v, (tuple, list)):
        if all(isinstance(x, numbers.Number) for x in v):
            return ":".join(_num(x) for x in v)
        return ",".join(str(x) for x in v)
    if isinstance(v, numbers.Number):
        return _num(v)
    return os.fspath(v) if hasattr(v, "__fspath__") else str(v)


def _num(x):
    """A number as the shortest text that reads back the same (repr of a float)."""
    if isinstance(x, numbers.Integral):
        return str(int(x))
    return repr(float(x))


def options(**kwargs):
    """['--name', 'value', ...] from keyword arguments (None and False: left out)."""
    argv = []
    for key, v in kwargs.items():
        opt = "--" + key.replace("_", "-")
        if v is None or v is False:
            continue
        if v is True:
            argv.append(opt)
        elif isinstance(v, list) and not all(isinstance(x, numbers.Number) for x in v):
            for x in v:
                argv += [opt, _value(x)]
        else:
            argv += [opt, _value(v)]
    return argv


def _spec(d):
    """A key=value,... specification (--projection, --poisson) from a dict."""
    if isinstance(d, str):
        return d
    parts = []
    for k, v in d.items():
        if v is None:
            continue
        if v is True and k not in ("autapses",):
            parts.append(str(k))
        elif isinstance(v, bool):
            parts.append(f"{k}={'yes' if v else 'no'}")
        else:
            parts.append(f"{k}={_value(v)}")
    return ",".join(parts)


def _populations(pops):
    items = pops.items() if isinstance(pops, dict) else pops
    return [f"{name}:{int(n)}" for name, n in items]


def _params(params):
    """--param NAME=VALUE[@POP] from {name: value} or {(name, pop): value} or {'name@pop': value}."""
    out = []
    for k, v in params.items():
        name = f"{k[0]}@{k[1]}" if isinstance(k, tuple) else str(k)
        base, _, pop = name.partition("@")
        out.append(f"{base}={_value(v)}" + (f"@{pop}" if pop else ""))
    return out


def _v0(v0):
    if isinstance(v0, dict):
        return [f"{_value(r)}@{pop}" for pop, r in v0.items()]
    return [_value(v0)]


def genconn(output, *, populations=None, projections=None, params=None, v0=None, dims=None, force=False,
            progress=True, extra_args=(), **kwargs):
    """Run olive-genconn to write network file output; return its path.

    populations: [(name, n), ...] or {name: n}; projections: dicts such as
    {"from": "exc", "to": "all", "p": 0.02, "weight": 1.62, "delay": 0,
    "receptor": "ge"} (ranges as (a, b)) or the option's own text; params:
    {"t_ref": 5, ("v0", "inh"): -55} or {"t_ref@inh": 5}; v0: (a, b) or
    {pop: (a, b)}; dims: (x, y[, z]); any other keyword is the option of the
    same name (model="lif_cuba", cells=1000, generator="gaussian",
    density=10, conductance=(0.02, 0.06), seed=7, dt=0.1, ...).
    """
    argv = ["-o", os.fspath(output)]
    if populations is not None:
        for p in _populations(populations):
            argv += ["--population", p]
    for p in projections or ():
        argv += ["--projection", _spec(p)]
    for p in _params(params or {}):
        argv += ["--param", p]
    if v0 is not None:
        for r in _v0(v0):
            argv += ["--v0", r]
    if dims is not None:
        argv += ["--dims", "x".join(str(int(x)) for x in dims) if not isinstance(dims, str) else dims]
    argv += options(force=force, **kwargs) + [str(a) for a in extra_args]
    # olive-genconn --model (spiking networks) has no --progress: it has no long phase to show
    run_program("olive-genconn", argv, progress=progress, progress_option=kwargs.get("model") in (None, "infoli"))
    return os.fspath(output)


def _pulse(p):
    if isinstance(p, str):
        return p
    if isinstance(p, dict):
        keys = ("start", "stop", "amp", "first", "last")
        p = [p[k] for k in keys if k in p]
    # an amplitude with a unit ("50pA", "0.5nA", "6uA/cm2") goes to olive-simulate as written
    return ":".join(x if isinstance(x, str) else _num(x) for x in p)


def _cell_item(x):
    if isinstance(x, str):
        return x
    if isinstance(x, range):
        if x.step != 1:
            return ",".join(str(i) for i in x)
        return f"{x.start}:{x.stop}"
    if isinstance(x, tuple) and len(x) == 2 and all(isinstance(v, numbers.Integral) for v in x):
        return f"{int(x[0])}:{int(x[1])}"
    if isinstance(x, numbers.Integral):
        return str(int(x))
    raise TypeError(f"record_cells: {x!r} is not a cell id, (a, b), range, population name or 'pop[a:b]'")


def _cell_set(x):
    """--record-cells SET: a cell id, (a, b), a range, a name, or a list of them."""
    if isinstance(x, (str, range, numbers.Integral)) or (isinstance(x, tuple) and len(x) == 2 and
                                                       all(isinstance(v, numbers.Integral) for v in x)):
        return _cell_item(x)
    return ",".join(_cell_item(i) for i in x)


def _record_cells(rc):
    """record_cells=SET, or {variable: SET} (key None: every variable without its own)."""
    if isinstance(rc, dict):
        return [a for var, cells in rc.items() for a in
                ("--record-cells", _cell_set(cells) if var is None else f"{var}={_cell_set(cells)}")]
    return ["--record-cells", _cell_set(rc)]


def simulate(network, output, *, time=None, steps=None, record=None, pulses=(), poisson=(), ranks=None,
             mpirun=None, force=False, progress=True, extra_args=(), **kwargs):
    """Run olive-simulate on network into directory output; return olive.read_run(output).

    time (ms) or steps: the duration; record: a variable name, a list of
    them, 'all' or 'none' (the default: spikes only); pulses: (start_ms, stop_ms, amp[, first, last])
    tuples, amp a number in the model's unit or a string with a unit
    ("50pA", "0.5nA", "6uA/cm2", "2mV"; olive-simulate --help lists the
    units); poisson: dicts {"rate": 5, "weight": 0.5, "receptor": "ge",
    "n": 10, "cells": (0, 100), "time": (0, 200)} or the option's text;
    params: {"exc.tau_m": 15} -> --param exc.tau_m=15 (a population's cell
    parameter for this run; NAME=VALUE@POP and NAME: every population);
    ranks > 1: under mpirun -np ranks; any other keyword is the option of
    the same name (record_every=20, method="euler", seed=3, backend="cpu",
    threads=2, record_compartments=["v"], ...). record_cells: the recorded
    cells, an id, (a, b) or range(a, b) (a <= id < b), a population name,
    "exc[0:10]" (ids within exc), or a list of these; {variable: cells} per
    variable ({"v": "exc", "ge": range(10)}; key None: the others).

    Ctrl-C stops the run at its next 256-step boundary with the output so far
    and raises olive.OliveInterrupted, whose state names output/state.h5:
    simulate(..., restart=e.state) with the same time or steps continues it.
    """
    argv = simulate_argv(network, output, time=time, steps=steps, record=record, pulses=pulses, poisson=poisson,
                         force=force, extra_args=extra_args, **kwargs)
    try:
        run_program("olive-simulate", argv, progress=progress, ranks=ranks, mpirun=mpirun)
    except OliveInterrupted as e:
        state = os.path.join(os.fspath(output), "state.h5")
        # olive said it stopped at a step boundary (mpirun then exits 1, a lone olive-simulate 130)
        e.state = state if ": stopped by " in e.message and os.path.isfile(state) else None
        raise
    return read_run(output)


def simulate_argv(network, output, *, time=None, steps=None, record=None, pulses=(), poisson=(), params=None,
                  force=False, extra_args=(), open_horizon=False, **kwargs):
    """olive-simulate's arguments (without the program) for simulate()'s arguments.

    params: {"exc.tau_m": 15, "tau_m@inh": 12, "I_e": 2} -> --param exc.tau_m=15 ...
    open_horizon: time and steps may both be left out (olive.Simulation).
    """
    if time is not None and steps is not None or (time is None and steps is None and not open_horizon):
        raise ValueError("simulate: give exactly one of time (ms) and steps")
    argv = [os.fspath(network), "-o", os.fspath(output)]
    for k, v in (params or {}).items():
        argv += ["--param", f"{k}={_value(v)}"]
    if time is not None:
        argv += ["--time", _value(time)]
    elif steps is not None:
        argv += ["--steps", str(int(steps))]
    if record is not None:
        argv += ["--record", record if isinstance(record, str) else ",".join(record)]
    for p in pulses:
        argv += ["--pulse", _pulse(p)]
    for p in poisson:
        argv += ["--poisson", _spec(p)]
    cells = kwargs.pop("record_cells", None)
    if cells is not None:
        argv += _record_cells(cells)
    rc = kwargs.pop("record_compartments", None)
    if rc is not None:
        argv += ["--record-compartments", rc if isinstance(rc, str) else ",".join(rc)]
    if "model_path" not in kwargs:
        kwargs["model_path"] = models.plugin_files_for(network) or None
    return argv + options(force=force, **kwargs) + [str(a) for a in extra_args]


def analyze(subcommand, *inputs, csv=False, progress=False, extra_args=(), **kwargs):
    """Run olive-analyze SUBCOMMAND on inputs (output directories or files); return its result.

    Returns stdout as text; with csv=True, summary-like key,value output as a
    dict of strings and column tables as a list of dicts. 'compare' returns
    True when the runs are equal and False when they differ (exit status 1);
    every other failure raises OliveError with olive-analyze's message.
    """
    argv = [subcommand] + [os.fspath(i) for i in inputs] + options(csv=csv, **kwargs) + [str(a) for a in extra_args]
    ok = (0, 1) if subcommand == "compare" else (0,)
    done = run_program("olive-analyze", argv, progress=progress, ok_codes=ok, echo_stdout=False)
    if subcommand == "compare":
        return done.returncode == 0
    if not csv:
        return done.stdout
    return parse_csv(done.stdout)


def parse_csv(text):
    """olive-analyze's CSV: key,value lines as a dict, a table with a header line as a list of dicts."""
    import csv as _csv
    rows = list(_csv.reader(line for line in text.splitlines() if line.strip()))
    if not rows:
        return {}
    if all(len(r) == 2 for r in rows) and rows[0] != ["key", "value"] and not _looks_like_header(rows):
        return {k: v for k, v in rows}
    head, body = rows[0], rows[1:]
    if head == ["key", "value"]:
        return {k: v for k, v in body}
    return [dict(zip(head, r)) for r in body]


def _looks_like_header(rows):
    """A two-column table whose first line names its columns (no numbers in it, numbers below)."""
    def num(s):
        try:
            float(s)
            return True
        except ValueError:
            return False
    return len(rows) > 1 and not any(num(x) for x in rows[0]) and all(num(x) for x in rows[1])

"""Plots of a run with matplotlib (an optional dependency): a raster coloured by
population with the stimulus pulses shaded, population rates, recorded traces.

Each function draws into ax (a new figure when None) and returns the axes, so
that in a notebook the figure shows inline; Run.plot_raster(), plot_rates()
and plot_traces() call them. Populations come from the network file the run
names in its provenance (or network=, a path or an olive.Network); pulses
from the --pulse options of its recorded command line.
"""

import os

import numpy as np


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("olive's plots need matplotlib, which is not installed: pip install matplotlib") from e
    return plt


def _axes(ax):
    return ax if ax is not None else _pyplot().subplots()[1]


def _find_recorded(run, recorded):
    """A path recorded at simulation time: as it is, else beside the run directory (as olive-analyze looks)."""
    if not recorded:
        return None
    if os.path.exists(recorded):
        return recorded
    beside = os.path.join(os.path.dirname(os.path.abspath(run.path)), recorded)
    return beside if not os.path.isabs(recorded) and os.path.exists(beside) else None


def populations(run, network=None):
    """[(name, first, count)] of the run's network sorted by first cell; [] when it has none or is not found.

    network: a path or an olive.Network (default: the output's own populations
    when it has several, else the network file in the run's provenance).
    """
    from .network import Network, read_network
    own = getattr(run, "populations", {})
    if network is None and len(own) > 1:
        return sorted(((p.name, p.first, p.count) for p in own.values()), key=lambda p: p[1])
    if network is None:
        network = _find_recorded(run, str(run.provenance.get("network", "")))
        if network is None:
            return []
    net = network if isinstance(network, Network) else read_network(network)
    return sorted(((p.name, p.first, p.count) for p in net.populations.values()), key=lambda p: p[1])


def pulses(run):
    """[(start_ms, stop_ms, first_cell, last_cell or None)] of the --pulse options in the run's command line."""
    words, out = str(run.provenance.get("command", "")).split(), []
    for prev, word in zip([""] + words, words):
        value = word if prev == "--pulse" else word[8:] if word.startswith("--pulse=") else None
        if value is None:
            continue
        f = value.split(":")
        try:
            start, stop = float(f[0]), float(f[1])
            first, last = (int(f[3]), int(f[4])) if len(f) == 5 else (0, None)
        except (ValueError, IndexError):
            continue
        out.append((start, stop, first, last))
    return out


def _groups(run, network):
    """(label, lo, hi) per colour: the populations, or the whole run as one."""
    pops = populations(run, network)
    return [(n, a, a + c) for n, a, c in pops] or [(run.spikes.population, 0, run.cells)]


def _shade(ax, run, rows):
    for i, (start, stop, first, last) in enumerate(pulses(run)):
        kw = dict(color="#ffdeb3", zorder=0, label="stimulus" if i == 0 else None)
        if rows:
            ax.fill_between([start, stop], first - 0.5, (run.cells if last is None else last) - 0.5, **kw)
        else:
            ax.axvspan(start, stop, **kw)


def plot_raster(run, ax=None, network=None, stimulus=True, rates=False, bin_ms=5.0, markersize=2.0):
    """Spike raster, one scatter (its own colour and legend entry) per population.

    rates=True adds the population rates in a panel below (returns (raster_axes, rate_axes)).
    """
    if rates and ax is None:
        fig, (ax, rx) = _pyplot().subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    else:
        ax, rx = _axes(ax), None
    t, ids = run.spikes.times, run.spikes.node_ids
    for i, (name, lo, hi) in enumerate(_groups(run, network)):
        sel = (ids >= lo) & (ids < hi)
        ax.scatter(t[sel], ids[sel], s=markersize, color=f"C{i % 10}", marker="s", linewidths=0, label=name)
    if stimulus:
        _shade(ax, run, rows=True)
    ax.set_xlim(run.t_start, run.t_stop)
    ax.set_ylim(-0.5, run.cells - 0.5)
    ax.set_ylabel("cell (node id)")
    ax.legend(loc="upper right", markerscale=3)
    if rates:
        plot_rates(run, ax=rx, network=network, bin_ms=bin_ms, stimulus=stimulus)
        return ax, rx
    ax.set_xlabel("time (ms)")
    return ax


def rates(run, bin_ms=5.0, network=None):
    """(edges, {population: Hz per cell in each bin}) over the time the run covers."""
    edges = np.arange(run.t_start, run.t_stop + bin_ms * 0.5, bin_ms)
    if edges[-1] < run.t_stop:
        edges = np.append(edges, run.t_stop)
    t, ids = run.spikes.times, run.spikes.node_ids
    out = {}
    for name, lo, hi in _groups(run, network):
        n, _ = np.histogram(t[(ids >= lo) & (ids < hi)], edges)
        out[name] = n / max(hi - lo, 1) / (np.diff(edges) / 1000.0)
    return edges, out


def plot_rates(run, ax=None, network=None, bin_ms=5.0, stimulus=True):
    """Population rates (Hz per cell) in bins of bin_ms, one step line per population."""
    ax = _axes(ax)
    edges, hz = rates(run, bin_ms, network)
    for i, (name, r) in enumerate(hz.items()):
        ax.stairs(r, edges, color=f"C{i % 10}", label=name)
    if stimulus:
        _shade(ax, run, rows=False)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("rate (Hz per cell)")
    ax.legend(loc="upper right")
    return ax


def plot_traces(run, variable=None, cells=None, ax=None, compartments=False):
    """Recorded values over time: one line per cell (default the first 4 recorded), or with
    compartments=True one line per compartment of the cells (the compartment report)."""
    reports = run.compartment_reports if compartments else run.reports
    if variable is None:
        variable = next((v for v in ("v_axon", "v") if v in reports), None) or next(iter(reports), None)
    if variable not in reports:
        kind = "compartment report" if compartments else "report"
        raise KeyError(f"{run.path}: no {kind} of '{variable}' (recorded: {', '.join(sorted(reports)) or 'none'})")
    rep = reports[variable]
    cells = rep.node_ids[:4] if cells is None else np.atleast_1d(cells)
    ax = _axes(ax)
    for cell in cells:
        values = rep.trace(int(cell))
        if compartments:
            for j, col in enumerate(np.atleast_2d(values.T)):
                ax.plot(rep.times, col, label=f"cell {int(cell)} compartment {j}")
        else:
            ax.plot(rep.times, values, label=f"cell {int(cell)}")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(f"{variable} ({rep.units or '?'})")
    ax.legend(loc="upper right")
    return ax

"""A run as Neo objects, the currency of PyNN, Elephant and NEO-based tools.

run_to_neo gives one neo.Block with one Segment: a SpikeTrain per cell (every
cell, so that index = cell id; empty trains included) and an AnalogSignal
per recorded variable, its channels the recorded cells (array annotation
'channel_index' = node id) or, for compartment reports, the compartments
(array annotations 'node_id', 'element_id', 'element_pos').
"""

import numpy as np

_UNITS = {
    "ms": "ms", "mV": "mV", "nS": "nS", "uS": "uS", "pA": "pA", "nA": "nA",
    "uA/cm2": "uA/cm**2", "mS/cm2": "mS/cm**2", "1": "dimensionless", "": "dimensionless",
    "steps": "dimensionless",
}


def _require_neo():
    try:
        import neo
        import quantities as pq
    except ImportError as e:
        raise ImportError("olive's Neo export needs the packages neo and quantities: "
                          "pip install 'olive[neo]' (or pip install neo)") from e
    return neo, pq


def quantity_units(pq, unit):
    """A quantities unit for an olive unit string (dimensionless for gates, steps and unknown ones)."""
    name = _UNITS.get(unit, "dimensionless")
    return pq.dimensionless if name == "dimensionless" else pq.Quantity(1.0, name).units


def _signal(neo, pq, rep, name):
    units = quantity_units(pq, rep.units)
    t_start = rep.times[0] if rep.frames else rep.start
    sig = neo.AnalogSignal(np.asarray(rep.data), units=units, t_start=t_start * pq.ms,
                           sampling_period=rep.step * pq.ms, name=name,
                           description=f"olive report {rep.path}, units {rep.units or '1'}")
    sig.annotate(variable=rep.variable, olive_units=rep.units, source_file=rep.path)
    if rep.compartments:
        cell = np.repeat(rep.node_ids, np.diff(rep.index_pointers))
        sig.array_annotate(node_id=cell, element_id=rep.element_ids, element_pos=rep.element_pos)
    else:
        sig.array_annotate(channel_index=rep.node_ids)
    return sig


def run_to_neo(run, cells=None, reports=True):
    """A neo.Block of the run: SpikeTrains of cells (default all: 0..cells-1), AnalogSignals of reports.

    Spike times and report times keep olive's values in ms (times at the end
    of their step, (i+1)*dt); t_start and t_stop span the steps this output
    covers. reports=False leaves the AnalogSignals out.
    """
    neo, pq = _require_neo()
    ids = np.arange(run.cells) if cells is None else np.asarray(cells)
    t_start = run.t_start
    t_stop = run.t_stop
    if len(run.spikes):
        t_stop = max(t_stop, float(run.spikes.times.max()))
    block = neo.Block(name=f"olive run {run.path}", description=str(run.provenance.get("command", "")))
    block.annotate(**{k: v for k, v in run.provenance.items() if isinstance(v, (str, int, float))})
    seg = neo.Segment(name="olive-simulate", index=0)
    block.segments.append(seg)
    for cell, times in zip(ids, run.spikes.trains(ids)):
        st = neo.SpikeTrain(times, units=pq.ms, t_start=t_start * pq.ms, t_stop=t_stop * pq.ms,
                            name=f"cell {int(cell)}")
        st.annotate(source_id=int(cell), population=run.population_of(int(cell)))
        seg.spiketrains.append(st)
    if reports:
        for var, rep in run.reports.items():
            seg.analogsignals.append(_signal(neo, pq, rep, var))
        for var, rep in run.compartment_reports.items():
            seg.analogsignals.append(_signal(neo, pq, rep, f"{var}_compartments"))
    return block

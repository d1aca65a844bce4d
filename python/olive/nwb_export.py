"""A run as an NWB file, where experimental data live (pynwb).

Spikes go to the Units table, one row per cell with id = the cell id (every
cell, empty ones too, so rows line up with the network). Each report becomes
a TimeSeries in the processing module 'olive' with its units and frame
times, plus a table '<name>_columns' giving the cell (and, for compartment
reports, the section and position) of each column. NWB counts time in
seconds: olive's ms are divided by 1000.
"""

import datetime
import uuid

import numpy as np

from .atomic import atomic_output


def _require_pynwb():
    try:
        import pynwb
    except ImportError as e:
        raise ImportError("olive's NWB export needs pynwb: pip install 'olive[nwb]' (or pip install pynwb)") from e
    return pynwb


def _columns_table(name, rep):
    from hdmf.common import DynamicTable, VectorData
    cell = np.repeat(rep.node_ids, np.diff(rep.index_pointers))
    cols = [VectorData(name="node_id", description="olive cell id", data=cell.astype(np.int64))]
    if rep.compartments:
        cols.append(VectorData(name="element_id", description="section: 0 soma, 1 dendrite",
                               data=rep.element_ids.astype(np.int64)))
        cols.append(VectorData(name="element_pos", description="centre of the compartment along its section",
                               data=rep.element_pos.astype(np.float64)))
    return DynamicTable(name=f"{name}_columns", description=f"the cell of each column of the TimeSeries {name}",
                        columns=cols)


def run_to_nwb(run, path, session_description=None, identifier=None, session_start_time=None,
               reports=True, force=False):
    """Write the run to an NWB file at path (atomically; refused if it exists unless force=True).

    Returns path. Read it back with pynwb.NWBHDF5IO(path, "r").read(): the
    spike times of cell i are nwbfile.units["spike_times"][i] (seconds).
    """
    pynwb = _require_pynwb()
    start = session_start_time or datetime.datetime.now(datetime.timezone.utc)
    nwb = pynwb.NWBFile(
        session_description=session_description or f"olive simulation {run.path}",
        identifier=identifier or str(uuid.uuid4()),
        session_start_time=start,
        source_script=str(run.provenance.get("command", "")),
        source_script_file_name="olive-simulate",
        notes=f"olive {run.provenance.get('olive_version', '')}, network {run.provenance.get('network', '')}, "
              f"dt {run.dt} ms, steps {run.provenance.get('steps', '')}",
    )
    nwb.add_unit_column("population", "olive SONATA population")
    trains = run.spikes.trains(run.cells)
    for cell, times in enumerate(trains):
        nwb.add_unit(id=cell, spike_times=np.asarray(times, dtype=np.float64) / 1000.0,
                     population=run.population_of(cell))
    if reports and (run.reports or run.compartment_reports):
        mod = nwb.create_processing_module("olive", "olive-simulate reports (simulated, not acquired)")
        items = [(v, r) for v, r in run.reports.items()] + \
                [(f"{v}_compartments", r) for v, r in run.compartment_reports.items()]
        for name, rep in items:
            t0 = float(rep.times[0]) if rep.frames else rep.start
            ts = pynwb.TimeSeries(name=name, data=np.asarray(rep.data), unit=rep.units or "1",
                                  starting_time=t0 / 1000.0, rate=1000.0 / rep.step,
                                  description=f"olive report {rep.variable} ({rep.path}); columns: "
                                              f"table {name}_columns")
            mod.add(ts)
            mod.add(_columns_table(name, rep))
    with atomic_output(path, force=force, suffix=".nwb") as tmp:
        with pynwb.NWBHDF5IO(tmp, "w") as io:
            io.write(nwb)
    return str(path)

"""Neo and NWB exports carry exactly the spikes and reports of the run."""

import os

import numpy as np
import pytest

from reference import h5


def raw_spikes(run_dir):
    """Every population's spikes of spikes.h5 with the network's cell ids (first_cell + local id), by time."""
    import h5py
    t, ids = [], []
    with h5py.File(f"{run_dir}/spikes.h5", "r") as f:
        for g in f["spikes"].values():
            t.append(g["timestamps"][()])
            ids.append(g["node_ids"][()].astype(np.int64) + int(g.attrs["first_cell"]))
    t, ids = np.concatenate(t), np.concatenate(ids)
    o = np.lexsort((ids, t))
    return t[o], ids[o]


def test_neo_spike_trains_and_signals(cuba_run):
    import neo
    import quantities as pq
    block = cuba_run.to_neo()
    assert isinstance(block, neo.Block) and len(block.segments) == 1
    seg = block.segments[0]
    assert len(seg.spiketrains) == 1000
    times, ids = raw_spikes(cuba_run.path)
    for st in seg.spiketrains:
        cell = st.annotations["source_id"]
        assert np.array_equal(st.rescale(pq.ms).magnitude, times[ids == cell])
        assert float(st.t_start.rescale(pq.ms)) == 0.0 and float(st.t_stop.rescale(pq.ms)) == 200.0
    assert sum(len(st) for st in seg.spiketrains) == len(times)
    sigs = {s.name: s for s in seg.analogsignals}
    assert sorted(sigs) == ["ge", "v"]
    v = sigs["v"]
    assert v.shape == (200, 50) and v.units == pq.mV
    assert np.array_equal(v.magnitude, h5(f"{cuba_run.path}/v.h5", "report/exc/data"))
    assert float(v.t_start.rescale(pq.ms)) == 1.0 and float(v.sampling_period.rescale(pq.ms)) == 1.0
    assert np.array_equal(v.array_annotations["channel_index"], np.arange(50))
    assert np.allclose(v.times.rescale(pq.ms).magnitude, np.arange(1, 201))


def test_neo_missing_gives_clear_import_error(cuba_run, monkeypatch):
    import builtins
    real = builtins.__import__

    def no_neo(name, *a, **k):
        if name == "neo" or name.startswith("neo."):
            raise ImportError("No module named 'neo'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_neo)
    with pytest.raises(ImportError, match=r"pip install 'olive\[neo\]'"):
        cuba_run.to_neo()


def test_nwb_units_and_time_series(cuba_run, tmp_path):
    import pynwb
    path = tmp_path / "run.nwb"
    assert cuba_run.to_nwb(path) == str(path)
    with pytest.raises(FileExistsError):
        cuba_run.to_nwb(path)
    times, ids = raw_spikes(cuba_run.path)
    with pynwb.NWBHDF5IO(str(path), "r") as io:
        nwb = io.read()
        units = nwb.units
        assert len(units) == 1000 and list(units.id[:]) == list(range(1000))
        total = 0
        for cell in range(1000):
            st = np.asarray(units["spike_times"][cell])
            want = times[ids == cell]
            assert len(st) == len(want)
            assert np.array_equal(st, want / 1000.0)          # seconds, as NWB wants
            assert np.allclose(st * 1000.0, want, rtol=0, atol=1e-9)
            total += len(st)
        assert total == len(times)
        mod = nwb.processing["olive"]
        v = mod["v"]
        assert v.unit == "mV" and v.rate == 1000.0 and v.starting_time == 0.001
        assert np.array_equal(np.asarray(v.data[:]), h5(f"{cuba_run.path}/v.h5", "report/exc/data"))
        assert np.array_equal(np.asarray(mod["v_columns"]["node_id"][:]), np.arange(50))
        assert np.array_equal(np.asarray(mod["ge"].data[:]), h5(f"{cuba_run.path}/ge.h5", "report/exc/data"))
    assert sorted(os.listdir(tmp_path)) == ["run.nwb"]


def test_compartment_reports_exported(cable_run, tmp_path):
    import pynwb
    import quantities as pq
    f = f"{cable_run.path}/v_compartments.h5"
    sigs = {s.name: s for s in cable_run.to_neo().segments[0].analogsignals}
    c = sigs["v_compartments"]
    assert c.shape == (200, 12) and c.units == pq.mV
    assert np.array_equal(c.magnitude, h5(f, "report/all/data"))
    assert list(c.array_annotations["node_id"]) == [0] * 4 + [1] * 4 + [2] * 4
    assert list(c.array_annotations["element_id"]) == [0, 1, 1, 1] * 3
    assert np.array_equal(c.array_annotations["element_pos"], h5(f, "report/all/mapping/element_pos").astype(float))
    assert float(c.sampling_period.rescale(pq.ms)) == 0.025
    path = cable_run.to_nwb(tmp_path / "cable.nwb")
    with pynwb.NWBHDF5IO(path, "r") as io:
        mod = io.read().processing["olive"]
        assert np.array_equal(np.asarray(mod["v_compartments"].data[:]), h5(f, "report/all/data"))
        cols = mod["v_compartments_columns"]
        assert list(cols["node_id"][:]) == [0] * 4 + [1] * 4 + [2] * 4
        assert list(cols["element_id"][:]) == [0, 1, 1, 1] * 3
        assert mod["v_compartments"].rate == 1000.0 / 0.025

"""read_run against the raw HDF5 datasets, and networks written in Python run by olive-simulate."""

import math

import numpy as np
import pytest

import olive
from reference import h5, h5attr


def test_written_network_spikes_as_the_model_says(tmp_path):
    """A driver cell above threshold at rest fires every 20 ln 11 ms; it excites one of two followers."""
    net = tmp_path / "three.h5"
    olive.write_network(net, [
        {"name": "driver", "count": 1, "model": "lif_cuba"},                      # E_L -49 > V_th -50
        {"name": "follow", "count": 2, "model": "lif_cuba", "params": {"E_L": -60.0}},
    ], [{"name": "drive", "source": [0], "target": [1], "weight": 100.0, "delay_ms": 1.0, "receptor": "ge"}],
        dt=0.1)
    run = olive.simulate(net, tmp_path / "out", time=200, record=["v", "ge"], progress=False)
    s = run.spikes
    driver = s.of_cell(0)
    # v(t) = E_L + (v0 - E_L) exp(-t / tau_m) from v0 = V_reset = -60: crosses -50 at 20 ln 11 = 47.96 ms;
    # a spike is stamped at the end of its step, (i + 1) dt
    period = 20 * math.log(11)
    assert len(driver) == 4
    assert np.allclose(driver, np.ceil(np.arange(1, 5) * period / 0.1 - 1e-9) * 0.1, atol=0.35)
    assert abs(driver[0] - 48.0) < 1e-9
    follower = s.of_cell(1)
    assert len(s.of_cell(2)) == 0                               # only the driven follower fires,
    assert len(follower) >= 4                                   # at least once per driver spike,
    assert driver[0] + 1.0 < follower[0] < driver[0] + 10.0     # after the 1 ms delay
    # ge of cell 1 jumps by the weight one delay after the driver's spike (delivered in step i + 10),
    # cell 2 never gets any
    ge = run.reports["ge"]
    k = int(round((driver[0] + 1.0) / 0.1)) - 1
    assert ge.times[k] == driver[0] + 1.0
    assert ge.data[k - 1, 1] == 0.0 and ge.data[k, 1] == 100.0 and np.all(ge.data[:, 2] == 0)
    assert abs(ge.data[k + 1, 1] - 100.0 * math.exp(-0.1 / 5.0)) < 1e-4   # then decays with tau_e = 5 ms
    assert run.provenance["cells"] == 3 and run.dt == 0.1 and run.provenance["steps"] == 2000


def test_read_run_equals_raw_datasets(cuba_run):
    run = cuba_run
    d = run.path
    # one SONATA population per network population, node ids local; run.spikes gathers them
    assert run.spikes.population == "exc,inh" and run.spikes.sorting == "by_time"
    assert {n: (p.first, p.count) for n, p in run.populations.items()} == {"exc": (0, 800), "inh": (800, 200)}
    for pop, first in (("exc", 0), ("inh", 800)):
        t, ids = h5(f"{d}/spikes.h5", f"spikes/{pop}/timestamps"), h5(f"{d}/spikes.h5", f"spikes/{pop}/node_ids")
        assert np.array_equal(run.spikes(population=pop).times, t) and np.array_equal(run.spikes(pop).node_ids, ids)
        sel = (run.spikes.node_ids >= first) & (run.spikes.node_ids < first + run.populations[pop].count)
        assert np.array_equal(run.spikes.times[sel], t) and np.array_equal(run.spikes.node_ids[sel] - first, ids)
    with pytest.raises(KeyError, match="exc, inh: give population"):
        run.spikes()
    assert len(run.spikes) == h5attr(f"{d}/spikes.h5", "/", "spike_count") > 100
    assert np.all(np.diff(run.spikes.times) >= 0)
    assert run.spikes.times.max() <= 200.0 and run.spikes.node_ids.max() < 1000
    # provenance: the root attributes
    assert run.provenance["cells"] == 1000 and run.provenance["steps"] == 2000 and run.dt == 0.1
    assert run.provenance["command"] == h5attr(f"{d}/spikes.h5", "/", "command").strip()
    assert run.provenance["backend"] in ("cpu", "cuda") and run.t_start == 0.0 and run.t_stop == 200.0
    assert sorted(run.reports) == ["ge", "v"] and not run.compartment_reports
    for var, rep in run.reports.items():
        f = f"{d}/{var}.h5"
        assert np.array_equal(rep.data, h5(f, "report/exc/data"))
        assert rep.data.shape == (200, 50) and rep.data.dtype == np.float32
        assert np.array_equal(rep.node_ids, np.arange(50)) and np.array_equal(rep.node_ids, h5(f, "report/exc/mapping/node_ids"))
        assert np.array_equal(rep.index_pointers, h5(f, "report/exc/mapping/index_pointers"))
        assert np.array_equal(rep.element_ids, h5(f, "report/exc/mapping/element_ids"))
        start, stop, step = h5(f, "report/exc/mapping/time")
        assert (rep.start, rep.stop, rep.step) == (start, stop, step) == (1.0, 201.0, 1.0)
        assert np.array_equal(rep.times, np.arange(1, 201, dtype=np.float64))
        assert rep.units == "mV"
    # a cell's trace
    assert np.array_equal(run.reports["v"].trace(7), h5(f"{d}/v.h5", "report/exc/data")[:, 7])
    assert run.report("v", population="exc").node_ids is run.reports["v"]("exc").node_ids
    with pytest.raises(KeyError, match="no population 'inh'"):
        run.report("v", population="inh")
    with pytest.raises(KeyError, match="cell 77 is not recorded"):
        run.reports["v"].trace(77)
    # the final state
    st = run.state
    assert st.kind == "final" and st.step == 2000 and abs(st.time_ms - 200.0) < 1e-9
    assert sorted(st.values) == sorted(["v", "ge", "gi", "ref"])
    for var in st.values:
        assert np.array_equal(st[var], h5(f"{d}/state.h5", f"state/{var}")) and len(st[var]) == 1000
    # the report's last frame is the final state (float32)
    assert np.array_equal(run.reports["v"].data[-1], st["v"][:50].astype(np.float32))


def test_spike_trains_per_cell(cuba_run):
    trains = cuba_run.spikes.trains(1000)
    assert len(trains) == 1000 and sum(len(t) for t in trains) == len(cuba_run.spikes)
    for cell in (0, 1, 999):
        assert np.array_equal(trains[cell], cuba_run.spikes.of_cell(cell))


def test_compartment_report(cable_run):
    """A ball-and-stick (hh_cable) network: 1 + dend_nseg compartments per cell, element ids and positions."""
    run = cable_run
    rep = run.compartment_reports["v"]
    f = f"{run.path}/v_compartments.h5"
    assert rep.compartments and rep.variable == "v"
    assert np.array_equal(rep.node_ids, [0, 1, 2])
    assert list(rep.index_pointers) == [0, 4, 8, 12]
    assert np.array_equal(rep.index_pointers, h5(f, "report/all/mapping/index_pointers"))
    assert list(rep.element_ids) == [0, 1, 1, 1] * 3
    assert np.allclose(rep.element_pos, [0.5, 1 / 6, 0.5, 5 / 6] * 3)
    assert np.array_equal(rep.element_pos, h5(f, "report/all/mapping/element_pos").astype(np.float64))
    assert np.array_equal(rep.data, h5(f, "report/all/data")) and rep.data.shape == (200, 12)
    assert rep.trace(1).shape == (200, 4)
    # the soma compartment is the per-cell report's v
    assert np.array_equal(rep.data[:, [0, 4, 8]], run.reports["v"].data)
    # the pulse into cell 0 makes it the only one to leave rest
    assert rep.data[:, 0].max() > rep.data[:, 4].max() + 10


def test_read_run_faults(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such output directory"):
        olive.read_run(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="spikes.h5: missing"):
        olive.read_run(tmp_path)


def test_spike_sources_written_and_run(tmp_path):
    """A spike_source_array population written by write_network spikes at its
    times in olive-simulate, and its events reach the neuron one delay later;
    a Poisson source population runs too; synapses onto a source are refused."""
    path = tmp_path / "src.h5"
    olive.write_network(path, [
        {"name": "n", "count": 1, "model": "lif_cuba", "params": {"E_L": -60.0}},
        {"name": "arr", "count": 2, "model": "spike_source_array", "spike_times": [[5.0, 20.0], [7.5]]},
        {"name": "pois", "count": 50, "model": "spike_source_poisson", "params": {"rate": 100.0, "duration": 50.0}},
    ], [{"name": "in", "source": [1], "target": [0], "weight": 2.0, "delay_ms": 1.0, "receptor": "ge"}], dt=0.1)
    run = olive.simulate(path, tmp_path / "run", time=100, record="ge", record_precision="double", progress=False)
    ids, t = run.spikes.node_ids, run.spikes.times
    arr = sorted(zip(ids[ids < 3].tolist(), np.round(t[ids < 3], 9).tolist()))
    assert arr == [(1, 5.0), (1, 20.0), (2, 7.5)]
    pois = t[ids >= 3]
    assert 100 < len(pois) < 400 and pois.max() <= 50 + 1e-9   # 50 cells x 100 Hz x 50 ms = 250 expected
    ge = run.reports["ge"].data[:, 0]
    k = int(round(6.0 / 0.1)) - 1                                # 5 ms + 1 ms delay
    assert ge[k - 1] == 0 and ge[k] == 2.0
    with pytest.raises(ValueError, match="a spike source"):
        olive.write_network(tmp_path / "bad.h5", [
            {"name": "n", "count": 1, "model": "lif_cuba"},
            {"name": "arr", "count": 1, "model": "spike_source_array", "spike_times": [[5.0]]},
        ], [{"name": "x", "source": [0], "target": [1], "weight": 1.0, "delay_ms": 1.0, "receptor": "ge"}])

"""pyNN.olive beyond PyNN's own tests (tests/test_pynn.sh runs those): the
numbers of single cells against their closed forms and NEST's on-grid
models, the InfOli cell type and its gap junctions against a direct olive
run of the same network, and the refusals."""

import os
import tempfile

import numpy as np
import pytest

import olive
import olive.pynn

olive.pynn.install_shim()
import pyNN.olive as sim  # noqa: E402


@pytest.fixture
def pynn_sim(programs, tmp_path):
    yield sim
    sim.end()


def spike_times(pop):
    return [list(np.round(st.magnitude, 6)) for st in pop.get_data("spikes").segments[0].spiketrains]


def test_if_curr_exp_spikes_at_the_closed_form_on_the_grid(pynn_sim):
    # v(t) = v_rest + R I (1 - exp(-t/tau_m)), R I = i_offset tau_m / cm = 50 mV: v crosses -55 mV at
    # t = -20 ln(0.8) = 4.463 ms, stamped at the end of its step (4.5); v then rests at v_reset for
    # tau_refrac = 5 ms (NEST's rule) and crosses again 4.463 ms later: 4.5, 14.0, 23.5, 33.0,
    # the times pyNN.nest gives with spike_precision="on_grid"
    sim.setup(timestep=0.1)
    p = sim.Population(1, sim.IF_curr_exp(v_thresh=-55.0, tau_refrac=5.0, i_offset=2.5))
    p.record(["spikes", "v"])
    sim.run(40.0)
    assert spike_times(p) == [[4.5, 14.0, 23.5, 33.0]]
    v = p.get_data("v").segments[0].analogsignals[0].magnitude[:, 0]
    t = 0.1 * np.arange(1, 4)
    assert np.allclose(v[1:4], -65.0 + 50.0 * (1 - np.exp(-t / 20.0)), rtol=0, atol=1e-9)
    assert v[0] == -65.0 and len(v) == 401


def test_tau_refrac_of_one_step_holds_v_for_one_step(pynn_sim):
    # pyNN.nest (on grid): 4.5, 9.1, 13.7, ...: each interval one 0.1 ms step of refractoriness longer
    sim.setup(timestep=0.1)
    p = sim.Population(1, sim.IF_curr_exp(v_thresh=-55.0, tau_refrac=0.1, i_offset=2.5))
    p.record("spikes")
    sim.run(20.0)
    assert spike_times(p) == [[4.5, 9.1, 13.7, 18.3]]


def test_spike_source_times_between_grid_points_go_to_the_next(pynn_sim):
    sim.setup(timestep=0.05)
    src = sim.Population(1, sim.SpikeSourceArray(spike_times=[0.075, 10.025, 12.34]))
    src.record("spikes")
    sim.run(15.0)
    assert np.allclose(spike_times(src)[0], [0.1, 10.05, 12.35], rtol=0, atol=1e-9)


def infoli_pynn(weights, duration=1100.0, g_cal=(0.6, 0.7, 0.8, 0.9)):
    sim.setup(timestep=0.05)
    io = sim.Population(len(g_cal), sim.InfOli(g_cal=list(g_cal)))
    sim.Projection(io, io, sim.FromListConnector(weights, column_names=["weight"]), sim.ElectricalSynapse(),
                   receptor_type="gap")
    sim.DCSource(amplitude=6.0, start=1000.0, stop=1025.0).inject_into(io[0:1])
    io.record(["spikes", "v", "v_dend"])
    sim.run(duration)
    seg = io.get_data().segments[0]
    return seg, {a.name: a.magnitude for a in seg.analogsignals}


def test_infoli_through_pynn_is_olive_run_directly(pynn_sim, tmp_path):
    weights = [(0, 1, 0.04), (1, 2, 0.04), (2, 3, 0.02)]
    seg, traces = infoli_pynn(weights)
    # the same network written and run with the package: every ElectricalSynapse a junction each way
    src = [a for a, b, _ in weights] + [b for a, b, _ in weights]
    tgt = [b for a, b, _ in weights] + [a for a, b, _ in weights]
    g = [w for *_, w in weights] * 2
    olive.write_network(tmp_path / "io.h5", cells=4, dims=[4, 1, 1], g_cal=[0.6, 0.7, 0.8, 0.9],
                        gap_junctions={"source": src, "target": tgt, "conductance": g})
    run = olive.simulate(tmp_path / "io.h5", tmp_path / "run", steps=22000, record=["v_soma", "v_dend"],
                         record_precision="double", pulses=[(1000.0, 1025.0, 6.0, 0, 1)], progress=False)
    assert np.array_equal(traces["v"][1:], np.asarray(run.reports["v_soma"].data))
    assert np.array_equal(traces["v_dend"][1:], np.asarray(run.reports["v_dend"].data))
    assert traces["v"].shape == (22001, 4) and np.all(traces["v"][0] == -60.0)
    # the pulsed cell spikes about 7 ms into the pulse (MODEL.md's reference cell: about 8 ms)
    first = [float(st.magnitude[0]) for st in seg.spiketrains if len(st)]
    assert len(seg.spiketrains[0]) >= 1 and 1004.0 < seg.spiketrains[0].magnitude[0] < 1012.0, first


def test_infoli_coupling_moves_the_neighbour_and_parallel_junctions_add(pynn_sim):
    _, alone = infoli_pynn([])
    _, both_ways = infoli_pynn([(0, 1, 0.02), (1, 0, 0.02)])
    _, one = infoli_pynn([(0, 1, 0.04)])
    # cell 1 is not pulsed: only a junction to the pulsed cell 0 moves its dendrite
    assert np.max(np.abs(one["v_dend"][:, 1] - alone["v_dend"][:, 1])) > 0.5
    assert np.array_equal(alone["v_dend"][:, 2], one["v_dend"][:, 2])
    # two connections of 0.02 between one pair are one junction of 0.04 each way
    assert np.allclose(both_ways["v_dend"], one["v_dend"], rtol=0, atol=1e-9)


def test_refusals(pynn_sim):
    sim.setup(timestep=0.1)
    io = sim.Population(2, sim.InfOli())
    with pytest.raises(NotImplementedError, match="0.05 ms"):
        sim.run(1.0)
    sim.setup(timestep=0.05)
    io = sim.Population(2, sim.InfOli())
    lif = sim.Population(2, sim.IF_curr_exp())
    with pytest.raises(NotImplementedError, match="gap junctions"):
        sim.Projection(lif, lif, sim.AllToAllConnector(), sim.ElectricalSynapse(weight=0.1), receptor_type="excitatory")
    with pytest.raises(NotImplementedError, match="one neuron model"):
        sim.run(1.0)
    sim.setup(timestep=0.05)
    io = sim.Population(2, sim.InfOli())
    io.initialize(v=-50.0)
    with pytest.raises(NotImplementedError, match="-60 mV"):
        sim.run(1.0)
    sim.setup(timestep=0.05)
    io = sim.Population(2, sim.InfOli())
    sim.Projection(io, io, sim.OneToOneConnector(), sim.ElectricalSynapse(weight=0.1))
    with pytest.raises(ValueError, match="to itself"):
        sim.run(1.0)


def test_ac_and_noisy_currents_are_what_is_injected(pynn_sim):
    sim.setup(timestep=0.1)
    cells = sim.Population(2, sim.IF_curr_exp(tau_refrac=5.0, v_thresh=-40.0))
    ac = sim.ACSource(start=10.0, stop=30.0, amplitude=0.5, offset=0.1, frequency=50.0, phase=90.0)
    noise = sim.NoisyCurrentSource(mean=0.2, stdev=0.1, start=5.0, stop=35.0, dt=0.5)
    cells[0].inject(ac)
    cells[1].inject(noise)
    ac.record()
    noise.record()
    cells.record("v")
    sim.run(20.0)
    sim.run(20.0)                 # re-simulated from 0: the noise must be the same draws
    v = cells.get_data("v").segments[0].analogsignals[0].magnitude
    i_ac = ac.get_data().magnitude[:, 0]
    i_noise = noise.get_data().magnitude[:, 0]
    t = 0.1 * np.arange(401)
    on = (t >= 10.0 - 1e-9) & (t < 30.0 - 1e-9)
    expected = np.where(on, 0.1 + 0.5 * np.cos(2 * np.pi * 50.0 * (t - 10.0) / 1000.0), 0.0)
    assert np.allclose(i_ac, expected, rtol=0, atol=1e-12) and i_ac[100] == 0.6
    # the noise holds each value for 0.5 ms (5 steps), 60 values from 5 to 35 ms
    assert np.all(i_noise[:50] == 0) and np.all(i_noise[350:] == 0)
    held = i_noise[50:350].reshape(60, 5)
    assert np.all(held == held[:, :1]) and len(np.unique(held[:, 0])) == 60
    assert abs(held[:, 0].mean() - 0.2) < 4 * 0.1 / np.sqrt(60)
    # v integrates exactly these currents: dv/dt = (v_rest - v)/tau_m + I/cm, exact over each step
    a = np.exp(-0.1 / 20.0)
    for col, i in ((0, i_ac), (1, i_noise)):
        w = np.empty(401)
        w[0] = -65.0
        for k in range(400):
            w[k + 1] = -65.0 + (w[k] + 65.0) * a + i[k] * 20.0 * (1 - a)
        assert np.allclose(v[:, col], w, rtol=0, atol=1e-9), col
    sim.end()
    # one run of 40 ms: the same voltages
    sim.setup(timestep=0.1)
    cells = sim.Population(2, sim.IF_curr_exp(tau_refrac=5.0, v_thresh=-40.0))
    cells[0].inject(sim.ACSource(start=10.0, stop=30.0, amplitude=0.5, offset=0.1, frequency=50.0, phase=90.0))
    cells[1].inject(sim.NoisyCurrentSource(mean=0.2, stdev=0.1, start=5.0, stop=35.0, dt=0.5))
    cells.record("v")
    sim.run(40.0)
    assert np.array_equal(cells.get_data("v").segments[0].analogsignals[0].magnitude, v)


def test_alpha_synapse_peaks_at_the_weight_at_tau(programs, tmp_path):
    # lif_cuba_alpha (PyNN's IF_curr_alpha): one event of w = 2 mV makes ge follow
    # w (s/tau_e) e^(1 - s/tau_e), s the time since its delivery, exactly on the grid
    olive.write_network(tmp_path / "a.h5", dt=0.1, populations=[
        {"name": "src", "count": 1, "model": "spike_source_array", "spike_times": [[1.0]]},
        {"name": "cell", "count": 1, "model": "lif_cuba_alpha", "params": {"tau_e": 5.0, "V_th": 100.0}}],
        projections=[{"name": "p", "source": [0], "target": [1], "weight": 2.0, "delay_ms": 0.5, "receptor": "ge"}])
    run = olive.simulate(tmp_path / "a.h5", tmp_path / "run", time=30, record=["ge", "xe"], record_precision="double",
                         progress=False)
    ge = np.asarray(run.reports["ge"].data)[:, list(run.reports["ge"].node_ids).index(1)]
    t = 0.1 * np.arange(1, len(ge) + 1)          # frame k: the state after step k, at (k + 1) dt
    s = t - 1.5                                  # the spike at 1.0 ms arrives 0.5 ms later
    expected = np.where(s > 1e-9, 2.0 * (s / 5.0) * np.exp(1 - s / 5.0), 0.0)
    assert np.allclose(ge, expected, rtol=0, atol=1e-12)
    assert abs(ge.max() - 2.0) < 1e-12 and abs(t[ge.argmax()] - 6.5) < 1e-9


def test_drawn_sources_are_renewal_processes_and_stay_put_across_runs(pynn_sim):
    def trains(split):
        sim.setup(timestep=0.1, rng_seed=7)
        src = sim.Population(2, sim.SpikeSourceGamma(alpha=[4, 2], beta=[400.0, 100.0], start=10.0))
        ref = sim.Population(1, sim.SpikeSourcePoissonRefractory(rate=80.0, tau_refrac=4.0))
        src.record("spikes")
        ref.record("spikes")
        for _ in range(split):
            sim.run(2000.0 / split)
        out = [st.magnitude for st in list(src.get_data().segments[0].spiketrains) +
               list(ref.get_data().segments[0].spiketrains)]
        sim.end()
        return out

    one, two = trains(1), trains(2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))
    # mean interval alpha / beta: 10 ms and 20 ms; the dead time: no interval below 4 ms
    for st, mean in ((one[0], 10.0), (one[1], 20.0), (one[2], 12.5)):
        isi = np.diff(st)
        assert abs(isi.mean() - mean) < 5 * mean / np.sqrt(len(isi)), (isi.mean(), mean)
    assert one[0][0] > 10.0 and np.diff(one[2]).min() >= 4.0 - 1e-9


def _delayed_network(pieces, change=None, look=False, in_process=True):
    """A recurrent IF_curr_exp network with Poisson input and delays, run in pieces; change(p)
    is called after the first piece; look: the spike counts are read after each piece (so olive
    runs up to there). Returns the spike trains, v, and the olive runs' start times."""
    sim.setup(timestep=0.1, min_delay=0.1, in_process=in_process)
    p = sim.Population(200, sim.IF_curr_exp(i_offset=0.3, tau_refrac=2.0))
    src = sim.Population(50, sim.SpikeSourcePoisson(rate=50.0))
    sim.Projection(src, p, sim.FixedProbabilityConnector(0.2, rng=sim.NumpyRNG(seed=1)),
                   sim.StaticSynapse(weight=0.5, delay=1.5))
    sim.Projection(p, p, sim.FixedProbabilityConnector(0.1, rng=sim.NumpyRNG(seed=2)),
                   sim.StaticSynapse(weight=0.2, delay=2.0))
    p.record(["spikes", "v"])
    starts = []
    for k, t in enumerate(pieces):
        if k == 1 and change is not None:
            change(p)
        sim.run(t)
        if look:
            p.get_spike_counts()
    seg = p.get_data().segments[0]
    out = [np.asarray(s) for s in seg.spiketrains], np.asarray(seg.analogsignals[0]), sim.simulator.state.run_starts
    sim.end()
    return out


def test_run_in_pieces_continues_the_run_and_is_the_same_run(programs, tmp_path):
    # pieces with nothing read or changed between them are one olive run; where the results are
    # read between pieces, each olive run after the first continues the previous one from its
    # state (spikes in flight included): the same spikes and v as one run() either way, and no
    # piece simulated from 0 again
    # (in this process, olive.Simulation: the pieces read go on in the simulation held, no
    # restart; with olive-simulate processes each continues from the last one's state)
    sp1, v1, starts1 = _delayed_network([300.0])
    sp4, v4, starts4 = _delayed_network([100.0, 37.0, 63.0, 100.0])
    spl, vl, startsl = _delayed_network([100.0, 37.0, 63.0, 100.0], look=True)
    held = sim.simulator.state.session_runs
    spp, vp, startsp = _delayed_network([100.0, 37.0, 63.0, 100.0], look=True, in_process=False)
    assert sum(len(s) for s in sp1) > 5000
    assert all(np.array_equal(a, b) and np.array_equal(a, c) and np.array_equal(a, d)
               for a, b, c, d in zip(sp1, sp4, spl, spp))
    assert v1.shape == v4.shape == vl.shape == vp.shape == (3001, 200)
    assert np.array_equal(v1, v4) and np.array_equal(v1, vl) and np.array_equal(v1, vp)
    assert starts1 == starts4 == startsl == [0.0] and held == 3
    assert startsp == pytest.approx([0.0, 100.0, 137.0, 200.0])


def test_a_parameter_set_between_runs_acts_from_then_on(programs, tmp_path):
    # set() of a population-wide parameter between runs: set in the simulation held (no restart,
    # one olive run), the very same spikes and v as a second olive run continued from the first's
    # state (olive-simulate processes)
    def more_current(p):
        p.set(i_offset=1.5)
    sp1, _, _ = _delayed_network([100.0, 100.0])
    sp2, v2, starts = _delayed_network([100.0, 100.0], change=more_current)
    in_memory = sim.simulator.state.params_set_in_memory
    sp3, v3, starts3 = _delayed_network([100.0, 100.0], change=more_current, in_process=False)
    assert starts == [0.0] and in_memory == 1
    assert starts3 == pytest.approx([0.0, 100.0])
    assert all(np.array_equal(a, b) for a, b in zip(sp2, sp3)) and np.array_equal(v2, v3)
    before = [np.asarray(a)[a <= 100.0] for a in sp1], [np.asarray(b)[b <= 100.0] for b in sp2]
    assert all(np.array_equal(a, b) for a, b in zip(*before))
    after = sum(int((a > 100.0).sum()) for a in sp1), sum(int((b > 100.0).sum()) for b in sp2)
    assert after[1] > 1.1 * after[0]     # 4778 against 3988


def test_hh_cells_run_in_pieces_are_simulated_again_from_0(pynn_sim):
    # olive cannot continue cable cells from a state yet: the second run() simulates 0..60 ms
    def go(pieces):
        sim.setup(timestep=0.01)
        p = sim.Population(3, sim.HH_cond_exp(i_offset=0.5))
        p.record("spikes")
        for t in pieces:
            sim.run(t)
            p.get_spike_counts()          # olive runs up to here
        out = [np.asarray(s) for s in p.get_data().segments[0].spiketrains]
        start = sim.simulator.state.run_starts[-1]
        sim.end()
        return out, start
    (a, _), (b, start) = go([60.0]), go([20.0, 40.0])
    assert sum(len(x) for x in a) >= 6 and all(np.array_equal(x, y) for x, y in zip(a, b)) and start == 0.0


def _one_synapse(delay):
    a, b = sim.Population(1, sim.SpikeSourceArray(spike_times=[1.0])), sim.Population(1, sim.IF_curr_exp())
    sim.Projection(a, b, sim.FromListConnector([(0, 0, 0.5, delay)]), sim.StaticSynapse())


def test_workdir_removed_after_an_error_kept_when_asked(pynn_sim, tmp_path, monkeypatch):
    # a delay olive cannot hold (FromListConnector reaches write_network): the run fails, naming the
    # projection and the field, and the temporary workdir goes at once, not at an end() never called
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sim.setup(timestep=0.1)
    _one_synapse(1e20)
    with pytest.raises(ValueError, match=r"projection .*delay_ms\[0\] = 1e\+20 ms rounds to .* at most 65535 steps"):
        sim.run(5.0)
    assert sim.simulator.state.workdir is None and os.listdir(tmp_path) == []
    os.mkdir(tmp_path / "mine")
    sim.setup(timestep=0.1, workdir=str(tmp_path / "mine"))
    _one_synapse(1e20)
    with pytest.raises(ValueError, match="delay_ms"):
        sim.run(5.0)
    assert os.path.isdir(tmp_path / "mine")          # the user's own workdir stays


_NO_END = """
import sys
import olive.pynn
olive.pynn.install_shim()
import pyNN.olive as sim
sim.setup(timestep=0.1)
sim.Population(2, sim.IF_curr_exp(i_offset=1.0)).record("spikes")
sim.run(2.0)
print(sim.simulator.state.workdir, flush=True)
raise RuntimeError("the script fails before end()")
"""


def test_workdir_removed_at_exit_without_end(programs, tmp_path):
    import subprocess
    import sys
    child = subprocess.run([sys.executable, "-c", _NO_END], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, TMPDIR=str(tmp_path)))
    assert child.returncode == 1 and "before end()" in child.stderr, child.stderr
    workdir = child.stdout.strip()
    assert workdir.startswith(str(tmp_path)) and not os.path.exists(workdir)


SWC = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "cell.swc")


def test_swc_cell_through_pynn_is_olive_run_directly(pynn_sim, tmp_path):
    """HHSwcCell (hh_swc): a per-type parameter set in PyNN (dend_g_pas, soma_Ra, dend_hh on a
    view) reaches the network file with olive's dotted name, and the cells give exactly the
    spikes and soma voltages of the same network written and run with the package."""
    sim.setup(timestep=0.025, workdir=str(tmp_path / "w"), keep_files=True)
    os.makedirs(tmp_path / "w")
    cells = sim.Population(3, sim.HHSwcCell(morphology=SWC, dend_g_pas=5e-5, soma_Ra=80.0, tau_rise_e=0.5))
    cells[2:3].set(dend_hh=1)
    assert cells.get("dend_g_pas") == 5e-5 and list(cells.get("dend_hh")) == [0, 0, 1]
    cells.record(["spikes", "v"])
    sim.DCSource(amplitude=0.5, start=1.0, stop=6.0).inject_into(cells[0:2])
    sim.run(8.0)
    seg = cells.get_data().segments[0]
    v = seg.analogsignals[0].magnitude
    with h5py_file(tmp_path / "w" / "net.h5") as f:
        pops = {k: dict(g.attrs) for k, g in f["cells/populations"].items()}
    assert [(p["dend.g_pas"], p["soma.Ra"], p["dend.hh"], p["tau_rise_e"]) for p in pops.values()] == \
        [(5e-5, 80.0, 0.0, 0.5), (5e-5, 80.0, 1.0, 0.5)]
    assert all(p["morphology"].decode() == os.path.abspath(SWC) for p in pops.values())
    params = {"dend.g_pas": 5e-5, "soma.Ra": 80.0, "tau_rise_e": 0.5}
    olive.write_network(tmp_path / "d.h5", [
        {"name": "a", "count": 2, "model": "hh_swc", "morphology": SWC, "params": params},
        {"name": "b", "count": 1, "model": "hh_swc", "morphology": SWC, "params": dict(params, **{"dend.hh": 1})}],
        [], dt=0.025)
    run = olive.simulate(tmp_path / "d.h5", tmp_path / "run", steps=320, record="v", record_precision="double",
                         pulses=[(1.0, 6.0, 0.5, 0, 2)], progress=False)
    assert v.shape == (321, 3) and np.all(v[0] == -65.0)
    assert np.array_equal(v[1:], np.asarray(run.reports["v"].data))
    trains = [list(st.magnitude) for st in seg.spiketrains]
    assert len(trains[0]) >= 1 and trains[0] == trains[1] and trains[2] == []
    ids, times = np.asarray(run.spikes.node_ids), np.asarray(run.spikes.times)
    assert trains[0] == list(times[ids == 0]) and trains[1] == list(times[ids == 1])


def test_ball_and_stick_through_pynn_is_olive_run_directly(pynn_sim, tmp_path):
    """HHBallAndStick (hh_cable), weights in uS from a spike source: the package's run of the same network."""
    sim.setup(timestep=0.025)
    cells = sim.Population(2, sim.HHBallAndStick(dend_nseg=3, g_pas=5e-4))
    src = sim.Population(1, sim.SpikeSourceArray(spike_times=[1.0]))
    sim.Projection(src, cells, sim.AllToAllConnector(), sim.StaticSynapse(weight=np.array([[0.05, 0.002]]), delay=1.0),
                   receptor_type="excitatory")
    cells.record(["spikes", "v", "gsyn_exc"])
    sim.run(8.0)
    seg = cells.get_data().segments[0]
    olive.write_network(tmp_path / "d.h5", [
        {"name": "c", "count": 2, "model": "hh_cable", "params": {"dend_nseg": 3, "g_pas": 5e-4}},
        {"name": "s", "count": 1, "model": "spike_source_array", "spike_times": [[1.0]]}],
        [{"name": "p", "source": [2, 2], "target": [0, 1], "weight": [0.05, 0.002], "delay_ms": 1.0,
          "receptor": "ge"}], dt=0.025)
    run = olive.simulate(tmp_path / "d.h5", tmp_path / "run", steps=320, record=["v", "ge"],
                         record_precision="double", progress=False)
    v = {s.name: s.magnitude for s in seg.analogsignals}
    assert np.array_equal(v["v"][1:], np.asarray(run.reports["v"].data)[:, :2])
    assert np.array_equal(v["gsyn_exc"][1:], np.asarray(run.reports["ge"].data)[:, :2])
    assert len(seg.spiketrains[0]) == 1 and len(seg.spiketrains[1]) == 0      # 50 nS fires it, 2 nS does not


def test_synapse_sites_from_a_site_list(pynn_sim, tmp_path):
    """A connector's location_selector=sim.SiteList(...): each synapse drawn among the sites,
    keyed by (rng_seed, projection, synapse), into the file's site_section / site_x (in
    the file's CSR order); other selectors and non-cable targets are refused."""
    from olive.pynn.build import build_network
    from olive.pynn.simulator import state
    import h5py
    sim.setup(timestep=0.025, rng_seed=7)
    cells = sim.Population(3, sim.HHSwcCell(morphology=SWC))
    src = sim.Population(4, sim.SpikeSourceArray(spike_times=[1.0]))
    sites = sim.SiteList([(0, 0.5), (3, 0.25), (5, 1.0)], label="three sites")
    sim.Projection(src, cells, sim.AllToAllConnector(), sim.StaticSynapse(weight=0.01, delay=1.0))
    sim.Projection(src, cells, sim.FixedProbabilityConnector(0.7, location_selector=sites, rng=sim.NumpyRNG(3)),
                   sim.StaticSynapse(weight=0.01, delay=1.0), receptor_type="inhibitory")
    spec = build_network(state, 5.0)
    q = spec.projections[1]
    n = len(q["source"])
    section, x = sites.draw(7, 1, n)
    assert np.array_equal(q["site_section"], section) and np.array_equal(q["site_x"], x)
    assert set(zip(section.tolist(), x.tolist())) <= {(0, 0.5), (3, 0.25), (5, 1.0)} and len(set(section)) > 1
    # keyed: the first synapses draw the same sites whatever the projection's length; another seed or
    # projection index draws others
    assert np.array_equal(sites.draw(7, 1, 2 * n)[0][:n], section)
    many = sites.draw(7, 1, 3000)[0]
    assert not np.array_equal(sites.draw(8, 1, 3000)[0], many) and not np.array_equal(sites.draw(7, 0, 3000)[0], many)
    assert abs(np.bincount(many)[[0, 3, 5]] - 1000).max() < 150
    olive.write_network(tmp_path / "n.h5", spec.populations, spec.projections, dt=0.025)
    order = np.lexsort((q["source"], q["target"]))
    with h5py.File(tmp_path / "n.h5", "r") as f:
        g = f["synapses/proj1"]
        assert np.array_equal(g["site_section"][()], section[order]) and g["site_section"].dtype == np.int32
        assert np.array_equal(g["site_x"][()], x[order]) and g.attrs["sites"] == b"three sites"
        assert "site_section" not in f["synapses/proj0"] and "site_x" not in f["synapses/proj0"]
    from pyNN.morphology import dendrites, random_placement, uniform
    with pytest.raises(NotImplementedError, match="sim.SiteList"):
        sim.Projection(src, cells, sim.AllToAllConnector(location_selector=random_placement(uniform(dendrites(), 1))),
                       sim.StaticSynapse(weight=0.01, delay=1.0))
    with pytest.raises(NotImplementedError, match="need cable cells"):
        sim.Projection(src, sim.Population(1, sim.IF_cond_exp()), sim.AllToAllConnector(location_selector=sites),
                       sim.StaticSynapse(weight=0.01, delay=1.0))
    with pytest.raises(ValueError, match=r"site 1: x = 1.5 is not a position"):
        sim.SiteList([(0, 0.5), (2, 1.5)])
    with pytest.raises(ValueError, match="needs morphology=FILE"):
        sim.HHSwcCell()


def h5py_file(path):
    import h5py
    return h5py.File(path, "r")


def test_native_rng_is_olives_philox():
    """NativeRNG: Random123's Philox4x32-10 (its known answer for counter 0, key 0) and the
    uniforms common/math/rng.h's olive_uniform2(seed, k, 0, 0, 15) gives (printed by a C
    program built on rng.h), whatever the sizes of the draws; the distributions from them."""
    from olive.pynn.native_rng import philox4x32
    assert [int(w) for w in philox4x32(0, 0, 0, 0, 0, 0)] == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    from_c = [0.29445622702906454, 0.9933047654852829, 0.53679559168050139, 0.46277907268126822,
              0.074761400210775986, 0.69173395365647883]
    rng = sim.NativeRNG(seed=87354762)
    assert list(rng.uniforms(1)) + list(rng.uniforms(4)) + list(rng.uniforms(1)) == from_c
    assert sim.NativeRNG().seed == sim.simulator.state.seed          # seed None: setup()'s rng_seed
    rng = sim.NativeRNG(seed=3)
    z = rng.next(20000, "normal", {"mu": 1.0, "sigma": 2.0})
    assert abs(z.mean() - 1.0) < 0.05 and abs(z.std() - 2.0) < 0.05
    k = rng.next(10000, "uniform_int", {"low": 2, "high": 5})
    assert set(np.unique(k)) == {2, 3, 4}
    assert sorted(rng.permutation(10)) == list(range(10))
    c = rng.next(1000, "normal_clipped", {"mu": 0.0, "sigma": 1.0, "low": -0.5, "high": 0.5})
    assert c.min() >= -0.5 and c.max() <= 0.5
    with pytest.raises(NotImplementedError, match="NativeRNG draws .* not 'gamma': use NumpyRNG"):
        rng.next(3, "gamma", {"k": 2.0, "theta": 1.0})


def test_native_rng_draws_connections_and_weights(pynn_sim):
    # a connector and a weight distribution on NativeRNG: the same network for the same seed
    def weights(seed):
        sim.setup(timestep=0.1)
        a, b = sim.Population(10, sim.SpikeSourcePoisson(rate=100.0)), sim.Population(10, sim.IF_cond_exp())
        rng = sim.NativeRNG(seed=seed)
        prj = sim.Projection(a, b, sim.FixedProbabilityConnector(0.7, rng=rng),
                             sim.StaticSynapse(weight=sim.RandomDistribution("normal", mu=0.5, sigma=0.01, rng=rng)))
        return prj.get("weight", format="array")
    w1, w2, w3 = weights(5), weights(5), weights(6)
    assert np.array_equal(w1, w2, equal_nan=True) and not np.array_equal(w1, w3, equal_nan=True)
    n = np.isfinite(w1).sum()
    assert 50 < n < 90 and abs(np.nanmean(w1) - 0.5) < 0.01


def test_what_olive_lacks_raises_not_implemented_naming_it(pynn_sim):
    from olive.pynn.unsupported import LACKS
    sim.setup(timestep=0.1)
    assert len(LACKS) >= 19
    for name in LACKS:
        with pytest.raises(NotImplementedError, match=rf"pyNN.olive cannot run {name}: olive (has no|does not)"):
            getattr(sim, name)()


def _no_nestml():
    raise ImportError("No module named 'pynestml'")


def test_standard_types_built_from_nestml_say_what_they_need(pynn_sim, tmp_path, monkeypatch):
    """Izhikevich and the EIF types run as olive's NESTML models (python/olive/pynn/nestml), built on first
    use: a network of them is built without NESTML (a Population, a Projection), and run() in a Python
    without the nestml package and with no build of the model in the model places says what to do."""
    import olive.pynn.standardmodels as sm
    monkeypatch.setenv("OLIVE_MODEL_CACHE", str(tmp_path / "empty"))
    monkeypatch.delenv("OLIVE_MODEL_PATH", raising=False)
    monkeypatch.setattr(sm, "_standard_models", {})
    monkeypatch.setattr("olive.nestml.versions.nestml_version", _no_nestml)   # (whatever is installed)
    for celltype in (sim.Izhikevich, sim.EIF_cond_exp_isfa_ista, sim.EIF_cond_alpha_isfa_ista):
        sim.setup(timestep=0.1)
        p = sim.Population(2, celltype())
        sim.Projection(p, p, sim.AllToAllConnector(), sim.StaticSynapse(weight=0.001, delay=1.0))
        with pytest.raises(NotImplementedError, match=rf"{celltype.__name__} runs as olive's NESTML model .*"
                                                     r"pynn_\w+\.nestml, built on first use: that needs the nestml package"):
            sim.run(1.0)


def test_plastic_synapses_run_and_report_their_weights(pynn_sim, tmp_path):
    """STDPMechanism and TsodyksMarkramSynapse become olive's stdp and tsodyks rules (docs/PYNN.md): the file
    carries NEST's parameters as pyNN.nest translates them, a TsodyksMarkram projection onto cells of two
    tau_syn_E is two olive projections, get('weight') after a run gives the weights the run left (olive
    continues from its state at the next run), reset() starts from the network's weights again."""
    import h5py
    sim.setup(timestep=0.1, workdir=str(tmp_path), keep_files=True)
    src = sim.Population(20, sim.SpikeSourceArray(spike_times=[sim.Sequence(np.arange(5.0 + i, 400, 25.0))
                                                                for i in range(20)]))
    post = sim.Population(2, sim.IF_curr_exp(tau_m=10.0, cm=1.0, i_offset=1.4, tau_syn_E=[2.0, 4.0]))
    stdp = sim.STDPMechanism(timing_dependence=sim.SpikePairRule(tau_plus=20.0, tau_minus=20.0, A_plus=0.01,
                                                                  A_minus=0.012),
                             weight_dependence=sim.AdditiveWeightDependence(w_min=0.0, w_max=0.5),
                             weight=0.25, delay=1.0)
    p1 = sim.Projection(src, post, sim.AllToAllConnector(), stdp)
    p2 = sim.Projection(src, post, sim.AllToAllConnector(),
                        sim.TsodyksMarkramSynapse(U=0.4, tau_rec=300.0, tau_facil=0.0, weight=0.1, delay=1.0))
    post.record("spikes")
    sim.run(200.0)
    w200 = np.array(p1.get("weight", format="list", with_address=False))
    assert w200.shape == (40,) and np.sum(w200 != 0.25) >= 30 and w200.min() >= 0 and w200.max() <= 0.5
    sim.run(200.0)
    w400 = np.array(p1.get("weight", format="list", with_address=False))
    assert np.sum(w400 != w200) >= 30 and np.all(np.array(p2.get("weight", format="list", with_address=False)) == 0.1)
    with h5py.File(tmp_path / "net.h5", "r") as f:
        g = f["synapses"]
        assert sorted(g) == ["proj0", "proj1_0", "proj1_1"], sorted(g)
        a = g["proj0"].attrs
        assert a["plasticity"] in (b"stdp", "stdp") and a["plasticity_lambda"] == 0.01
        assert abs(a["plasticity_alpha"] - 1.2) < 1e-15 and a["plasticity_mu_plus"] == 0 == a["plasticity_mu_minus"]
        assert a["plasticity_Wmax"] == 0.5 * 10.0      # nA x tau_m/cm (mV), as the weights
        assert sorted(g[k].attrs["plasticity_tau_psc"] for k in ("proj1_0", "proj1_1")) == [2.0, 4.0]
    assert post.get_data().segments[0].spiketrains[0].size > 0
    sim.reset()
    assert np.all(np.array(p1.get("weight", format="list", with_address=False)) == 0.25)
    sim.end()

"""Plugin models (docs/MODELS.md "Models from outside") in write_network.

examples/nestml/lif_cuba_nestml.nestml is lif_cuba in NESTML: a network of it written
from Python must give the built-in lif_cuba network's spikes (same connections; ports
ge_in/gi_in for ge/gi). The plugin is built by the NESTML venv (build/venv-nestml, the
test venv has no nestml) as a subprocess; without it the tests skip, saying so.
"""

import os
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

import olive

TOP = Path(__file__).resolve().parents[2]
NESTML_PY = Path(os.environ.get("OLIVE_NESTML_PYTHON", TOP / "build" / "venv-nestml" / "bin" / "python"))
MODEL = TOP / "examples" / "nestml" / "lif_cuba_nestml.nestml"


@pytest.fixture(scope="module")
def lif_nestml_so(tmp_path_factory):
    """The plugin .so of lif_cuba_nestml, built into a scratch model cache."""
    if not NESTML_PY.exists():
        pytest.skip(f"no NESTML venv at {NESTML_PY} (make it with tests/test_nestml_build.sh, or set OLIVE_NESTML_PYTHON)")
    cache = tmp_path_factory.mktemp("models")
    r = subprocess.run([str(NESTML_PY), "-m", "olive.nestml", "build", str(MODEL)], capture_output=True, text=True,
                       cwd=TOP / "python", env={**os.environ, "OLIVE_MODEL_CACHE": str(cache)})
    assert r.returncode == 0, r.stderr
    so = r.stdout.strip()
    assert so.endswith("lif_cuba_nestml.so") and os.path.isfile(so)
    return so


def _net(path, model, ports, rng_seed=5):
    """80 exc + 20 inh cells, random connections, v0 spread so that they fire."""
    rng = np.random.default_rng(rng_seed)
    n = 100
    src = rng.integers(0, n, 800)
    tgt = rng.integers(0, n, 800)
    exc = src < 80
    params = {"t_ref": 2.0, "I_e": 12.0, "v0": rng.uniform(-60, -50, n)}
    return olive.write_network(path, populations=[{"name": "cells", "count": n, "model": model, "params": params}],
                               projections=[
                                   {"name": "e", "source": src[exc], "target": tgt[exc], "weight": 1.62,
                                    "delay_ms": rng.uniform(0.5, 2.0, exc.sum()), "receptor": ports[0]},
                                   {"name": "i", "source": src[~exc], "target": tgt[~exc], "weight": -9.0,
                                    "delay_ms": 1.0, "receptor": ports[1]}], force=True)


def test_plugin_network_gives_builtin_spikes(tmp_path, lif_nestml_so):
    builtin = olive.simulate(_net(tmp_path / "b.h5", "lif_cuba", ("ge", "gi")), tmp_path / "b", time=200,
                             progress=False)
    plug_net = _net(tmp_path / "p.h5", lif_nestml_so, ("ge_in", "gi_in"))
    with h5py.File(plug_net, "r") as f:   # the attributes olive-genconn writes (docs/FORMAT.md)
        for obj in (f["cells"], f["cells/populations/cells"]):
            assert obj.attrs["model"] == b"lif_cuba_nestml"
            assert "model_path" not in obj.attrs   # (a file names its model, never the path of its code)
            assert obj.attrs["model_hash"].decode() == Path(lif_nestml_so).with_suffix(".hash").read_text().strip()
    plug = olive.simulate(plug_net, tmp_path / "p", time=200, progress=False)
    b, p = builtin.spikes(), plug.spikes()
    assert len(b) > 100
    np.testing.assert_array_equal(p.times, b.times)
    np.testing.assert_array_equal(p.node_ids, b.node_ids)
    back = olive.read_network(plug_net)   # read back: the plugin's parameters and defaults
    assert back.populations["cells"].model == "lif_cuba_nestml"
    assert back.populations["cells"].value("tau_m")[0] == 20.0


def test_plugin_network_faults(tmp_path, lif_nestml_so):
    pop = {"name": "c", "count": 2, "model": lif_nestml_so}
    with pytest.raises(ValueError, match=r"'tau_x' is not a parameter of lif_cuba_nestml \(known: E_L"):
        olive.write_network(tmp_path / "x.h5", populations=[{**pop, "params": {"tau_x": 1.0}}])
    with pytest.raises(ValueError, match=r"projection 'e': receptor 'ge' must be one of ge_in, gi_in "
                                         r"\(model lif_cuba_nestml\)"):
        olive.write_network(tmp_path / "x.h5", populations=[pop], projections=[
            {"name": "e", "source": [0], "target": [1], "weight": 1.0, "delay_ms": 1.0, "receptor": "ge"}])
    with pytest.raises(ValueError, match=r"nope\.so: no such plugin file"):
        olive.write_network(tmp_path / "x.h5", populations=[{**pop, "model": str(tmp_path / "nope.so")}])
    assert not (tmp_path / "x.h5").exists()


def test_pynn_nestml_cell_type(tmp_path, lif_nestml_so, programs):
    """pyNN.olive: the plugin as a native cell type gives write_network's lif_cuba spikes."""
    import olive.pynn
    olive.pynn.install_shim()
    import pyNN.olive as sim
    rng = np.random.default_rng(7)
    n, v0 = 20, rng.uniform(-60, -50, 20)
    conn = [(int(a), int(b), 2.0, 1.0) for a, b in zip(rng.integers(0, n, 60), rng.integers(0, n, 60)) if a != b]
    sim.setup(timestep=0.1, backend="cpu")
    ct = sim.nestml_cell_type(lif_nestml_so)
    assert ct.default_parameters["tau_m"] == 20.0 and ct.receptor_types == ("ge_in", "gi_in")
    assert "v" in ct.recordable and "ge" in ct.recordable
    pop = sim.Population(n, ct(I_e=12.0))
    pop.initialize(v=v0)
    sim.Projection(pop, pop, sim.FromListConnector(conn), sim.StaticSynapse(), receptor_type="ge_in")
    pop.record(["spikes", "v"])
    sim.run(100.0)
    trains = pop.get_data().segments[0].spiketrains
    sim.end()
    src, tgt = np.array([c[0] for c in conn]), np.array([c[1] for c in conn])
    net = olive.write_network(tmp_path / "b.h5", populations=[
        {"name": "c", "count": n, "model": "lif_cuba", "params": {"I_e": 12.0, "v0": v0}}], projections=[
        {"name": "e", "source": src, "target": tgt, "weight": 2.0, "delay_ms": 1.0, "receptor": "ge"}])
    ref = olive.simulate(net, tmp_path / "b", time=100, progress=False).spikes()
    assert len(ref) > 20
    for i, st in enumerate(trains):
        np.testing.assert_allclose(np.asarray(st.magnitude), ref.times[ref.node_ids == i], atol=1e-9)


def test_read_network_reads_descriptors_not_code(tmp_path, lif_nestml_so):
    """read_network in a fresh process finds a plugin's model by name and hash in the places
    the user chose (model_path, OLIVE_MODEL_PATH, the cache) and reads its descriptor: no
    library is loaded (ctypes.CDLL raises there); without those places it is refused, saying how."""
    import sys
    net = _net(tmp_path / "p.h5", lif_nestml_so, ("ge_in", "gi_in"))
    code = """
import ctypes, sys
def refuse(*a, **k):
    raise AssertionError("a library was loaded")
ctypes.CDLL = refuse
import olive
mp = sys.argv[2] or ()
try:
    net = olive.read_network(sys.argv[1], model_path=mp)
except olive.FormatError as e:
    print("refused:", e)
else:
    print("read:", net.populations["cells"].model, net.populations["cells"].value("tau_m")[0])
"""
    cache = os.path.dirname(lif_nestml_so)
    env = {k: v for k, v in os.environ.items() if k not in ("OLIVE_MODEL_PATH", "OLIVE_MODEL_CACHE")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(TOP / "python"))
    runs = {"model_path": ({}, cache), "OLIVE_MODEL_PATH": ({"OLIVE_MODEL_PATH": cache}, ""),
            "cache": ({"OLIVE_MODEL_CACHE": cache}, ""), "nowhere": ({}, "")}
    for what, (extra, mp) in runs.items():
        r = subprocess.run([sys.executable, "-c", code, str(net), mp], capture_output=True, text=True,
                           env={**env, **extra})
        assert r.returncode == 0, (what, r.stderr)
        if what == "nowhere":
            assert "refused:" in r.stdout and "model 'lif_cuba_nestml' of hash" in r.stdout, r.stdout
            assert "olive-model build" in r.stdout and "OLIVE_MODEL_PATH=DIR" in r.stdout, r.stdout
        else:
            assert r.stdout.strip() == "read: lif_cuba_nestml 20.0", (what, r.stdout)


def test_pynn_nestml_state_and_assembly(tmp_path, programs):
    """A new user's script: NESTML's aeif_cond_exp through pyNN.olive, V_m and the adaptation
    current w recorded, a Projection onto the Assembly E + I on the NESTML port exc_spikes; the
    same spikes as the network written with olive.write_network, and w's trace as olive's; the first
    sample of V_m (V_m = E_L in NESTML) is the cells' own E_L, from the descriptor's initial values."""
    if not NESTML_PY.exists():
        pytest.skip(f"no NESTML venv at {NESTML_PY}")
    import warnings
    lib = NESTML_PY.parent.parent / "models" / "neurons" / "aeif_cond_exp_neuron.nestml"
    cache = tmp_path / "models"
    r = subprocess.run([str(NESTML_PY), "-m", "olive.nestml", "build", str(lib)], capture_output=True, text=True,
                       cwd=TOP / "python", env={**os.environ, "OLIVE_MODEL_CACHE": str(cache), "OLIVE_MODEL_CUDA": "0"})
    assert r.returncode == 0, r.stderr
    so = r.stdout.strip()
    import olive.pynn
    olive.pynn.install_shim()
    import pyNN.olive as sim
    rng = np.random.default_rng(11)
    conn = [(int(a), int(b), 3.0, 1.0) for a, b in zip(rng.integers(0, 40, 150), rng.integers(0, 50, 150))]
    sim.setup(timestep=0.1, backend="cpu")
    ct = sim.nestml_cell_type(so)
    E = sim.Population(40, ct(I_e=600.0, E_L=-65.0))
    I = sim.Population(10, ct(I_e=300.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (no "Can't check weight" for a plugin's port)
        sim.Projection(E, E + I, sim.FromListConnector(conn), sim.StaticSynapse(), receptor_type="exc_spikes")
    E.record(["spikes", "V_m", "w"])
    I.record("spikes")
    sim.run(200.0)
    seg_e, seg_i = E.get_data().segments[0], I.get_data().segments[0]
    sim.end()
    sigs = {s.name: np.asarray(s.magnitude) for s in seg_e.analogsignals}
    assert sigs["V_m"].shape == (2001, 40) and sigs["w"].shape == (2001, 40)
    assert np.all(np.isfinite(sigs["w"])) and sigs["w"][-1].max() > 0, "w never adapted"
    assert np.all(sigs["V_m"][0] == -65.0) and np.all(sigs["w"][0] == 0.0), (sigs["V_m"][0], sigs["w"][0])
    src = np.array([c[0] for c in conn])
    tgt = np.array([c[1] for c in conn])
    net = olive.write_network(tmp_path / "w.h5", populations=[
        {"name": "E", "count": 40, "model": so, "params": {"I_e": 600.0, "E_L": -65.0}},
        {"name": "I", "count": 10, "model": so, "params": {"I_e": 300.0}}], projections=[
        {"name": "p", "source": src, "target": tgt, "weight": 3.0, "delay_ms": 1.0, "receptor": "exc_spikes"}])
    ref = olive.simulate(net, tmp_path / "w", time=200, record=["w"], record_cells=(0, 40), progress=False)
    sp = ref.spikes
    assert len(sp) > 20
    trains = list(seg_e.spiketrains) + list(seg_i.spiketrains)
    for i, st in enumerate(trains):
        np.testing.assert_allclose(np.asarray(st.magnitude), sp.times[sp.node_ids == i], atol=1e-9)
    # (olive.simulate's report is in single precision, pyNN.olive's in double: one float ulp apart)
    np.testing.assert_allclose(sigs["w"][1:], np.asarray(ref.report("w", population="E").data), rtol=2 ** -23, atol=0)


def test_descriptor_initial_values_are_never_code(tmp_path, lif_nestml_so):
    """A descriptor's initial values are expressions of the parameters, read by olive.initial_values
    without eval(): a call, an attribute or a name that is no parameter refuses the descriptor, and
    nothing runs; the expressions olive-model build writes evaluate per cell."""
    import json
    import shutil
    from olive import initial_values, plugin_files
    src = Path(lif_nestml_so)
    d = json.loads(src.with_suffix(".olive.json").read_text())
    assert d["initial"] and len(d["initial"]) == len(d["variables"]), d.get("initial")
    so = tmp_path / "lif_cuba_nestml.so"
    shutil.copy(src, so)
    marker = tmp_path / "ran"
    for bad in (f"__import__('os').system('touch {marker}')", "E_L.__class__", "open('x')", "nope + 1",
                "lambda: 1", "[E_L]", "E_L if 1 else 2", "'text'"):
        d2 = {**d, "initial": [bad] + d["initial"][1:]}
        (tmp_path / "lif_cuba_nestml.olive.json").write_text(json.dumps(d2))
        with pytest.raises(ValueError, match="not a plugin descriptor .*initial value"):
            plugin_files.read_descriptor(so)
    assert not marker.exists()
    assert initial_values.evaluate("E_L", {"E_L": np.array([-65.0, -70.0])}).tolist() == [-65.0, -70.0]
    assert initial_values.evaluate("-2 * b + exp(0)", {"b": 1.5}) == -2.0
    assert initial_values.from_c("P_b * P_V_m_init") == "b * V_m_init"
    assert initial_values.from_c("V_some_internal * 2") == ""

"""read_network and write_network against h5py, olive-genconn and themselves."""

import os

import h5py
import numpy as np
import pytest

import olive
from olive.writer import delay_steps
from reference import h5, h5attr


def test_genconn_cuba_matches_h5py_and_command_line(cuba):
    net = olive.read_network(cuba)
    assert net.count == 1000 and net.model == "lif_cuba" and net.is_spiking
    assert net.dt == 0.1
    assert list(net.populations) == ["exc", "inh"]
    exc, inh = net.populations["exc"], net.populations["inh"]
    assert (exc.first, exc.count, inh.first, inh.count) == (0, 800, 800, 200)
    assert exc.parameters["t_ref"] == 5.0 and inh.parameters["t_ref"] == 5.0
    assert exc.parameters["E_L"] == -49.0          # genconn writes every default
    v0 = exc.value("v0")
    assert np.array_equal(v0, h5(cuba, "cells/populations/exc/v0"))
    assert v0.min() >= -60 and v0.max() < -50 and v0.std() > 2   # --v0 -60:-50, uniform
    assert list(net.projections) == ["excite", "inh_to_all"]     # name=excite; the default name
    e, i = net.projections["excite"], net.projections["inh_to_all"]
    for p in (e, i):
        g = f"synapses/{p.name}"
        assert np.array_equal(p.row_ptr, h5(cuba, g + "/row_ptr"))
        assert np.array_equal(p.col, h5(cuba, g + "/col"))
        assert p.receptor == h5attr(cuba, g, "receptor")
    assert e.receptor == "ge" and i.receptor == "gi"
    # from=exc: every source an exc cell; to=all: targets everywhere; p = 0.02
    assert e.sources.max() < 800 and i.sources.min() >= 800
    assert abs(e.nnz / (800 * 1000) - 0.02) < 0.002 and abs(i.nnz / (200 * 1000) - 0.02) < 0.004
    assert np.all(e.weight == 1.62) and np.all(i.weight == -9.0)
    # delay=0.5:2.0 ms uniform per synapse, stored in steps of 0.1 ms
    assert np.array_equal(e.delay_steps, h5(cuba, "synapses/excite/delay"))
    assert e.delay_steps.min() == 5 and e.delay_steps.max() == 20
    assert np.allclose(e.delay_ms, e.delay_steps * 0.1) and abs(e.delay_ms.mean() - 1.25) < 0.05
    assert np.all(i.delay_steps == 10) and np.allclose(i.delay_ms, 1.0)
    assert i.delay_steps[0] == h5attr(cuba, "synapses/inh_to_all", "delay")
    # no gap junctions in a spiking network
    assert net.gap_junctions.nnz == 0 and len(net.gap_junctions.row_ptr) == 1001
    # targets follow from the CSR rows
    t = e.targets
    assert len(t) == e.nnz and np.all(np.diff(t) >= 0)
    assert np.array_equal(np.bincount(t, minlength=1000), np.diff(e.row_ptr))


def _decode_like_format_md(path):
    """docs/FORMAT.md's own snippet, verbatim in substance."""
    with h5py.File(path, "r") as f:
        gj = f["gap_junctions"]
        col = gj["col"][:]
        bits, off, scale = int(gj.attrs["bits"]), gj.attrs["offset"], gj.attrs["scale"]
        if bits == 0:
            return np.full(len(col), off)
        if bits == 4:
            packed = gj["conductance"][:]
            codes = np.empty(2 * len(packed), np.uint8)
            codes[0::2], codes[1::2] = packed & 15, packed >> 4
            return off + codes[:len(col)] * scale
        if bits in (8, 16):
            return off + gj["conductance"][:] * scale
        return gj["conductance"][:].astype(np.float64)


@pytest.mark.parametrize("bits", [0, 4, 8, 16, 32, 64])
def test_gap_junction_conductances_decoded(tmp_path, bits):
    path = tmp_path / f"gj{bits}.h5"
    cond = 0.04 if bits == 0 else (0.02, 0.06)
    olive.genconn(path, dims=(10, 10), generator="gaussian", density=7, sigma=2, conductance=cond,
                  conductance_bits=bits, symmetric=True, gcal=(0.6, 1.2), seed=3, progress=False)
    net = olive.read_network(path)
    gj = net.gap_junctions
    assert net.model == "infoli" and not net.is_spiking and net.count == 100
    assert list(net.dims) == [10, 10, 1]
    assert gj.bits == bits and gj.attrs["symmetric"] == 1
    assert np.array_equal(gj.row_ptr, h5(path, "gap_junctions/row_ptr"))
    assert np.array_equal(gj.col, h5(path, "gap_junctions/col"))
    assert gj.nnz == len(gj.col) and gj.nnz >= 700      # 7 drawn per cell, mirrored
    w = _decode_like_format_md(path)
    assert np.array_equal(gj.conductance, w)
    if bits == 4:   # odd junction count possible: the last byte's high nibble unused
        assert len(h5(path, "gap_junctions/conductance")) == (gj.nnz + 1) // 2
    if bits:
        assert gj.conductance.min() >= 0.02 - 1e-12 and gj.conductance.max() <= 0.06 + 1e-12
        assert len(np.unique(gj.conductance)) > (8 if bits == 4 else 50)
    else:
        assert np.all(gj.conductance == 0.04)
    # --symmetric: w_ij = w_ji
    G = {(int(t), int(s)): c for t, s, c in zip(gj.targets, gj.sources, gj.conductance)}
    assert all(G[(s, t)] == c for (t, s), c in G.items())
    g = net.g_cal_values()
    assert np.array_equal(g, h5(path, "cells/g_CaL")) and 0.6 <= g.min() and g.max() <= 1.2


def test_infoli_default_gcal(tmp_path):
    path = tmp_path / "grid.h5"
    olive.genconn(path, dims=(4, 5), generator="grid", progress=False)
    net = olive.read_network(path)
    assert net.g_cal is None and np.all(net.g_cal_values() == 0.68)
    # the 8-neighbour mesh on 4x5: corners 3, edges 5, inside 8 -> 4*3 + 2*(2+3)*5 + 6*8 = 110
    assert net.gap_junctions.nnz == 110


def _lif_network(rng):
    n_exc, n_inh = 160, 40
    n = n_exc + n_inh
    src = rng.integers(0, n_exc, 3000)
    tgt = rng.integers(0, n, 3000)
    pops = [{"name": "exc", "count": n_exc, "model": "lif_cuba",
             "params": {"t_ref": 2.0, "tau_m": 15.0, "v0": rng.uniform(-60, -50, n_exc)}},
            {"name": "inh", "count": n_inh, "model": "lif_cuba", "params": {"V_th": -51.0}}]
    projs = [{"name": "ee", "source": src, "target": tgt, "weight": rng.uniform(0.5, 2.0, 3000),
              "delay_ms": rng.uniform(0.0, 3.0, 3000), "receptor": "ge"},
             {"name": "ie", "source": rng.integers(n_exc, n, 500), "target": rng.integers(0, n, 500),
              "weight": -7.5, "delay_ms": 0.8, "receptor": "gi"}]
    return pops, projs


def test_write_read_round_trip_exact(tmp_path, rng):
    pops, projs = _lif_network(rng)
    path = tmp_path / "mine.h5"
    assert olive.write_network(path, pops, projs, dt=0.1) == str(path)
    net = olive.read_network(path)
    assert net.count == 200 and net.model == "lif_cuba" and net.dt == 0.1
    exc = net.populations["exc"]
    assert exc.parameters == {"t_ref": 2.0, "tau_m": 15.0}
    assert np.array_equal(exc.per_cell["v0"], pops[0]["params"]["v0"])
    assert np.array_equal(exc.value("v0"), pops[0]["params"]["v0"])
    assert np.all(exc.value("E_L") == -49.0)                 # the default, not in the file
    assert np.all(net.populations["inh"].value("V_th") == -51.0)
    for spec in projs:
        p = net.projections[spec["name"]]
        m = len(spec["source"])
        w = np.broadcast_to(spec["weight"], (m,))
        d = delay_steps(np.broadcast_to(spec["delay_ms"], (m,)), 0.1)
        want = sorted(zip(spec["target"].tolist(), spec["source"].tolist(), w.tolist(), d.tolist()))
        got = list(zip(p.targets.tolist(), p.sources.tolist(), p.weight.tolist(), p.delay_steps.tolist()))
        assert sorted(got) == want            # exact: the same synapses, weights and delays
        keys = [(t, s) for t, s, _, _ in got]
        assert keys == sorted(keys)           # in CSR order: by target, then source
        assert p.receptor == spec["receptor"]
    # a scalar weight and delay are stored as attributes, arrays as datasets
    assert h5attr(path, "synapses/ie", "weight") == -7.5 and h5attr(path, "synapses/ie", "delay") == 8
    assert h5(path, "synapses/ee/delay").dtype == np.uint16
    # the delays rounded as olive-genconn rounds (llround: half away from zero)
    assert list(delay_steps([0.25, 0.75, 1.25, 0.2499], 0.5)) == [1, 2, 3, 0]   # numpy.round: 0, 2, 2, 0
    # read -> write -> read is the identity
    again = tmp_path / "again.h5"
    olive.write_network(again, list(net.populations.values()), list(net.projections.values()), dt=net.dt)
    net2 = olive.read_network(again)
    for name, p in net.projections.items():
        q = net2.projections[name]
        for a in ("row_ptr", "col", "weight", "delay_steps"):
            assert np.array_equal(getattr(p, a), getattr(q, a)), (name, a)
    assert np.array_equal(net2.populations["exc"].per_cell["v0"], exc.per_cell["v0"])


def test_infoli_write_round_trip(tmp_path):
    path = tmp_path / "io.h5"
    src, tgt = [1, 2, 3, 0, 2, 0], [0, 0, 0, 1, 1, 3]
    w = [0.04, 0.05, 0.06, 0.04, 0.01, 0.02]
    olive.write_network(path, cells=4, dims=(2, 2), gap_junctions={"source": src, "target": tgt, "conductance": w},
                        g_cal=[0.7, 0.8, 0.9, 1.0])
    net = olive.read_network(path)
    gj = net.gap_junctions
    assert list(gj.row_ptr) == [0, 3, 5, 5, 6] and list(gj.col) == [1, 2, 3, 0, 2, 0]
    assert list(gj.conductance) == w and gj.bits == 64
    assert list(net.g_cal) == [0.7, 0.8, 0.9, 1.0] and list(net.dims) == [2, 2, 1]
    olive.write_network(path, cells=4, gap_junctions={"source": [1], "target": [0], "conductance": 0.04}, force=True)
    gj = olive.read_network(path).gap_junctions
    assert gj.bits == 0 and gj.offset == 0.04 and list(gj.conductance) == [0.04]


def test_write_network_refuses_overwrite_and_leaves_no_temp(tmp_path):
    path = tmp_path / "x.h5"
    pops = [{"name": "all", "count": 5, "model": "lif_coba"}]
    olive.write_network(path, pops)
    before = h5attr(path, "/", "format")
    with pytest.raises(FileExistsError, match="x.h5: exists; pass force=True"):
        olive.write_network(path, pops)
    olive.write_network(path, pops, force=True)
    assert before == "olive-network" and olive.read_network(path).dt == 0.1   # lif_coba's default dt
    assert sorted(os.listdir(tmp_path)) == ["x.h5"]


@pytest.mark.parametrize("pops,projs,message", [
    ([{"name": "a", "count": 3, "model": "lif_cuba", "params": {"tau": 1.0}}], [],
     "population 'a': 'tau' is not a parameter of lif_cuba"),
    ([{"name": "a", "count": 3, "model": "lif_cube"}], [], "unknown model 'lif_cube'"),
    ([{"name": "a", "count": 3, "model": "lif_cuba", "params": {"v0": [1.0, 2.0]}}], [],
     "parameter v0 has shape \\(2,\\); per-cell values need 3"),
    ([{"name": "a", "count": 0, "model": "lif_cuba"}], [], "count must be a positive integer"),
    ([{"name": "a/b", "count": 2, "model": "lif_cuba"}], [], "population name 'a/b' must be"),
    ([{"name": "a", "count": 3, "model": "lif_cuba"}],
     [{"name": "p", "source": [0, 3], "target": [1, 1], "weight": 1.0, "delay_ms": 1.0, "receptor": "ge"}],
     "projection 'p': source\\[1\\] = 3 is not a cell id \\(the network has 3 cells\\)"),
    ([{"name": "a", "count": 3, "model": "lif_cuba"}],
     [{"name": "p", "source": [0], "target": [1], "weight": 1.0, "delay_ms": 1.0, "receptor": "gx"}],
     "receptor 'gx' must be one of ge, gi"),
    ([{"name": "a", "count": 3, "model": "lif_cuba"}],
     [{"name": "p", "source": [0], "target": [1], "weight": 1.0, "delay_ms": 7000.0, "receptor": "ge"}],
     "delay_ms\\[0\\] = 7000.0 ms rounds to 70000 steps of 0.1 ms; at most 65535 steps fit"),
    ([{"name": "a", "count": 3, "model": "lif_cuba"}],
     [{"name": "p", "source": [0], "target": [1], "weight": float("nan"), "delay_ms": 1.0, "receptor": "ge"}],
     "weight\\[0\\] = nan is not finite"),
    ([{"name": "a", "count": 3, "model": "lif_coba"}],
     [{"name": "p", "source": [0], "target": [1], "weight": -1.0, "delay_ms": 1.0, "receptor": "gi"}],
     "onto a lif_coba cell is a conductance and cannot be negative"),
    ([{"name": "a", "count": 3, "model": "lif_cuba"}],
     [{"name": "p", "source": [0], "target": [1, 2], "weight": 1.0, "delay_ms": 1.0, "receptor": "ge"}],
     "1 sources but 2 targets"),
    ([{"name": "a", "count": 3, "model": "lif_cuba"}],
     [{"name": "p", "source": [0], "target": [1], "weight": 1.0, "delay": 1.0, "receptor": "ge"}],
     "unknown key\\(s\\) \\['delay'\\]"),
])
def test_write_network_validation(tmp_path, pops, projs, message):
    path = tmp_path / "bad.h5"
    with pytest.raises(ValueError, match=message) as err:
        olive.write_network(path, pops, projs)
    assert str(err.value).startswith(str(path) + ": ")
    assert not os.listdir(tmp_path)          # nothing written


def test_read_network_faults_name_file_and_object(tmp_path, rng):
    with pytest.raises(FileNotFoundError, match="nope.h5: no such network file"):
        olive.read_network(tmp_path / "nope.h5")
    path = tmp_path / "n.h5"
    olive.write_network(path, [{"name": "all", "count": 4, "model": "lif_cuba"}],
                        [{"name": "p", "source": [0, 1], "target": [2, 2], "weight": [1.0, 2.0],
                          "delay_ms": [1.0, 2.0], "receptor": "ge"}])
    with h5py.File(path, "r+") as f:
        f["synapses/p/col"][...] = np.array([1, 0], np.int32)      # descending within row 2
    with pytest.raises(olive.FormatError, match="n.h5: /synapses/p: the entries of row 2 are not in ascending order"):
        olive.read_network(path)
    with h5py.File(path, "r+") as f:
        f["synapses/p/col"][...] = np.array([0, 9], np.int32)
    with pytest.raises(olive.FormatError, match=r"/synapses/p/col\[1\] = 9 is not a cell id"):
        olive.read_network(path)
    with h5py.File(path, "r+") as f:
        f.attrs["format"] = "something-else"
    with pytest.raises(olive.FormatError, match="not an olive network file"):
        olive.read_network(path)


def test_model_table_is_olives(programs, tmp_path):
    """olive.models keeps a copy of common/models/cellmodel.c's parameter tables: the
    names and defaults must be those olive-genconn writes for each
    spiking model (it writes every parameter of a population)."""
    import h5py
    import subprocess
    from olive import models
    swc = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "cell.swc")
    for m in models.known_models():
        if m == models.INFOLI:
            continue
        path = tmp_path / f"{m}.h5"
        if m == "spike_source_array":   # no parameters: its spike times are datasets
            assert models.parameters(m) == {}
            continue
        if m == "spike_source_poisson":   # olive-genconn's --source-poisson with its defaults after the rate
            args = ["--model", "lif_cuba", "--population", "n:1", "--source-poisson", "src:2:1"]
            pop = "src"
        else:
            pop = "all"
            args = ["--model", m, "--cells", "2"] + (["--morphology", swc] if m == "hh_swc" else [])
        subprocess.run([programs["genconn"], "-q", "-o", str(path)] + args, check=True)
        with h5py.File(path, "r") as f:
            attrs = f[f"cells/populations/{pop}"].attrs
            order = [k for k in attrs if k not in ("model", "first", "count", "morphology")]
            written = {k: float(attrs[k]) for k in order}
        table = models.parameters(m)
        assert written == table, (m, written, table)   # (HDF5 lists attributes by name: no order to compare)


def test_write_network_hh_swc_biophysics_per_type(programs, tmp_path):
    """hh_swc's biophysics per section type (TYPE.FIELD parameters) and
    hh_tables go into the file as olive-genconn writes them; a misspelt one is
    refused before the file exists, an out-of-range one by olive-simulate."""
    import subprocess
    swc = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "cell.swc")
    params = {"dend.hh": 1, "dend.g_pas": 5e-5, "soma.Ra": 80.0, "hh_tables": 0}
    pops = [{"name": "c", "count": 2, "model": "hh_swc", "morphology": swc, "params": params}]
    olive.write_network(tmp_path / "n.h5", pops, [], dt=0.025)
    p = olive.read_network(tmp_path / "n.h5").populations["c"]
    assert {k: p.value(k)[0] for k in params} == params and p.value("axon.hh").tolist() == [1, 1]
    subprocess.run([programs["simulate"], "-q", str(tmp_path / "n.h5"), "-o", str(tmp_path / "run"), "--time", "1"],
                   check=True)
    with pytest.raises(ValueError, match="'soma.Rb' is not a parameter of hh_swc"):
        olive.write_network(tmp_path / "m.h5", [dict(pops[0], params={"soma.Rb": 1})], [], dt=0.025)
    assert not os.path.exists(tmp_path / "m.h5")
    olive.write_network(tmp_path / "b.h5", [dict(pops[0], params={"apic.pas": 2})], [], dt=0.025)
    r = subprocess.run([programs["simulate"], "-q", str(tmp_path / "b.h5"), "-o", str(tmp_path / "b"), "--time", "1"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "population c: parameter apic.pas = 2 must be 0 or 1" in r.stderr, r.stderr


def test_write_network_delays_fit_their_uint16_steps(tmp_path):
    pops = [{"name": "a", "count": 2, "model": "lif_cuba"}]

    def proj(delay):
        return [{"name": "p", "source": [0], "target": [1], "weight": 1.0, "delay_ms": delay, "receptor": "ge"}]
    for delay, message in ((1e20, r"delay_ms\[0\] = 1e\+20 ms rounds to 1000000000000000000000 steps"),
                           (6553.6, r"delay_ms\[0\] = 6553.6 ms rounds to 65536 steps of 0.1 ms; at most 65535"),
                           (float("inf"), r"delay_ms\[0\] = inf ms is not finite"),
                           (-0.01, r"delay_ms\[0\] = -0.01 ms is negative")):
        with pytest.raises(ValueError, match="projection 'p': " + message):
            olive.write_network(tmp_path / "n.h5", pops, proj(delay), dt=0.1)
        assert not os.listdir(tmp_path)
    olive.write_network(tmp_path / "n.h5", pops, proj(6553.5), dt=0.1)
    assert olive.read_network(tmp_path / "n.h5").projections["p"].delay_steps.tolist() == [65535]
    with pytest.raises(ValueError, match=r"population 's': spike_times\[1\] = 1e\+20 ms rounds to"):
        olive.write_network(tmp_path / "m.h5", [{"name": "s", "count": 1, "model": "spike_source_array",
                                                 "spike_times": [[1.0, 1e20]]}, *pops])
    with pytest.raises(ValueError, match=r"population 's': start = 1e\+20 ms rounds to"):
        olive.write_network(tmp_path / "m.h5", [{"name": "s", "count": 1, "model": "spike_source_poisson",
                                                 "params": {"start": 1e20}}, *pops])


def test_write_network_synapse_sites(tmp_path):
    """site_section / site_x per synapse (docs/FORMAT.md "Synapses"): written in the file's CSR
    order as int32 and float64 with the provenance attribute `sites`, read back, written again
    from what was read; faults refused, naming the projection and the entry, before a file exists."""
    import h5py
    swc = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "cell.swc")
    pops = [{"name": "src", "count": 2, "model": "spike_source_poisson"},
            {"name": "c", "count": 3, "model": "hh_swc", "morphology": swc}]
    proj = {"name": "p", "source": [1, 0, 1, 0], "target": [4, 2, 3, 2], "weight": 0.01, "delay_ms": 1.0,
            "receptor": "ge", "site_section": np.array([3, 0, 5, 1], np.int32), "site_x": [0.25, 0.5, 1.0, 0.0],
            "sites": "list:sites.txt"}
    olive.write_network(tmp_path / "n.h5", pops, [proj], dt=0.025)
    with h5py.File(tmp_path / "n.h5", "r") as f:
        g = f["synapses/p"]
        # CSR by target, then source, multapses in their order: (0 -> 2) twice, (1 -> 3), (1 -> 4)
        assert g["col"][()].tolist() == [0, 0, 1, 1] and g["row_ptr"][()].tolist() == [0, 0, 0, 2, 3, 4]
        assert g["site_section"].dtype == np.int32 and g["site_section"][()].tolist() == [0, 1, 5, 3]
        assert g["site_x"].dtype == np.float64 and g["site_x"][()].tolist() == [0.5, 0.0, 1.0, 0.25]
        assert g.attrs["sites"] == b"list:sites.txt"
    p = olive.read_network(tmp_path / "n.h5").projections["p"]
    assert p.site_section.tolist() == [0, 1, 5, 3] and p.site_x.tolist() == [0.5, 0.0, 1.0, 0.25]
    assert p.attrs["sites"] == "list:sites.txt"
    net = olive.read_network(tmp_path / "n.h5")
    olive.write_network(tmp_path / "again.h5", list(net.populations.values()), list(net.projections.values()),
                        dt=0.025)
    with h5py.File(tmp_path / "again.h5", "r") as f:
        g = f["synapses/p"]
        assert g["site_section"][()].tolist() == [0, 1, 5, 3] and g.attrs["sites"] == b"list:sites.txt"
    os.remove(tmp_path / "again.h5")
    os.remove(tmp_path / "n.h5")
    cable = [pops[0], {"name": "c", "count": 3, "model": "hh_cable"}]
    lif = [pops[0], {"name": "c", "count": 3, "model": "lif_cuba"}]
    for change, where, message in (
            ({"site_x": None}, pops, "site_section and site_x come together"),
            ({"site_x": [0.1, 1.5, 0, 0]}, pops, r"site_x\[1\] = 1.5 is not a position in \[0, 1\]"),
            ({"site_x": [0.1, np.nan, 0, 0]}, pops, r"site_x\[1\] = nan is not a position"),
            ({"site_section": [0, -1, 0, 0]}, pops, r"site_section\[1\] = -1 is not a section index"),
            ({"site_section": [0.5, 0, 0, 0]}, pops, "site_section must hold integer section indices"),
            ({"site_section": [0, 0, 0]}, pops, r"site_section has shape \(3,\); 4 synapses need 4 values"),
            ({"site_section": None, "site_x": None}, pops, "'sites' .* needs site_section and site_x"),
            ({"sites": "x" * 256}, pops, r"sites .*\(256 characters\) must be a string of at most 255 ASCII"),
            ({}, cable, r"site_section\[0\] = 3: an hh_cable cell has sections 0 \(the soma\) and 1"),
            ({}, lif, "synapse 0 has a site but targets a lif_cuba cell")):
        with pytest.raises(ValueError, match="projection 'p': " + message):
            olive.write_network(tmp_path / "n.h5", where, [dict(proj, **change)], dt=0.025)
        assert not os.listdir(tmp_path)
    # a file with one of the two datasets: refused by the reader
    olive.write_network(tmp_path / "ok.h5", pops, [dict(proj, site_section=None, site_x=None, sites=None)], dt=0.025)
    with h5py.File(tmp_path / "ok.h5", "a") as f:
        f["synapses/p"].create_dataset("site_x", data=np.zeros(4))
    with pytest.raises(olive.FormatError, match="/synapses/p/site_x is there without site_section"):
        olive.read_network(tmp_path / "ok.h5")


def test_read_network_procedural(tmp_path, programs):
    """A procedural network (olive-genconn --procedural) is a valid file: its projections
    come back as their rules (ProceduralProjection), not as a missing row_ptr."""
    from olive.programs import run_program
    path = tmp_path / "proc.h5"
    run_program("olive-genconn", ["-q", "-o", str(path), "--procedural", "--model", "lif_cuba", "--population", "e:40",
                                  "--seed", "1", "--projection",
                                  "from=e,to=e,indegree=4,weight=0.5:1,delay=1,receptor=ge"], progress=False)
    net = olive.read_network(path)
    p = net.projections["e_to_e"]
    assert isinstance(p, olive.ProceduralProjection)
    assert p.rule["procedural"] == "indegree" and p.rule["procedural_n"] == 4
    assert list(p.rule["weight_uniform"]) == [0.5, 1.0] and p.receptor == "ge" and p.nnz is None
    assert p.attrs["source"] == "e" and net.populations["e"].count == 40

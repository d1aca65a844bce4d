"""run.plot_raster / plot_rates / plot_traces (olive.plotting): what they draw, read back from the artists."""

import builtins

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

import olive  # noqa: E402
import olive.plotting  # noqa: E402


@pytest.fixture(scope="module")
def pulsed(tmp_path_factory, cuba):
    """The CUBA network (exc 0-799, inh 800-999) with a pulse into cells 0-99 at 50-80 ms."""
    out = tmp_path_factory.mktemp("plot") / "run"
    return olive.simulate(cuba, out, time=120, pulses=[(50.0, 80.0, 20.0, 0, 100)], record=["v"],
                          record_cells=(0, 3), progress=False)


def test_raster_one_scatter_per_population(pulsed):
    ax = pulsed.plot_raster()
    pts = [c for c in ax.collections if c.get_label() in ("exc", "inh")]
    assert [c.get_label() for c in pts] == ["exc", "inh"]
    ids, t = pulsed.spikes.node_ids, pulsed.spikes.times
    assert sum(len(c.get_offsets()) for c in pts) == len(t) > 0
    exc, inh = (np.asarray(c.get_offsets()) for c in pts)
    assert len(exc) == np.sum(ids < 800) and (exc[:, 1] < 800).all()
    assert len(inh) == np.sum(ids >= 800) and (inh[:, 1] >= 800).all()
    assert not np.allclose(pts[0].get_facecolor()[0], pts[1].get_facecolor()[0]), "one colour for both"
    legend = [tx.get_text() for tx in ax.get_legend().get_texts()]
    assert legend == ["exc", "inh", "stimulus"]
    band = [c for c in ax.collections if c.get_label() == "stimulus"][0]
    (x0, y0), (x1, y1) = band.get_paths()[0].get_extents().get_points()
    assert (x0, x1, y0, y1) == (50.0, 80.0, -0.5, 99.5)
    assert ax.get_xlabel() == "time (ms)" and ax.get_ylabel() == "cell (node id)"
    plt.close(ax.figure)


def test_rates_per_population(pulsed):
    raster, ax = pulsed.plot_raster(rates=True, bin_ms=10)
    assert raster.figure is ax.figure
    lines = {s.get_label(): s for s in ax.patches if s.get_label() in ("exc", "inh")}
    assert set(lines) == {"exc", "inh"}
    edges, hz = olive.plotting.rates(pulsed, 10, None)
    ids, t = pulsed.spikes.node_ids, pulsed.spikes.times
    want = np.histogram(t[ids < 800], edges)[0] / 800 / 0.01
    np.testing.assert_allclose(lines["exc"].get_data().values, want)
    assert mcolors.to_hex(lines["exc"].get_edgecolor()) != mcolors.to_hex(lines["inh"].get_edgecolor())
    assert ax.get_ylabel() == "rate (Hz per cell)"
    plt.close(ax.figure)


def test_traces(pulsed, cable_run):
    ax = pulsed.plot_traces("v")
    assert [ln.get_label() for ln in ax.get_lines()] == ["cell 0", "cell 1", "cell 2"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), pulsed.reports["v"].trace(1))
    assert ax.get_ylabel() == "v (mV)"
    plt.close(ax.figure)
    ax = cable_run.plot_traces("v", cells=0, compartments=True)
    rep = cable_run.compartment_reports["v"]
    assert len(ax.get_lines()) == len(rep.columns_of(0)) == 4    # soma + 3 dendrite compartments
    plt.close(ax.figure)
    with pytest.raises(KeyError, match="no report of 'nosuch'"):
        pulsed.plot_traces("nosuch")


def test_without_matplotlib(pulsed, monkeypatch):
    real = builtins.__import__

    def no_mpl(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(f"No module named '{name}'")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_mpl)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        pulsed.plot_raster()

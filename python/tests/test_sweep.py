"""olive.sweep: a grid of olive-simulate runs (--param and placeholders), its table, failures and the collector."""

import csv
import os
import subprocess
import sys

import numpy as np
import pytest

import olive


@pytest.fixture(scope="module")
def small(tmp_path_factory, programs):
    """100 cells (exc 80, inh 20) below threshold at rest: they fire only as the Poisson input drives them."""
    path = tmp_path_factory.mktemp("sweep") / "small.h5"
    olive.genconn(path, model="lif_cuba", populations=[("exc", 80), ("inh", 20)], v0=(-60, -50),
                  projections=[{"from": "exc", "to": "all", "p": 0.1, "weight": 1.0, "delay": 1.0, "receptor": "ge"},
                               {"from": "inh", "to": "all", "p": 0.1, "weight": -4, "delay": 1.0, "receptor": "gi"}],
                  params={"E_L": -60, "t_ref": 2}, seed=5, progress=False)
    return path


def test_three_by_three_sweep(small, tmp_path):
    out = tmp_path / "sw"
    table = olive.sweep(small, params={"exc.tau_m": [10, 20, 40], "rate": [2000, 3000, 4500]},
                        poisson=[{"rate": "{rate}", "weight": 1.0, "receptor": "ge"}], time=200, outdir=out, jobs=2)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert len(rows) == 9
    assert [(r["exc.tau_m"], r["rate"]) for r in rows] == [(t, r) for t in (10, 20, 40) for r in (2000, 3000, 4500)]
    for col in ("point", "spikes", "rate_hz", "exc_rate_hz", "inh_rate_hz", "exc_cv_isi", "error"):
        assert col in rows[0], col
    assert all(r["error"] == "" for r in rows)
    exc = np.array([r["exc_rate_hz"] for r in rows]).reshape(3, 3)
    assert np.all(np.diff(exc, axis=0) < 0), f"a longer exc tau_m must lower the exc rate: {exc}"
    assert np.all(np.diff(exc, axis=1) > 0), f"a higher Poisson rate must raise the exc rate: {exc}"
    # each point's run carries its own --param, and the placeholder reached --poisson
    run = olive.read_run(out / "point-005")
    assert run.provenance["param_overrides"] == "exc.tau_m=20"
    assert "rate=4500" in run.provenance["command"]
    with open(out / "sweep.csv") as f:
        assert len(list(csv.DictReader(f))) == 9
    # the collector of the SLURM example builds the same table from the directory
    done = subprocess.run([sys.executable, "-m", "olive.sweep", "collect", str(out)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    again = olive.sweep.collect(out)
    again = again.to_dict("records") if hasattr(again, "to_dict") else again
    assert [float(r["exc_rate_hz"]) for r in again] == [r["exc_rate_hz"] for r in rows]


def test_failed_point_named(small, tmp_path):
    with pytest.raises(olive.sweep.SweepError) as e:
        olive.sweep(small, params={"exc.tau_m": [10, -1]}, time=20, outdir=tmp_path / "bad")
    msg = str(e.value)
    assert "point 1 (exc.tau_m=-1)" in msg and "tau_m must be more than 0" in msg, msg
    assert [p for p, _, _ in e.value.failures] == [1]
    with open(tmp_path / "bad" / "sweep.csv") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["error"] == "" and "tau_m must be more than 0" in rows[1]["error"]
    with pytest.raises(FileExistsError):
        olive.sweep(small, params={"exc.tau_m": [10]}, time=20, outdir=tmp_path / "bad")


def test_grid_file(tmp_path):
    assert subprocess.run([sys.executable, "-m", "olive.sweep", "grid", str(tmp_path), "exc.tau_m=10,20",
                           "--seed=1,2,3"], capture_output=True, text=True).stdout.strip() == "6"
    points = olive.sweep.read_grid(tmp_path / "grid.csv")
    assert points[4] == (4, {"exc.tau_m": "20", "--seed": "2"})


SLURM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "slurm")


@pytest.mark.skipif(not os.path.isdir(SLURM), reason="examples/slurm is not beside the tests")
def test_slurm_array_example_without_slurm(small, programs, tmp_path):
    """examples/slurm/sweep-array.sbatch run once per SLURM_ARRAY_TASK_ID, then sweep-collect.sbatch:
    the table of olive.sweep over the same grid."""
    sw = tmp_path / "sweep"
    subprocess.run([sys.executable, "-m", "olive.sweep", "grid", str(sw), "exc.tau_m=10,20", "--seed=1,2"], check=True,
                   capture_output=True)
    env = dict(os.environ, NET=str(small), SWEEP=str(sw), TIME="100", PYTHON=sys.executable,
               OLIVE_BIN=os.path.dirname(programs["simulate"]), SIM_ARGS="--poisson rate=3000,weight=1,receptor=ge")
    for task in range(4):
        done = subprocess.run(["bash", os.path.join(SLURM, "sweep-array.sbatch")], env=dict(env, SLURM_ARRAY_TASK_ID=str(task)),
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    bad = subprocess.run(["bash", os.path.join(SLURM, "sweep-array.sbatch")], env=dict(env, SLURM_ARRAY_TASK_ID="9"),
                         capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "has no point 9" in bad.stderr
    done = subprocess.run(["bash", os.path.join(SLURM, "sweep-collect.sbatch")], env=env, capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with open(sw / "sweep.csv") as f:
        rows = list(csv.DictReader(f))
    ref = olive.sweep(small, params={"exc.tau_m": [10, 20], "--seed": [1, 2]}, time=100, outdir=tmp_path / "ref",
                      poisson=[{"rate": 3000, "weight": 1, "receptor": "ge"}])
    ref = ref.to_dict("records") if hasattr(ref, "to_dict") else ref
    assert [(r["exc.tau_m"], r["--seed"]) for r in rows] == [("10", "1"), ("10", "2"), ("20", "1"), ("20", "2")]
    assert [int(r["spikes"]) for r in rows] == [r["spikes"] for r in ref]
    assert len({r["spikes"] for r in rows}) > 1


def test_table_without_pandas(monkeypatch):
    """Without pandas (the tutorial's sweep, pip install ./python alone) the table still
    takes the DataFrame operations the tutorial uses: columns by list, to_string(index=False)."""
    from olive import sweep as sw
    monkeypatch.setitem(sys.modules, "pandas", None)   # import pandas raises ImportError
    t = sw._table([{"exc.tau_m": 10, "rate": 20, "exc_rate_hz": 48.4}, {"exc.tau_m": 15, "rate": 20, "exc_rate_hz": 26.92}])
    assert isinstance(t, sw.Table) and len(t) == 2
    assert t["exc_rate_hz"] == [48.4, 26.92]
    assert t[["exc.tau_m", "exc_rate_hz"]].to_string(index=False).splitlines() == [
        "exc.tau_m exc_rate_hz", "       10        48.4", "       15       26.92"]
    assert t[0]["rate"] == 20

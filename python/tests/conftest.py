"""Shared fixtures: olive's programs and a small CUBA network run once per session.

The programs come from $OLIVE_BIN (tests/test_python_package.sh sets it to
the build's bin folder); a missing program fails the tests, it does not skip
them, so that `make check` cannot pass without having run them.
"""

import os

import numpy as np
import pytest

import olive

if os.environ.get("OLIVE_EXPECT_INSTALLED") and "site-packages" not in olive.__file__:
    raise RuntimeError(f"the tests import {olive.__file__}, not the installed package")


@pytest.fixture(scope="session")
def programs():
    """{name: path} of the four programs (fails when one is missing)."""
    return {n: olive.find_program(n) for n in ("genconn", "disperse", "simulate", "analyze")}


@pytest.fixture(scope="session")
def cuba(tmp_path_factory, programs):
    """olive-genconn's CUBA network of 1000 cells (800 exc, 200 inh) with uniform delays."""
    d = tmp_path_factory.mktemp("cuba")
    path = d / "cuba.h5"
    olive.genconn(path, model="lif_cuba", populations=[("exc", 800), ("inh", 200)], v0=(-60, -50),
                  projections=[
                      {"from": "exc", "to": "all", "p": 0.02, "weight": 1.62, "delay": (0.5, 2.0), "receptor": "ge",
                       "name": "excite"},
                      {"from": "inh", "to": "all", "p": 0.02, "weight": -9, "delay": 1.0, "receptor": "gi"}],
                  params={"t_ref": 5.0}, seed=11, progress=False)
    return path


@pytest.fixture(scope="session")
def cuba_run(tmp_path_factory, cuba):
    """200 ms of the CUBA network with v and ge recorded every 10 steps for cells 0..49."""
    out = tmp_path_factory.mktemp("cuba-run") / "run"
    return olive.simulate(cuba, out, time=200, record=["v", "ge"], record_every=10, record_cells=(0, 50),
                          progress=False)


@pytest.fixture(scope="session")
def cable_run(tmp_path_factory, programs):
    """Three ball-and-stick (hh_cable) cells, dendrites of 3 compartments, 5 ms, a pulse into cell 0."""
    d = tmp_path_factory.mktemp("cable")
    olive.genconn(d / "cable.h5", model="hh_cable", cells=3, params={"dend_nseg": 3}, progress=False)
    return olive.simulate(d / "cable.h5", d / "out", time=5, record="v", record_compartments=["v"],
                          pulses=[(1.0, 3.0, 0.5, 0, 1)], progress=False)


@pytest.fixture
def rng():
    return np.random.default_rng(2026)

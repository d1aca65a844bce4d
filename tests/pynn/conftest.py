"""Runs PyNN 0.13's own tests against pyNN.olive: its system scenarios
(test/system/scenarios of its sdist) and the unit tests written for a backend
(test/unittests, run with pyNN.mock replaced by pyNN.olive), copied beside
this file by tests/test_pynn.sh; the scenarios also against another backend
for the comparison (PYNN_SIMS=nest).

PyNN decorates each scenario with the backends it is meant for
(run_with_simulators("nest", "neuron", ...)); here every scenario runs on the
backends named in PYNN_SIMS instead, whatever PyNN lists, so that nothing is
left out silently.  The scenarios olive is known to fail are read from
expected.tsv (test name, reason) and marked xfail(strict=True): a new failure
fails the run, and so does a listed test that starts to pass (then the list
and docs/PYNN.md are out of date).  With PYNN_SPIKE_LOG=FILE every spike
train a scenario reads back (Recorder.get), and every spike count
(Recorder.count, as "<test> (spike counts)"), is written to FILE as JSON, so
two backends' spikes can be compared (scripts/pynn_compare_backends.py).
"""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SIMS = os.environ.get("PYNN_SIMS", "olive").split(",")

if "olive" in SIMS:
    import olive.pynn
    olive.pynn.install_shim()
    # PyNN's unit tests are written against its mock backend (import pyNN.mock as
    # sim; every test takes sim as a parameter so that a backend can reuse it):
    # here pyNN.mock is pyNN.olive
    import pyNN.olive
    sys.modules["pyNN.mock"] = pyNN.olive

import scenarios.fixtures as fixtures  # noqa: E402

_run_with_simulators = fixtures.run_with_simulators


def run_with_simulators(*names):
    return _run_with_simulators(*SIMS)


fixtures.run_with_simulators = run_with_simulators

if "nest" in SIMS and os.environ.get("PYNN_NEST_SPIKE_PRECISION"):
    # pyNN.nest's default is spike_precision="off_grid" (NEST's precise-spike
    # models); olive's spikes are on the time grid, so the comparison runs NEST's
    # grid-based models (iaf_psc_exp, iaf_cond_exp): PYNN_NEST_SPIKE_PRECISION=on_grid
    import pyNN.nest
    _setup = pyNN.nest.setup

    def setup(*args, **kwargs):
        kwargs["spike_precision"] = os.environ["PYNN_NEST_SPIKE_PRECISION"]
        return _setup(*args, **kwargs)

    pyNN.nest.setup = setup


def _expected():
    path = os.environ.get("PYNN_EXPECTED", os.path.join(os.path.dirname(__file__), "expected.tsv"))
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, reason = line.rstrip("\n").split("\t", 1)
                out[name] = reason
    return out


def pytest_collection_modifyitems(config, items):
    if SIMS != ["olive"]:
        return
    expected = _expected()
    seen = set()
    for item in items:
        path, name = item.nodeid.split("[", 1)[0].split("::", 1)
        key = f"{os.path.basename(path)}::{name}"
        if key in expected:
            seen.add(key)
            item.add_marker(pytest.mark.xfail(strict=True, reason=expected[key]))
    collected = {os.path.basename(item.nodeid.split("::", 1)[0]) for item in items}
    missing = sorted(k for k in set(expected) - seen if k.split("::", 1)[0] in collected)
    if missing:
        raise pytest.UsageError(f"expected.tsv names scenarios PyNN does not have: {missing}")


# -- the spike log ---------------------------------------------------------------

_log = {}
_current = [None]


@pytest.fixture(autouse=True)
def _name_the_test(request):
    _current[0] = request.node.nodeid.split("[", 1)[0]
    yield
    _current[0] = None


def pytest_configure(config):
    if not os.environ.get("PYNN_SPIKE_LOG"):
        return
    from pyNN.recording import Recorder
    get = Recorder.get

    def logged_get(self, variables, *args, **kwargs):
        block = get(self, variables, *args, **kwargs)
        if _current[0] is not None:
            calls = _log.setdefault(_current[0], [])
            calls.append([[[float(t) for t in st.rescale("ms").magnitude] for st in seg.spiketrains]
                          for seg in block.segments])
        return block

    Recorder.get = logged_get
    count = Recorder.count

    def logged_count(self, variable, *args, **kwargs):
        counts = count(self, variable, *args, **kwargs)
        if _current[0] is not None:       # a call with one segment of one-number "trains"
            calls = _log.setdefault(_current[0] + " (spike counts)", [])
            calls.append([[[float(counts[k])] for k in sorted(counts)]])
        return counts

    Recorder.count = logged_count


def pytest_unconfigure(config):
    path = os.environ.get("PYNN_SPIKE_LOG")
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump(_log, f, indent=0)
        os.replace(path + ".tmp", path)

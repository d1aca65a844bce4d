"""The program wrappers: options, progress, results, and olive's errors as exceptions."""

import os

import numpy as np
import pytest

import olive
from olive.commands import options, parse_csv
from olive.programs import parse_progress


def test_option_spelling():
    assert options(record_every=20, record_cells=(0, 100), force=True, quiet=False, seed=None) == \
        ["--record-every", "20", "--record-cells", "0:100", "--force"]
    assert options(conductance=(0.02, 0.06), record=["v", "ge"]) == \
        ["--conductance", "0.02:0.06", "--record", "v", "--record", "ge"]
    assert options(dt=0.1) == ["--dt", "0.1"]


def test_progress_line_parsing():
    p = parse_progress("olive-simulate: simulating  42.5% (3 s, 4 s left, 120.0 ms simulated)\n")
    assert (p.program, p.phase, p.fraction) == ("olive-simulate", "simulating", 0.425)
    assert p.detail.startswith("3 s, 4 s left")
    assert parse_progress("olive-simulate: error: net.h5: cannot open") is None


def test_find_program_honours_olive_bin(programs, monkeypatch, tmp_path):
    assert os.path.basename(programs["simulate"]) == "olive-simulate"
    monkeypatch.setenv("OLIVE_BIN", str(tmp_path))
    with pytest.raises(olive.ProgramNotFound, match="olive-simulate: not found or not executable"):
        olive.find_program("simulate")


def test_find_program_prefers_the_package_bin(monkeypatch, tmp_path):
    """pip's programs (olive/bin/) before PATH's; OLIVE_BIN before both."""
    from olive import programs as prog
    for d in ("pkg", "path", "env"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "olive-simulate").write_text("#!/bin/sh\n")
        (tmp_path / d / "olive-simulate").chmod(0o755)
    monkeypatch.setattr(prog, "_package_bin", lambda: tmp_path / "pkg")
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    monkeypatch.delenv("OLIVE_BIN", raising=False)
    assert olive.find_program("simulate") == str(tmp_path / "pkg" / "olive-simulate")
    monkeypatch.setenv("OLIVE_BIN", str(tmp_path / "env"))
    assert olive.find_program("simulate") == str(tmp_path / "env" / "olive-simulate")
    monkeypatch.delenv("OLIVE_BIN")
    monkeypatch.setattr(prog, "_package_bin", lambda: tmp_path / "none")
    assert olive.find_program("olive-simulate") == str(tmp_path / "path" / "olive-simulate")
    # the console scripts' lookup leaves PATH out (it would find the script itself)
    monkeypatch.setattr(prog, "_checkout_bin", lambda: None)
    with pytest.raises(olive.ProgramNotFound, match="olive-simulate: not found"):
        prog.find_program("simulate", path=False)


def test_progress_callback_sees_the_end(cuba, tmp_path):
    seen = []
    run = olive.simulate(cuba, tmp_path / "out", steps=500, record="none", progress=seen.append)
    assert seen, "no progress line reached the callback"
    assert all(isinstance(p, olive.Progress) and p.program == "olive-simulate" for p in seen)
    assert seen[-1].fraction == 1.0
    assert run.provenance["steps"] == 500 and not run.reports


def test_simulate_error_carries_olive_message(tmp_path):
    with pytest.raises(olive.OliveError) as err:
        olive.simulate(tmp_path / "absent.h5", tmp_path / "out", time=10, progress=False)
    e = err.value
    assert e.program == "olive-simulate" and e.returncode != 0
    assert "absent.h5" in e.message and "olive-simulate: error:" in e.message
    assert "absent.h5" in str(e)
    assert not (tmp_path / "out").exists()


def test_simulate_bad_variable(cuba, tmp_path):
    with pytest.raises(olive.OliveError, match="v_bogus") as err:
        olive.simulate(cuba, tmp_path / "out", time=10, record=["v", "v_bogus"], progress=False)
    assert err.value.returncode != 0


def test_simulate_refuses_existing_output_unless_forced(cuba, tmp_path):
    out = tmp_path / "out"
    olive.simulate(cuba, out, steps=20, progress=False)
    with pytest.raises(olive.OliveError, match="out"):
        olive.simulate(cuba, out, steps=20, progress=False)
    assert olive.simulate(cuba, out, steps=30, force=True, progress=False).provenance["steps"] == 30


def test_genconn_error_carries_olive_message(tmp_path):
    with pytest.raises(olive.OliveError) as err:
        olive.genconn(tmp_path / "n.h5", model="lif_cuba", cells=10, params={"tau_q": 3.0}, progress=False)
    assert err.value.program == "olive-genconn" and "tau_q" in err.value.message
    assert not (tmp_path / "n.h5").exists()


def test_simulate_two_ranks_same_spikes(cuba, cuba_run, tmp_path):
    two = olive.simulate(cuba, tmp_path / "two", time=200, record=["v", "ge"], record_every=10,
                         record_cells=(0, 50), ranks=2, progress=False)
    assert two.provenance["world_size"] == 2
    assert np.array_equal(two.spikes.times, cuba_run.spikes.times)
    assert np.array_equal(two.spikes.node_ids, cuba_run.spikes.node_ids)
    assert olive.analyze("compare", cuba_run.path, two.path) is True


def test_analyze_summary_and_rates(cuba_run):
    rows = olive.analyze("summary", cuba_run.path, csv=True)      # two populations: one row each
    assert [(r["population"], int(r["cells"])) for r in rows] == [("exc", 800), ("inh", 200)]
    assert sum(int(r["spikes"]) for r in rows) == len(cuba_run.spikes)
    s = olive.analyze("summary", cuba_run.path, csv=True, population="exc")
    assert isinstance(s, dict)
    assert int(s["spikes"]) == len(cuba_run.spikes(population="exc")) and int(s["cells"]) == 800
    text = olive.analyze("summary", cuba_run.path, population="inh")
    assert str(len(cuba_run.spikes("inh"))) in text
    n = 0
    for pop in ("exc", "inh"):
        rates = olive.analyze("rates", cuba_run.path, bin=50, csv=True, population=pop)
        assert len(rates) == 4
        n += sum(int(r["spikes"]) for r in rates)
    assert n == len(cuba_run.spikes)


def test_analyze_compare_different_and_error(cuba_run, tmp_path, cuba):
    other = olive.simulate(cuba, tmp_path / "other", time=200, record=["v", "ge"], record_every=10,
                           record_cells=(0, 50), pulses=[(50, 60, 5.0)], progress=False)
    assert olive.analyze("compare", cuba_run.path, other.path) is False
    with pytest.raises(olive.OliveError) as err:
        olive.analyze("summary", tmp_path / "nothing-here")
    assert err.value.returncode == 2 and "nothing-here" in err.value.message


def test_amplitudes_with_units_pass_through(tmp_path):
    net = olive.genconn(tmp_path / "n.h5", model="lif_coba", cells=4, seed=1)
    kw = dict(time=20, record=["v"], progress=False)
    a = olive.simulate(net, tmp_path / "a", pulses=[(1, 15, "0.5nA")],
                       poisson=[{"rate": 500, "weight": "0.002uS", "receptor": "ge"}], **kw)
    b = olive.simulate(net, tmp_path / "b", pulses=[(1, 15, 500.0)],
                       poisson=[{"rate": 500, "weight": 2.0, "receptor": "ge"}], **kw)
    assert "1:15:0.5nA" in a.provenance["command"] and "weight=0.002uS" in a.provenance["command"]
    assert olive.analyze("compare", a.path, b.path) is True
    with pytest.raises(olive.OliveError) as err:
        olive.simulate(net, tmp_path / "c", pulses=[(1, 15, "6uA/cm2")], **kw)
    assert "6uA/cm2" in err.value.message and "lif_coba" in err.value.message and "pA" in err.value.message


def test_parse_csv():
    assert parse_csv("cells,1000\nspikes,42\n") == {"cells": "1000", "spikes": "42"}
    assert parse_csv("a,b,c\n1,2,3\n4,5,6\n") == [{"a": "1", "b": "2", "c": "3"}, {"a": "4", "b": "5", "c": "6"}]


def test_progress_true_prints_progress_and_summary(tmp_path, capfd):
    olive.genconn(tmp_path / "n.h5", model="lif_coba", cells=100, seed=2,
                  projections=[{"from": "all", "to": "all", "indegree": 10, "weight": 0.5, "delay": 0.3,
                                "receptor": "ge"}])
    run = olive.simulate(tmp_path / "n.h5", tmp_path / "out", time=20)
    out, err = capfd.readouterr()
    assert "100 lif_coba cells" in out and "1000 synapses" in out          # genconn's summary line
    assert "olive-simulate: simulating 100.0%" in err                      # simulate's last progress line
    assert "100 cells x 200 steps" in out                                  # and its summary
    net = olive.read_network(tmp_path / "n.h5")
    p = net.projections["all_to_all"]
    assert p.nnz == 1000 and np.all(np.diff(p.row_ptr) == 10) and np.all(p.delay_steps == 3)
    assert run.provenance["steps"] == 200


def test_error_message_of_a_failure_olive_did_not_word():
    mpi = ("-----\nmpirun has detected an attempt to run as root.\n\nRunning as root is discouraged\n-----\n")
    assert olive.OliveError("olive-simulate", 1, mpi, ["mpirun"]).message == \
        "mpirun has detected an attempt to run as root."
    assert olive.OliveError("olive-simulate", 139, "a\nSegmentation fault\n", ["x"]).message == "Segmentation fault"
    assert "printed nothing" in olive.OliveError("olive-simulate", 3, "", ["x"]).message


# A terminal's Ctrl-C: SIGINT to the foreground process group. Here a child Python in a session of
# its own sends it to its group (never to pytest's, which holds the whole test run) on the first
# progress line, i.e. in olive-simulate's step loop.
_CTRL_C = """
import json, os, signal, sys
import olive
fired = []
def ctrl_c(progress):
    if not fired:
        fired.append(1)
        os.killpg(0, signal.SIGINT)
try:
    olive.simulate(sys.argv[1], sys.argv[2], steps=10**8, record="none", progress=ctrl_c)
except olive.OliveInterrupted as e:
    print(json.dumps({"rc": e.returncode, "state": e.state, "message": e.message}))
"""


def test_ctrl_c_stops_olive_once_and_leaves_a_state_to_resume(tmp_path):
    import json
    import subprocess
    import sys
    # 256 steps of 16000 cells take longer than Python takes to act on Ctrl-C: a second signal
    # from Python (the SIGTERM it sent before) would reach olive before it stopped
    net = olive.genconn(tmp_path / "net.h5", model="lif_cuba", populations=[("exc", 16000)], v0=(-60, -50),
                        projections=[{"from": "exc", "to": "all", "indegree": 5, "weight": 1.62, "delay": 1.0,
                                      "receptor": "ge"}], seed=3, progress=False)
    out = tmp_path / "out"
    child = subprocess.run([sys.executable, "-c", _CTRL_C, str(net), str(out)], capture_output=True, text=True,
                           start_new_session=True, timeout=120)
    assert child.returncode == 0 and child.stdout, child.stderr    # OliveInterrupted was raised and caught
    e = json.loads(child.stdout)
    # one signal reached olive (a second one would have stopped it at once, with no state)
    assert e["rc"] == 130 and "stopped by SIGINT after step" in e["message"], e
    assert e["state"] == str(out / "state.h5") and os.path.isfile(e["state"])
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]
    stopped = olive.read_run(out)
    k = stopped.state.step
    assert k % 256 == 0 and 0 < k < 10**8 and stopped.state.kind == "interrupted"
    # continued from the state, it is the unbroken run, bit for bit
    resumed = olive.simulate(net, tmp_path / "resumed", steps=k + 128, record="none", restart=e["state"],
                             progress=False)
    whole = olive.simulate(net, tmp_path / "whole", steps=k + 128, record="none", progress=False)
    assert len(whole.spikes.times[whole.spikes.times > k * whole.dt]) > 0
    assert np.array_equal(np.concatenate([stopped.spikes.times, resumed.spikes.times]), whole.spikes.times)
    assert np.array_equal(np.concatenate([stopped.spikes.node_ids, resumed.spikes.node_ids]), whole.spikes.node_ids)
    for var, values in whole.state.values.items():
        assert np.array_equal(resumed.state.values[var], values), var


def test_interrupted_carries_what_olive_said():
    said = "olive-simulate: stopped by SIGINT after step 64 of 100 (t = 6.4 ms); out holds ...\n"
    e = olive.OliveInterrupted("olive-simulate", 130, "warning\n" + said, ["x"])
    assert isinstance(e, KeyboardInterrupt) and not isinstance(e, Exception)
    assert e.message == said.strip() and "exit status 130" in str(e) and e.state is None

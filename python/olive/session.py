"""olive.Simulation: a simulation held in this process, run in pieces.

    sim = olive.Simulation("net.h5", poisson=[{"rate": 8, "weight": "0.5nS", "receptor": "ge"}])
    sim.run(100)                      # ms
    t, ids = sim.spikes()             # the spikes since the last call
    v = sim.get("V_m")                # every (own) cell's variable now
    sim.set_poisson_rate(0, 12.0)     # from now on
    sim.run(100)
    run = sim.close()                 # the output directory, as olive.simulate's (olive.Run)

It is olive-simulate's run kept alive in libolive (tools/simulate/session/
olive_session.h): the same options (olive.simulate's keywords), the same
engines (CPU threads, CUDA, MPI ranks: under mpirun one Simulation per
rank, each reading its own cells), and the same bits as olive-simulate
given those options and the changes as a stimulus file
(write_rate_changes). Ctrl-C during run() stops it at the next step
boundary (every 256 steps at most) and raises olive.OliveInterrupted (a
KeyboardInterrupt); the simulation stays usable (sim.t says where it
stopped). SIGTERM likewise, then SystemExit(143), as olive.simulate.
"""

import ctypes
import os
import shutil
import signal
import tempfile
from pathlib import Path

import numpy as np

from . import runtime
from .commands import simulate_argv
from .errors import OliveError, OliveInterrupted, ProgramNotFound
from .programs import _Terminated, _checkout_bin, _package_bin
from .run import read_run
from .writer import ms_to_steps

_API = 2
_lib = None


def _library_path():
    """libolive.so: beside $OLIVE_BIN (its ../lib), the package's lib/, the checkout's build/lib."""
    env = os.environ.get("OLIVE_LIB")
    places = [Path(env)] if env else []
    if not env and os.environ.get("OLIVE_BIN"):
        places.append(Path(os.environ["OLIVE_BIN"]).parent / "lib" / "libolive.so")
    if not env:
        places.append(_package_bin().parent / "lib" / "libolive.so")
        if _checkout_bin():
            places.append(_checkout_bin().parent / "lib" / "libolive.so")
    for p in places:
        if p.is_file():
            return str(p)
    raise ProgramNotFound("libolive.so: not found (looked at " + ", ".join(map(str, places)) +
                          "): build it (make), or set OLIVE_LIB to its path")


def library():
    """libolive, loaded once (OpenMP's idle threads spin briefly, then sleep, as in olive's programs)."""
    global _lib
    if _lib is not None:
        return _lib
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", "10000")
    path = _library_path()
    runtime.prepare_process(path)
    lib = ctypes.CDLL(path)
    i64, p64, pd = ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)
    sig = {
        "olive_session_api": (ctypes.c_int, []),
        "olive_session_open": (ctypes.c_void_p, [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]),
        "olive_session_run": (ctypes.c_int, [ctypes.c_void_p, i64]),
        "olive_session_step": (i64, [ctypes.c_void_p]),
        "olive_session_dt": (ctypes.c_double, [ctypes.c_void_p]),
        "olive_session_horizon": (i64, [ctypes.c_void_p]),
        "olive_session_cells": (None, [ctypes.c_void_p, p64, p64]),
        "olive_session_spikes": (i64, [ctypes.c_void_p, p64, p64, i64]),
        "olive_session_get": (i64, [ctypes.c_void_p, ctypes.c_char_p, pd, i64]),
        "olive_session_weights": (i64, [ctypes.c_void_p, ctypes.c_char_p, p64, pd, i64]),
        "olive_session_recorded": (i64, [ctypes.c_void_p, ctypes.c_char_p, p64, i64]),
        "olive_session_frames": (i64, [ctypes.c_void_p, ctypes.c_char_p, pd, i64]),
        "olive_session_set_poisson_rate": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_double]),
        "olive_session_set_param": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        "olive_session_close": (ctypes.c_int, [ctypes.c_void_p]),
        "olive_session_error": (ctypes.c_char_p, []),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    if lib.olive_session_api() != _API:
        raise OliveError("libolive", 1, f"libolive: error: {_library_path()} has interface "
                         f"{lib.olive_session_api()}, this package wants {_API}: rebuild olive", [])
    _lib = lib
    return lib


def _ptr(a, ctype):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


class Simulation:
    """A simulation held in memory (module docstring). network, output and keywords: olive.simulate's;
    time/steps: the horizon (optional: open); output None: a temporary directory removed at close()
    (then close() returns None)."""

    def __init__(self, network, output=None, *, time=None, steps=None, force=False, **kwargs):
        self._lib = library()
        self._tmp = None
        if output is None:
            self._tmp = tempfile.mkdtemp(prefix="olive-sim-")
            output = os.path.join(self._tmp, "run")
        self.output = os.fspath(output)
        self.rate_changes = []        # (input, step, rate_hz) set by set_poisson_rate, in call order
        self._weight_index = {}       # projection -> its synapses' indices (weights())
        argv = ["olive.Simulation"] + simulate_argv(network, self.output, time=time, steps=steps, force=force,
                                                     open_horizon=True, **kwargs)
        self.argv = argv
        c = (ctypes.c_char_p * len(argv))(*[a.encode() for a in argv])
        self._h = self._lib.olive_session_open(len(argv), c)
        if not self._h:
            self._cleanup()
            raise self._error()
        self.dt = self._lib.olive_session_dt(self._h)
        first, count = ctypes.c_int64(), ctypes.c_int64()
        self._lib.olive_session_cells(self._h, ctypes.byref(first), ctypes.byref(count))
        self.first_cell, self.cell_count = first.value, count.value

    def _error(self):
        msg = (self._lib.olive_session_error() or b"").decode(errors="replace")
        return OliveError("olive.Simulation", 1, f"olive.Simulation: error: {msg}", getattr(self, "argv", []))

    def _live(self):
        if not self._h:
            raise OliveError("olive.Simulation", 1, "olive.Simulation: error: the simulation is closed", self.argv)
        return self._h

    @property
    def step(self):
        """Steps run so far (from 0; a restart's state's step included)."""
        return int(self._lib.olive_session_step(self._live()))

    @property
    def t(self):
        """The time reached, ms."""
        return self.step * self.dt

    def run(self, time=None, *, steps=None):
        """Run for time ms (whole steps of dt, nearest) or steps steps."""
        if (time is None) == (steps is None):
            raise ValueError("Simulation.run: give time (ms) or steps")
        n = int(steps) if steps is not None else int(ms_to_steps(time, self.dt, "Simulation.run: time"))
        rc = self._lib.olive_session_run(self._live(), n)
        if rc < 0:
            raise self._error()
        if rc == signal.SIGTERM:      # as olive.simulate: the process exits 143, clean-ups run
            raise _Terminated(rc)
        if rc > 0:
            raise OliveInterrupted("olive.Simulation", 128 + rc,
                                   f"olive.Simulation: stopped by {signal.Signals(rc).name} at t = {self.t:g} ms "
                                   f"(step {self.step}); run() goes on from there", self.argv)

    def spikes(self):
        """(times in ms, cell ids) of this rank's spikes since the last call, in time then cell order."""
        h = self._live()
        n = self._lib.olive_session_spikes(h, None, None, 0)
        steps, cells = np.empty(n, np.int64), np.empty(n, np.int64)
        got = self._lib.olive_session_spikes(h, _ptr(steps, ctypes.c_int64), _ptr(cells, ctypes.c_int64), n)
        if got < 0:
            raise self._error()
        return (steps[:got] + 1) * self.dt, cells[:got]

    def get(self, variable):
        """Variable (the model's name: V_m, v, g_ex, ...) of this rank's cells now (cell first_cell + i at i)."""
        out = np.empty(self.cell_count, np.float64)
        n = self._lib.olive_session_get(self._live(), variable.encode(), _ptr(out, ctypes.c_double), len(out))
        if n < 0:
            raise self._error()
        return out

    def recorded(self, variable):
        """The global ids of this rank's cells whose `variable` is recorded (--record), in column order."""
        h = self._live()
        n = self._lib.olive_session_recorded(h, variable.encode(), None, 0)
        if n < 0:
            raise self._error()
        cells = np.empty(n, np.int64)
        if self._lib.olive_session_recorded(h, variable.encode(), _ptr(cells, ctypes.c_int64), n) < 0:
            raise self._error()
        return cells

    def frames(self, variable):
        """The report frames of a recorded variable since the last call: [frames, recorded(variable)],
        one every record_every steps (the report file's rows)."""
        h = self._live()
        cols = len(self.recorded(variable))
        n = self._lib.olive_session_frames(h, variable.encode(), None, 0)
        if n < 0:
            raise self._error()
        data = np.empty((n, cols), np.float64)
        got = self._lib.olive_session_frames(h, variable.encode(), _ptr(data, ctypes.c_double), n)
        if got < 0:
            raise self._error()
        return data[:got]

    def weights(self, projection):
        """(indices in the projection, weights now) of this rank's synapses of a plastic projection,
        in olive's memory order (the same indices at every call)."""
        h, name = self._live(), projection.encode()
        idx = self._weight_index.get(projection)
        if idx is None:
            n = self._lib.olive_session_weights(h, name, None, None, 0)
            if n < 0:
                raise self._error()
            idx = np.empty(n, np.int64)
            if self._lib.olive_session_weights(h, name, _ptr(idx, ctypes.c_int64), None, n) < 0:
                raise self._error()
            idx.flags.writeable = False
            self._weight_index[projection] = idx
        w = np.empty(len(idx), np.float64)
        if self._lib.olive_session_weights(h, name, None, _ptr(w, ctypes.c_double), len(w)) < 0:
            raise self._error()
        return idx, w

    def set_poisson_rate(self, input, rate_hz):
        """--poisson input `input` (0: the first given) at rate_hz from now on (noted in rate_changes)."""
        if self._lib.olive_session_set_poisson_rate(self._live(), int(input), float(rate_hz)) < 0:
            raise self._error()
        self.rate_changes.append((int(input), self.step, float(rate_hz)))

    def set_param(self, spec, value=None, population=None):
        """A cell parameter from now on: set_param("exc.tau_m=15") (olive-simulate's --param syntax) or
        set_param("tau_m", 15, population="exc") (population None: every population that has it).
        Spiking point-model populations whose parameters are one value for the population; where the
        run cannot take it in memory (per-cell values, a spike source, InfOli, cable cells) OliveError
        says why and the simulation goes on unchanged (pyNN.olive then continues a new run from this
        one's state)."""
        if value is not None:
            spec = f"{spec}={float(value)!r}" + (f"@{population}" if population is not None else "")
        if self._lib.olive_session_set_param(self._live(), str(spec).encode()) < 0:
            raise self._error()

    def write_rate_changes(self, path, pulses=()):
        """The rate changes made so far as an olive-simulate stimulus file (/poisson_rates,
        docs/FORMAT.md): olive-simulate --stimulus path gives this simulation's run."""
        import h5py
        rows = self.rate_changes
        with h5py.File(path, "w") as f:
            f.attrs["format"] = "olive-stimulus"
            f.attrs["format_version"] = np.int64(1)
            g = f.create_group("poisson_rates")
            g["input"] = np.array([r[0] for r in rows], dtype=np.int64)
            g["start_ms"] = np.array([r[1] * self.dt for r in rows], dtype=np.float64)
            g["rate_hz"] = np.array([r[2] for r in rows], dtype=np.float64)

    def close(self):
        """Write the output directory (as olive-simulate would for the steps run) and free the
        simulation; the olive.Run of it (None for a temporary output, which is removed)."""
        if not self._h:
            return None
        h, self._h = self._h, None
        if self._lib.olive_session_close(h) < 0:
            self._cleanup()
            raise self._error()
        if self._tmp:
            self._cleanup()
            return None
        return read_run(self.output)

    def _cleanup(self):
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._h:
            if exc[0] is None:
                self.close()
            else:      # an error: the session's memory goes with the process; its outputs are not written
                self._h = None
                self._cleanup()
        return False

    def __del__(self):
        try:
            if self._h:
                self.close()
        except Exception:
            pass

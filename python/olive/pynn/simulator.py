"""Simulator state of pyNN.olive: the network PyNN builds, and its runs.

run() does not start olive-simulate at once: it notes the time to reach
and the network as it is (NetworkSpec), and olive runs when something needs
its results (get_data, spike counts, end(), reset()) or when the network
changes in a way that one olive run cannot hold from then on (parameters,
connections, recorded variables). New spike times of a SpikeSourceArray and
changed current sources need no olive run of their own: the times and
currents up to now are kept (history, pulse_history) and the new ones act
from now on, so one run holds them all. PyNN's callbacks that only look or
change such inputs thus cost one olive run, not one a callback interval.

olive runs inside this process (olive.Simulation, setup(in_process=False):
an olive-simulate process a run): a run whose network, recorded variables
and inputs are those of the simulation still held goes on in it, with no
restart (PyNN's callbacks that read weights every millisecond cost a
millisecond's steps each). Otherwise the held simulation writes its state
and a new one continues from there.

An olive run after the first of a segment continues the previous one from
its state (olive-simulate --restart: the cells' variables and the spikes
still in flight, bit-identical to an unbroken run; on the GPU too). Where olive
cannot continue (the connections or the recorded variables changed, cable
cells, or plastic synapses on backend="cuda"), it simulates the whole segment again from 0,
which needs the network unchanged (else NotImplementedError; reset()
starts over).
"""

import os
import re
import shutil
import tempfile
import weakref

import numpy as np

from pyNN import common

import olive
from olive.writer import ms_to_steps

from .build import build_network

name = "olive"


# Below this many cell-steps the CPU finishes first even where a GPU is there:
# whole olive-simulate processes on one H100 host (docs/BENCHMARKS.md,
# scripts/bench_backend_choice.sh): 4000 LIF cells x 1 s (4e7 cell-steps)
# took 0.66 s on 2 CPU threads and 0.72 s on the GPU (CUDA's start-up),
# 16000 cells (1.6e8) 1.75 s and 0.98 s.
AUTO_GPU_MIN_CELL_STEPS = 1e8


MAX_PULSE_ARGS = 200

# olive-simulate cannot continue these from a state yet (their compartments'
# gates are not in state.h5): run() simulates them again from 0
CABLE_MODELS = {"hh_traub", "hh_cable", "hh_swc"}


def write_stimulus(path, pulses, cells):
    """olive-simulate's stimulus file (docs/FORMAT.md) of (start, stop, amp, first, last) pulses."""
    import h5py
    a = np.array([(p[0], p[1], p[2]) for p in pulses], dtype=float).reshape(-1, 3)
    cell = np.array([(p[3], p[4]) for p in pulses], dtype=np.int64).reshape(-1, 2)
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "olive-stimulus"
        f.attrs["format_version"] = np.int64(1)
        g = f.create_group("pulses")
        g["start_ms"], g["stop_ms"], g["amplitude"] = a[:, 0], a[:, 1], a[:, 2]
        g["first_cell"], g["last_cell"] = cell[:, 0], cell[:, 1]


def choose_backend(backend, cells, steps):
    """backend="auto": the CPU for small runs, else olive-simulate's auto (CUDA when there is a GPU)."""
    if backend == "auto" and cells * steps < AUTO_GPU_MIN_CELL_STEPS:
        return "cpu"
    return backend


def _open_ended(spec):
    """Whether a current of spec has no end (its description grows with each run(): cut at tstop)."""
    return any(p[1] is None for p in spec.pulses)


def _same(x, y):
    """Equal values of a population's description (numbers, arrays, lists of arrays, strings)."""
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.array_equal(np.asarray(x), np.asarray(y))
    return type(x) is type(y) and x == y


def _param_changes(before, now, initial):
    """The olive_session_set_param specs ("POP.NAME=VALUE") that turn the network before into now where
    they differ in parameters that are one value for a population only (not an initial value, named in
    initial); None where anything else differs."""
    if (before.infoli is not None or now.infoli is not None
            or before.structure_fingerprint() != now.structure_fingerprint()
            or list(before.record) != list(now.record) or repr(before.pulses) != repr(now.pulses)
            or len(before.populations) != len(now.populations)):
        return None
    specs = []
    for a, b in zip(before.populations, now.populations):
        if set(a) != set(b) or set(a["params"]) != set(b["params"]):
            return None
        if not all(_same(a[k], b[k]) for k in a if k != "params"):
            return None
        for k in sorted(a["params"]):
            x, y = a["params"][k], b["params"][k]
            if isinstance(x, float) and isinstance(y, float):
                if x != y:
                    if k in initial:
                        return None
                    specs.append(f"{b['name']}.{k}={y!r}")
            elif not _same(x, y):
                return None
    return specs or None


def _one_run_holds(before, now):
    """Whether one olive run can hold the network as it was (before) and as it is (now): the
    same cells, parameters, connections and recorded variables (spike times and currents may
    differ: what acted before is kept in the new NetworkSpec)."""
    return before.fingerprint() == now.fingerprint() and list(before.record) == list(now.record)


class ID(int, common.IDMixin):
    """A cell: its value is its olive cell id (cells are numbered from 0 in creation order)."""

    def __init__(self, n):
        int.__init__(n)
        common.IDMixin.__init__(self)


class State(common.control.BaseState):

    def __init__(self):
        common.control.BaseState.__init__(self)
        self.mpi_rank = 0
        self.num_processes = 1
        self.dt = 0.1
        self.min_delay = 0.1
        self.max_delay = 10.0
        self.seed = 1
        self.min_delay_auto = False
        self.backend = "auto"
        self.order_free_sums = False   # setup(order_free_sums=True): olive-simulate --order-free-sums
        self.in_process = True         # setup(in_process=False): olive-simulate processes
        self.sim = None                # the olive.Simulation held (in_process), or None
        self.version = 0               # PyNN's objects changed (touch()) this many times
        self.sim_version = None        # ... when the held simulation's network was built
        self.session_runs = 0          # run pieces it went on with, in memory
        self.workdir = None
        self.keep_files = False
        self._remove_workdir = None   # weakref.finalize of a temporary workdir (None: none, or kept)
        self.clear()

    # -- bookkeeping ---------------------------------------------------------

    def clear(self):
        self.pending = None           # a new simulation: what the last one left unrun is dropped
        self.recorders = set()
        self.populations = []
        self.projections = []
        self.current_sources = []
        self.id_counter = 0
        self.segment_counter = -1
        self.noise_sources = 0        # NoisyCurrentSources made: each its own seeded stream
        self.write_on_end = []
        self.reset()

    def reset(self):
        self.flush()                  # the segment's results exist before a new segment starts
        self._drop_sim()
        self.running = False
        self.t = 0.0
        self.t_next = 0.0
        self.t_start = 0.0
        self.segment_counter += 1
        self.result = None            # the olive.Run of the last olive run (0..t, or its continuation)
        self.structure = None         # NetworkSpec.structure_fingerprint() of that run
        self.recorded = None          # the olive variables it recorded
        self.pieces = 0               # olive runs in this segment (run0, run1, ...)
        self.session_runs = 0         # pieces the held simulation went on with, in memory
        self.params_set_in_memory = 0  # parameters set() between runs into the held simulation
        self.run_starts = []          # where each of them started (ms): 0, or the time it continued from
        self.pending = None           # (NetworkSpec, tstop) of run() calls olive has not run yet
        self._written = None          # the NetworkSpec in workdir/net.h5
        self.result_index = {}        # olive id -> spike times (ms)
        self.fingerprint = None       # of the network the runs of this segment simulated
        self.history = {}             # spike_source_array cell -> its times up to t (already simulated)
        self.pulse_history = []       # the --pulse arguments up to t (already simulated)
        self.traces = {}              # olive variable -> ({cell: column}, data[frame, column])
        for prj in getattr(self, "projections", []):
            prj.plastic_weights = None    # a new segment starts from the network's weights

    def touch(self):
        """A PyNN object changed (parameters, cells, connections, recording, currents): the next
        run() builds the network again."""
        self.version += 1

    # -- running -------------------------------------------------------------

    def run(self, simtime):
        self.run_until(self.t + simtime)

    def run_until(self, tstop):
        """Note the network up to tstop; olive runs it when its results are needed (flush())."""
        self.t_next = tstop           # the current sources' step lists reach this far
        if tstop - self.t > self.dt / 2:
            self._guarded(self._note, tstop)
        self.t = tstop
        self.running = True

    def _unchanged_since_sim(self):
        """Whether the held simulation's network is the network now, without building it: nothing
        touched since, and no input whose description grows with the time run (current sources,
        spike trains drawn here)."""
        return (self.sim is not None and self.version == self.sim_version and not self.current_sources
                and not any(hasattr(p.celltype, "draw") for p in self.populations)
                and (self.pending is None or self.pending[0] is self.sim_spec))

    def _note(self, tstop):
        if self._unchanged_since_sim():
            spec = self.sim_spec
            if os.environ.get("OLIVE_PYNN_CHECK_UNCHANGED") == "1":   # (tests: the counter misses nothing)
                built = build_network(self, tstop)
                if self._sim_key(built) != self._sim_key(spec):
                    raise RuntimeError("pyNN.olive (internal): the network changed but no change was noted")
            self.pending = (spec, tstop)
            self._inputs_until(spec, tstop)
            return
        spec = build_network(self, tstop)
        if self.pending is not None and not _one_run_holds(self.pending[0], spec):
            self.flush()              # the network changed: what came before runs as it was
        if self.pending is None and not (self.sim is not None and self._sim_key(spec) == self.sim_key) \
                and not self._set_in_memory(spec):
            # a new olive run (not the held simulation going on): refused now, not at the
            # get_data() that runs it; the held one writes its state for it to continue from
            if self.sim is not None:
                self._drop_sim(keep_state=True)
            self._plan(spec, tstop)
            self._write_network(spec)
        self.pending = (spec, tstop)
        self._inputs_until(spec, tstop)
        if self.min_delay_auto and spec.min_delay is not None:
            self.min_delay = spec.min_delay

    def flush(self):
        """Run olive up to the last run()'s end, if it has not run yet."""
        if self.pending is not None:
            spec, tstop = self.pending
            self.pending = None
            self._guarded(self._simulate, spec, tstop)

    def _guarded(self, work, *args):
        try:
            work(*args)
        except BaseException as e:
            if self.sim is not None:   # (its files go with the workdir below: never closed into it)
                self.sim, self.sim_key = None, None
            # an error or Ctrl-C: the run files go now unless kept (the next olive run
            # simulates the segment again from 0), not at end(), which may never come
            if self._discard_workdir() and isinstance(e, olive.OliveInterrupted):
                # (olive-simulate's "continue with --restart .../state.h5" names a removed file)
                e.state = None
                e.message = re.split(r";\s+\S+ holds the run so far", e.message)[0] + \
                    " (pyNN.olive removed its temporary run files; setup(workdir=DIR) keeps them)"
                e.args = (f"{e.program} interrupted (exit status {e.returncode}): {e.message}",)
            raise

    def _inputs_until(self, spec, tstop):
        """Keep the spike-source times and the currents up to tstop: a change after this
        run() acts from tstop on, whether or not olive has run up to tstop yet."""
        self.pulse_history = [(a, tstop if b is None else min(b, tstop), amp, f, l)
                              for a, b, amp, f, l in spec.pulses if a < tstop]
        first = 0
        for p in spec.populations:
            if p["model"] == "spike_source_array":
                for c, t in enumerate(p["spike_times"]):
                    self.history[first + c] = np.asarray(t)[np.asarray(t) <= tstop + self.dt / 2]
            first += p["count"]

    def _directory(self):
        if self.workdir is None:
            self.workdir = tempfile.mkdtemp(prefix="pynn-olive-")
            if not self.keep_files:   # removed at interpreter exit too (an exception, Ctrl-C, no end())
                self._remove_workdir = weakref.finalize(self, shutil.rmtree, self.workdir, ignore_errors=True)
        return self.workdir

    def _discard_workdir(self):
        """Remove the temporary workdir now (not one the user keeps); whether one was removed."""
        if self._remove_workdir is None or not self._remove_workdir.alive:
            return False
        self._remove_workdir()
        self._remove_workdir = None
        self.workdir = None
        return True

    def _plan(self, spec, tstop):
        """(steps, backend, the state to continue from or None) of an olive run of spec to tstop;
        NotImplementedError where it can neither continue nor simulate the segment again from 0."""
        steps = int(ms_to_steps(tstop, self.dt, "run(): the time to simulate to", rounding="even"))
        backend = choose_backend(self.backend, spec.count, steps)
        prev = os.path.join(self.workdir or "", f"run{self.pieces - 1}", "state.h5")
        cable = any(p["model"] in CABLE_MODELS for p in spec.populations)
        # (the CUDA engine continues a spiking network from its state, but not plastic synapses: their
        # queued events stay on the device; olive-simulate refuses that with --backend cuda)
        plastic = any(q.get("plasticity") for q in spec.projections)
        go_on = (self.result is not None and self.workdir is not None and os.path.exists(prev)
                 and spec.structure_fingerprint() == self.structure
                 and list(spec.record) == self.recorded and not cable
                 and (spec.infoli is not None or backend != "cuda" or not plastic))
        if not go_on and self.fingerprint is not None and spec.fingerprint() != self.fingerprint:
            raise NotImplementedError(
                "pyNN.olive: the connections or the recorded variables changed after run() in this segment "
                "(or its plastic synapses run on backend='cuda'), so olive cannot continue the run from its state, "
                "and simulating the segment again from t = 0 would not be the run so far: reset() first")
        return steps, backend, prev if go_on else None

    def _write_network(self, spec):
        """net.h5 of spec (olive.write_network checks it: a fault is raised here)."""
        net = os.path.join(self._directory(), "net.h5")
        if spec.infoli is not None:
            n = spec.infoli["cells"]
            olive.write_network(net, cells=n, dims=[n, 1, 1], gap_junctions=spec.infoli["gap_junctions"],
                                g_cal=spec.infoli["g_cal"], force=True)
        else:
            olive.write_network(net, populations=spec.populations, projections=spec.projections,
                                dt=self.dt, force=True)
        self._written = spec
        return net

    # -- olive in this process (olive.Simulation) ----------------------------

    @staticmethod
    def _sim_key(spec):
        """What a held simulation needs unchanged to go on: the network (fingerprint), the recorded
        variables and the inputs (spike-source times, currents); None where a current has no end (it
        is cut at tstop: a later run() extends it)."""
        from .digest import digest
        if _open_ended(spec):
            return None
        parts = [spec.fingerprint(), tuple(spec.record), repr(spec.pulses)]
        for p in spec.populations:
            for t in p.get("spike_times") or []:
                parts.append(np.asarray(t, dtype=float))
        return digest(*parts)

    def _set_in_memory(self, spec):
        """Where spec differs from the held simulation's network in population-wide parameters only
        (PyNN's set() between runs), set them in it (olive.Simulation.set_param: from now on) and let
        it go on; whether it did. A value the simulation cannot take in memory: False (it then writes
        its state and a new olive run continues from it, as for any other change)."""
        if self.sim is None or self.sim_spec is None or self.sim_key is None:
            return False          # (None: the held simulation's currents were cut where it began)
        initial = {param for p in self.populations for param, _ in p.celltype.initial_parameters.values()}
        changes = _param_changes(self.sim_spec, spec, initial)
        key = self._sim_key(spec)
        if not changes or key is None:
            return False
        try:
            for c in changes:
                self.sim.set_param(c)
        except olive.OliveError:
            return False          # (what was set acts on nothing: the next run starts from the state)
        self.params_set_in_memory += len(changes)
        self.sim_key, self.sim_spec, self.sim_version = key, spec, self.version
        return True

    def _drop_sim(self, keep_state=False):
        """Close the held simulation: its outputs stay with keep_state (the next olive run continues
        from its state.h5) or setup(keep_files=True, workdir=...), else they go with it."""
        if self.sim is None:
            return
        sim, self.sim, self.sim_key, self.sim_spec = self.sim, None, None, None
        sim.close()
        if not keep_state and not self.keep_files:
            shutil.rmtree(sim.output, ignore_errors=True)

    def _go_on_in_memory(self, spec, tstop):
        """Run the held simulation on to tstop where it holds spec; whether it did."""
        if self.sim is None:
            return False
        key = self._sim_key(spec)
        if key is None or key != self.sim_key:
            self._drop_sim(keep_state=True)     # run{pieces-1}/state.h5: the next run continues from it
            return False
        steps = int(ms_to_steps(tstop, self.dt, "run(): the time to simulate to", rounding="even"))
        self.sim.run(steps=steps - self.sim.step)
        self.session_runs += 1
        self._collect(spec, go_on=True)
        return True

    def _open_sim(self, spec, tstop, steps, backend, prev, pulses, extra):
        d = self._directory()
        net = os.path.join(d, "net.h5") if self._written is spec else self._write_network(spec)
        out = os.path.join(d, f"run{self.pieces}")
        kwargs = dict(record=spec.record or "none", pulses=pulses, **extra, seed=self.seed, backend=backend,
                      force=True, order_free_sums=self.order_free_sums)
        if prev is not None:
            kwargs["restart"] = prev
        if spec.record:
            kwargs["record_precision"] = "double"
        sim = olive.Simulation(net, out, **kwargs)
        self.sim, self.sim_key = sim, self._sim_key(spec)
        self.sim_spec, self.sim_version = spec, self.version
        self.run_starts.append(sim.t)
        sim.run(steps=steps - sim.step)

    def _collect(self, spec, go_on):
        """The held simulation's spikes, frames and plastic weights since the last look."""
        sim = self.sim
        times, ids = sim.spikes()
        if go_on:
            ids, times = np.concatenate([self._seg_ids, ids]), np.concatenate([self._seg_times, times])
        self._seg_ids, self._seg_times = ids, times
        self._index_spikes(ids, times)
        traces = self.traces if go_on else {}
        for var in spec.record:
            # the pieces' frames kept as a list, joined once when read (trace()): joining at every
            # piece would copy the whole trace a millisecond
            if var not in traces:
                traces[var] = ({int(c): j for j, c in enumerate(sim.recorded(var))}, [])
            elif not isinstance(traces[var][1], list):
                traces[var] = (traces[var][0], [traces[var][1]])
            traces[var][1].append(sim.frames(var))
        self.traces = traces
        self.spec = spec
        for name, k, order, factor in spec.plastic_maps:
            prj = self.projections[k]
            if prj.plastic_weights is None:
                prj.plastic_weights = np.array(prj._data()["weight"], dtype=float)
            idx, w = sim.weights(name)
            prj.plastic_weights[np.asarray(order)[idx]] = w / factor

    def _simulate(self, spec, tstop):
        if self.in_process and self._go_on_in_memory(spec, tstop):
            return
        steps, backend, prev = self._plan(spec, tstop)
        go_on = prev is not None
        self.fingerprint = spec.fingerprint()
        d = self._directory()
        # written at run(); again where later run()s added spike times to it
        net = os.path.join(d, "net.h5") if self._written is spec else self._write_network(spec)
        out = os.path.join(d, f"run{self.pieces}")
        # a simulation held in this process gets the currents as far as they are known (it may go on
        # past tstop); one that is open-ended (no stop) is cut at tstop, and that simulation is not held
        pulses = spec.pulses if self.in_process and not _open_ended(spec) else spec.pulses_until(tstop)
        if len(pulses) > MAX_PULSE_ARGS:      # an ACSource is a pulse a step: a stimulus file, not argv
            stim = os.path.join(d, "stimulus.h5")
            write_stimulus(stim, pulses, spec.count)
            pulses, extra = [], {"stimulus": stim}
        else:
            extra = {}
        if self.in_process:
            self._open_sim(spec, tstop, steps, backend, prev, pulses, extra)
            self.result = olive.Run.__new__(olive.Run)    # (looked at for "has olive run")
            self.pieces += 1
            if go_on:
                shutil.rmtree(os.path.dirname(prev), ignore_errors=True)
            self.fingerprint = spec.fingerprint()
            self.structure = spec.structure_fingerprint()
            self.recorded = list(spec.record)
            self._collect(spec, go_on)
            return
        kwargs = dict(steps=steps, record=spec.record or "none", pulses=pulses, **extra,
                      seed=self.seed, backend=backend, force=True, progress=False,
                      order_free_sums=self.order_free_sums)
        if go_on:
            kwargs["restart"] = prev
        if spec.record:
            kwargs["record_precision"] = "double"
        result = olive.simulate(net, out, **kwargs)
        if go_on:       # the earlier pieces' spikes and traces, then this one's
            old_ids, old_times = self._seg_ids, self._seg_times
            old_traces = self.traces
        self.result = result
        self._read_plastic_weights(spec, out)
        self.pieces += 1
        self.run_starts.append(float(result.t_start))
        if go_on:
            shutil.rmtree(os.path.dirname(prev), ignore_errors=True)
        self.structure = spec.structure_fingerprint()
        self.recorded = list(spec.record)
        self.spec = spec
        self.traces = {}
        for var, rep in self.result.reports.items():     # read now: end() removes the files
            col, data = {int(c): j for j, c in enumerate(rep.node_ids)}, np.asarray(rep.data, dtype=float)
            if go_on:
                if old_traces[var][0] != col:
                    raise RuntimeError(f"pyNN.olive: the {var} report's cells changed between runs (internal)")
                before = old_traces[var][1]
                data = np.concatenate(([*before] if isinstance(before, list) else [before]) + [data])
            self.traces[var] = (col, data)
        ids, times = np.asarray(result.spikes.node_ids), np.asarray(result.spikes.times, dtype=float)
        if go_on:
            ids, times = np.concatenate([old_ids, ids]), np.concatenate([old_times, times])
        self._seg_ids, self._seg_times = ids, times      # in time order, across the pieces
        self._index_spikes(ids, times)

    def _read_plastic_weights(self, spec, out):
        """The weights the run left in its plastic projections (state.h5 /state/plastic), in PyNN's units."""
        if not spec.plastic_maps:
            return
        import h5py
        with h5py.File(os.path.join(out, "state.h5"), "r") as f:
            for name, k, order, factor in spec.plastic_maps:
                prj = self.projections[k]
                if prj.plastic_weights is None:
                    prj.plastic_weights = np.array(prj._data()["weight"], dtype=float)
                prj.plastic_weights[order] = f[f"state/plastic/{name}/weight"][:] / factor

    def _index_spikes(self, ids, times):
        order = np.argsort(ids, kind="stable")
        ids, times = ids[order], times[order]
        self._spike_ids, self._spike_times = ids, times
        cells, starts = np.unique(ids, return_index=True)
        ends = np.append(starts[1:], len(ids))
        self.result_index = {int(c): times[a:b] for c, a, b in zip(cells, starts, ends)}

    def spike_arrays(self):
        """(ids, times) of every spike of the last run, by cell then time."""
        return self._spike_ids, self._spike_times

    def spikes_of(self, cell):
        return self.result_index.get(int(cell), np.zeros(0))

    def trace(self, variable, cells):
        """[samples, cells] of an olive report at 0, dt, ..., t (the first row: the initial value)."""
        col, data = self.traces[variable]
        if isinstance(data, list):     # (pieces of a held simulation: joined once)
            data = np.concatenate(data) if data else np.zeros((0, len(col)))
            self.traces[variable] = (col, data)
        out = np.empty((data.shape[0] + 1, len(cells)))
        for k, c in enumerate(cells):
            out[1:, k] = data[:, col[int(c)]]
            out[0, k] = self.spec.initial[variable][int(c)]
        return out

    def finish(self):
        self.pending = None
        self._drop_sim()
        self._discard_workdir()
        self.workdir = None


state = State()

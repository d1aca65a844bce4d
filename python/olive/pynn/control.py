"""setup(), end(), run(), reset() and the state queries of pyNN.olive."""

import os
import warnings

from pyNN import common
from pyNN.common.control import DEFAULT_MAX_DELAY, DEFAULT_TIMESTEP, DEFAULT_MIN_DELAY
from pyNN.recording import get_io

from . import simulator

BACKENDS = ("auto", "cpu", "cuda")


def setup(timestep=DEFAULT_TIMESTEP, min_delay=DEFAULT_MIN_DELAY, **extra_params):
    """Start a new simulation.

    Besides PyNN's arguments: backend='auto'|'cpu'|'cuda' (olive-simulate
    --backend; auto, the default or $OLIVE_PYNN_BACKEND: the CPU for runs
    below 1e8 cell-steps, where it finishes first, else the GPU when olive
    was built with CUDA and one is there), rng_seed (olive-simulate --seed: the Poisson sources; default 1),
    workdir (where the network and run files go; default a temporary
    directory, removed by end()), keep_files=True keeps them,
    order_free_sums=True (olive-simulate --order-free-sums: every weight
    rounded to a multiple of 2^-F so that no sum depends on its order, and
    the GPU adds events as they come; docs/MODELS.md), in_process=True
    (the default: olive runs inside this process, olive.Simulation, and a
    run() whose results are read goes on from where the last one stopped
    without a restart; False: each olive run is an olive-simulate process,
    continued from its state file).
    """
    max_delay = extra_params.get("max_delay", DEFAULT_MAX_DELAY)
    backend = extra_params.pop("backend", os.environ.get("OLIVE_PYNN_BACKEND", "auto"))
    if backend not in BACKENDS:
        raise ValueError(f"pyNN.olive: backend {backend!r} (one of {', '.join(BACKENDS)})")
    seed = extra_params.pop("rng_seed", None)
    workdir = extra_params.pop("workdir", None)
    keep = extra_params.pop("keep_files", False)
    order_free = bool(extra_params.pop("order_free_sums", False))
    in_process = bool(extra_params.pop("in_process", os.environ.get("OLIVE_PYNN_IN_PROCESS", "1") != "0"))
    if extra_params.pop("spike_precision", "on_grid") != "on_grid":
        warnings.warn("pyNN.olive: spikes are on the time grid in olive (spike_precision='on_grid'); "
                      "a crossing between grid points is stamped at the end of its step", stacklevel=2)
    common.setup(timestep, min_delay, **extra_params)
    st = simulator.state
    st.finish()
    st.clear()
    st.mpi_rank, st.num_processes = 0, 1     # the Python side is one process; olive-simulate runs the ranks
    st.dt = float(timestep)
    st.min_delay_auto = min_delay == "auto"
    st.min_delay = timestep if min_delay == "auto" else min_delay
    st.max_delay = max_delay
    st.backend = backend
    st.order_free_sums = order_free
    st.in_process = in_process
    st.seed = 1 if seed is None else int(seed)
    st.workdir = workdir
    st.keep_files = keep or workdir is not None
    return rank()


def end(compatible_output=True):
    """Run what run() left to olive, write the data asked for by record(..., filename) and
    remove the run files."""
    st = simulator.state
    st.flush()
    for (population, variables, filename) in st.write_on_end:
        population.write_data(get_io(filename), variables)
    st.write_on_end = []
    st.finish()


run, run_until = common.build_run(simulator)
run_for = run

reset = common.build_reset(simulator)

initialize = common.initialize

get_current_time, get_time_step, get_min_delay, get_max_delay, \
    num_processes, rank = common.build_state_queries(simulator)

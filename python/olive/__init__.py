"""olive from Python: networks, runs and programs.

    import olive
    net = olive.read_network("net.h5")          # populations, projections, gap junctions
    olive.write_network("mine.h5", populations=[...], projections=[...])
    run = olive.simulate("mine.h5", "run", time=200, record=["v"])
    run.spikes.times, run.spikes.node_ids, run.reports["v"].data
    run.to_neo(); run.to_nwb("run.nwb")
    sim = olive.Simulation("mine.h5"); sim.run(100); sim.spikes(); sim.get("V_m"); sim.close()
    table = olive.sweep("mine.h5", params={"exc.tau_m": [10, 20]}, time=200, outdir="sweep")

The file layouts are docs/FORMAT.md's; docs/PYTHON.md has runnable examples.
"""

from .commands import analyze, genconn, simulate
from .errors import FormatError, OliveError, OliveInterrupted, ProgramNotFound
from .network import GapJunctions, Network, Population, ProceduralProjection, Projection, read_network
from .programs import Progress, find_program, run_program
from .run import Report, Run, Spikes, State, read_run
from .session import Simulation
from .version import __version__
from .writer import write_network

__all__ = [
    "read_network", "write_network", "read_run", "genconn", "simulate", "analyze", "Simulation",
    "Network", "Population", "Projection", "ProceduralProjection", "GapJunctions", "Run", "Spikes", "Report", "State",
    "FormatError", "OliveError", "OliveInterrupted", "ProgramNotFound", "Progress", "find_program", "run_program",
    "__version__", "sweep",
]


def __getattr__(name):
    # olive.sweep (a callable module: olive.sweep(...) runs a grid) is imported
    # when first used, so that `python3 -m olive.sweep` finds it not yet loaded
    if name == "sweep":
        import importlib
        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

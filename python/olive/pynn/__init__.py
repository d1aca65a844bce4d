"""pyNN.olive: a PyNN 0.13 backend that runs olive (docs/PYNN.md).

    import pyNN.olive as sim          # after olive.pynn.install_shim()
    sim.setup(timestep=0.1, backend="auto")
    p = sim.Population(10, sim.IF_curr_exp(i_offset=1.0))
    p.record("spikes")
    sim.run(100.0)
    p.get_data().segments[0].spiketrains

run() notes the network (olive.write_network); olive-simulate runs it when
its results are needed or the network changes, continuing the previous run
from its state (simulator.py). Types that olive lacks raise
NotImplementedError saying so (unsupported.py); NativeRNG draws with olive's
own generator (native_rng.py).
"""

from pyNN import errors, random, space                          # noqa: F401
from pyNN.network import Network                                # noqa: F401
from pyNN.space import Space                                    # noqa: F401
from pyNN.random import NumpyRNG, GSLRNG, RandomDistribution    # noqa: F401
from pyNN.connectors import *                                   # noqa: F401,F403
from pyNN.recording import *                                    # noqa: F401,F403
from pyNN.parameters import Sequence, ArrayParameter            # noqa: F401
from pyNN.standardmodels import StandardCellType

from .standardmodels import (                                   # noqa: F401
    IF_curr_exp, IF_cond_exp, HH_cond_exp, InfOli, SpikeSourcePoisson, SpikeSourceArray, StaticSynapse,
    SpikeSourceGamma, SpikeSourcePoissonRefractory, HHBallAndStick, HHSwcCell,
    ElectricalSynapse, NESTMLCellType, nestml_cell_type,
    DCSource, StepCurrentSource, ACSource, NoisyCurrentSource,
)
from .standardmodels import (                                   # noqa: F401
    IF_curr_alpha, IF_cond_alpha, EIF_cond_exp_isfa_ista, EIF_cond_alpha_isfa_ista, Izhikevich,
)
from .plasticity import (                                       # noqa: F401
    STDPMechanism, SpikePairRule, AdditiveWeightDependence, MultiplicativeWeightDependence,
    AdditivePotentiationMultiplicativeDepression, GutigWeightDependence, TsodyksMarkramSynapse,
)
from .populations import Population, PopulationView, Assembly  # noqa: F401
from .projections import Projection                             # noqa: F401
from .control import (                                          # noqa: F401
    setup, end, run, run_until, run_for, reset, initialize, get_current_time, get_time_step,
    get_min_delay, get_max_delay, num_processes, rank,
)
from .procedural_api import create, connect, record, record_v, record_gsyn, set  # noqa: F401
from .shim import install_shim                                  # noqa: F401
from .sites import SiteList                                     # noqa: F401
from .native_rng import NativeRNG                               # noqa: F401
from .unsupported import *                                      # noqa: F401,F403


def list_standard_models():
    """The StandardCellType classes pyNN.olive runs."""
    return [obj.__name__ for obj in globals().values() if isinstance(obj, type) and issubclass(obj, StandardCellType)]

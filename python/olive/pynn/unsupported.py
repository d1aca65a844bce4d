"""PyNN types that other backends (pyNN.nest, pyNN.neuron) have and olive lacks.

Each is a name of pyNN.olive whose construction raises NotImplementedError
with a sentence saying what olive lacks and what it offers instead, so that
a script written for NEST stops at the line that needs what olive has not,
rather than with "module 'pyNN.olive' has no attribute".
"""

POINT_NEURONS = ("IF_curr_exp, IF_cond_exp, IF_curr_alpha, IF_cond_alpha (leaky integrate-and-fire), "
                 "EIF_cond_exp_isfa_ista, EIF_cond_alpha_isfa_ista (AdEx), Izhikevich and HH_cond_exp (Traub-Miles)")
STATIC = ("olive's chemical synapses: StaticSynapse, STDPMechanism (SpikePairRule, NEST's stdp_synapse) and "
          "TsodyksMarkramSynapse (NEST's tsodyks_synapse)")

LACKS = {
    # cell types
    "GIF_cond_exp": f"olive has no generalized integrate-and-fire model; its point neurons are {POINT_NEURONS}",
    "IF_cond_exp_gsfa_grr": ("olive has no spike-frequency adaptation or relative refractoriness; its point "
                             f"neurons are {POINT_NEURONS}"),
    "IF_curr_delta": ("olive has no delta (instantaneous-jump) synapses; its current-based cells are "
                      "IF_curr_exp and IF_curr_alpha"),
    "IF_facets_hardware1": f"olive does not model the FACETS hardware neuron; its point neurons are {POINT_NEURONS}",
    "SpikeSourceInhGamma": ("olive has no inhomogeneous gamma source; it offers SpikeSourceGamma (a constant "
                            "rate), SpikeSourcePoisson (whose rate may be set between run() calls) and "
                            "SpikeSourceArray"),
    # composed cell types
    **{name: ("olive has no composed cell types (a PointNeuron of a neuron model and receptor types); its "
              f"point neurons come whole: {POINT_NEURONS}, with an excitatory and an inhibitory receptor")
       for name in ("PointNeuron", "LIF", "CondExpPostSynapticResponse", "CondAlphaPostSynapticResponse",
                    "CondBetaPostSynapticResponse", "CurrExpPostSynapticResponse", "AlphaPSR", "BetaPSR",
                    "ExpPSR")},
    # PyNN's multi-compartment API
    "MultiCompartmentNeuron": ("olive does not take PyNN's multi-compartment API (morphologies through "
                               "libNeuroML or MorphIO, channel densities as distributions); its cable cells are "
                               "HHBallAndStick and HHSwcCell(morphology=FILE), their synapse sites given by SiteList"),
    # plasticity
    "Vogels2011Rule": ("olive has no Vogels et al. (2011) inhibitory rule; its STDP is NEST's stdp_synapse "
                       "(STDPMechanism with SpikePairRule)"),
    # stochastic and multi-quantal synapses
    **{name: f"olive has no stochastic or multi-quantal release; {STATIC}"
       for name in ("SimpleStochasticSynapse", "StochasticTsodyksMarkramSynapse", "MultiQuantalSynapse")},
}


def _lacking(name, sentence):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"pyNN.olive cannot run {name}: {sentence} (docs/PYNN.md lists what it runs)")
    return type(name, (), {"__init__": __init__, "__doc__": f"Not in olive: {sentence}.", "olive_lacks": sentence})


globals().update({name: _lacking(name, sentence) for name, sentence in LACKS.items()})
__all__ = list(LACKS)

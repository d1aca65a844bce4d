"""Plastic synapse types of pyNN.olive: olive's stdp, tsodyks rules (NEST's
stdp_synapse and tsodyks_synapse, docs/MODELS.md "Plastic synapses"),
translated as pyNN.nest translates PyNN's types onto those NEST models, so
that a script gives the same synapses on both:

* STDPMechanism(SpikePairRule, a weight dependence) -> stdp: tau_plus,
  tau_minus (the target's, as in NEST), lambda = A_plus, alpha = A_minus /
  A_plus, Wmax = w_max (w_min must be 0, as in NEST; the whole delay is
  dendritic, dendritic_delay_fraction = 1, as in NEST); weight dependence
  Additive (mu_plus = mu_minus = 0), Multiplicative (1, 1),
  AdditivePotentiationMultiplicativeDepression (0, 1), Gutig (its mu_plus,
  mu_minus).
* TsodyksMarkramSynapse(U, tau_rec, tau_facil) -> tsodyks: tau_fac =
  tau_facil, tau_psc = the target's synaptic time constant of the receptor
  (tau_syn_E or tau_syn_I, as pyNN.nest sets it), x 1, y 0, u 0 (NEST's).

Weights and w_max are in PyNN's units and converted per target cell as
static weights are (standardmodels.py); the weights a run leaves are read
back from olive's state (Projection.get('weight')).
"""

from pyNN.standardmodels import synapses, build_translations


def _min_delay(self):
    from .simulator import state     # (simulator imports this module through build.py)
    d = state.min_delay
    return state.dt if d == 'auto' else d


def _alpha_forwards(**p):
    """NEST's alpha: A_minus / A_plus (pyNN.nest keeps A_minus where A_plus is 0)."""
    return p["A_minus"] / p["A_plus"] if p["A_plus"] != 0 else p["A_minus"]


def _alpha_reverse(**p):
    return p["alpha"] * p["lambda"] if p["lambda"] != 0 else p["alpha"]


class SpikePairRule(synapses.SpikePairRule):
    __doc__ = synapses.SpikePairRule.__doc__
    translations = build_translations(
        ('tau_plus', 'tau_plus'),
        ('tau_minus', 'tau_minus'),
        ('A_plus', 'lambda'),
        ('A_minus', 'alpha', _alpha_forwards, _alpha_reverse),
    )


class _ZeroMinimum:
    """w_min must be 0: NEST's stdp_synapse (and olive's) floor the weight at 0."""

    def __init__(self, w_min=0.0, w_max=1.0, **kw):
        if w_min != 0:
            raise ValueError("pyNN.olive: w_min must be 0 (olive's stdp rule, as NEST's stdp_synapse, floors the "
                             "weights at 0)")
        super().__init__(w_min=w_min, w_max=w_max, **kw)


def _weight_dependence(base, mu_plus, mu_minus):
    return type(base.__name__, (_ZeroMinimum, base), {
        "__doc__": base.__doc__,
        "translations": build_translations(('w_max', 'Wmax'), ('w_min', 'w_min')),
        "olive_mu": (mu_plus, mu_minus),
    })


AdditiveWeightDependence = _weight_dependence(synapses.AdditiveWeightDependence, 0.0, 0.0)
MultiplicativeWeightDependence = _weight_dependence(synapses.MultiplicativeWeightDependence, 1.0, 1.0)
AdditivePotentiationMultiplicativeDepression = _weight_dependence(
    synapses.AdditivePotentiationMultiplicativeDepression, 0.0, 1.0)


class GutigWeightDependence(_ZeroMinimum, synapses.GutigWeightDependence):
    __doc__ = synapses.GutigWeightDependence.__doc__
    translations = build_translations(('w_max', 'Wmax'), ('w_min', 'w_min'), ('mu_plus', 'mu_plus'),
                                      ('mu_minus', 'mu_minus'))
    olive_mu = None     # its own parameters


class STDPMechanism(synapses.STDPMechanism):
    __doc__ = synapses.STDPMechanism.__doc__
    base_translations = build_translations(
        ('weight', 'weight'),
        ('delay', 'delay'),
        ('dendritic_delay_fraction', 'dendritic_delay_fraction'),
    )
    _get_minimum_delay = _min_delay

    def __init__(self, timing_dependence=None, weight_dependence=None, voltage_dependence=None,
                 dendritic_delay_fraction=1.0, weight=0.0, delay=None):
        if dendritic_delay_fraction != 1:
            raise ValueError("pyNN.olive: the whole delay is dendritic in olive's stdp rule, as in NEST's "
                             "stdp_synapse (dendritic_delay_fraction=1)")
        if voltage_dependence is not None:
            raise NotImplementedError("pyNN.olive: no voltage-dependent STDP")
        if not isinstance(timing_dependence, SpikePairRule):
            raise NotImplementedError(f"pyNN.olive: STDP timing dependence {type(timing_dependence).__name__} "
                                      "(olive has SpikePairRule, NEST's stdp_synapse)")
        if not hasattr(weight_dependence, "olive_mu"):
            raise NotImplementedError(f"pyNN.olive: STDP weight dependence {type(weight_dependence).__name__}")
        super().__init__(timing_dependence, weight_dependence, voltage_dependence, dendritic_delay_fraction,
                         weight, delay)

    def _build_translations(self):
        # (PyNN's own updates the class's dictionary in place: a copy here)
        self.translations = dict(self.__class__.base_translations)
        for component in (self.timing_dependence, self.weight_dependence):
            self.translations.update(component.translations)

    def olive_plasticity(self, native, wf, tau_syn):
        """olive's rule and parameters of connections with native parameter values (one per name),
        weight factor wf of their target (olive weight per PyNN weight)."""
        mu = self.weight_dependence.olive_mu
        mu_plus, mu_minus = mu if mu is not None else (native["mu_plus"], native["mu_minus"])
        return {"rule": "stdp", "tau_plus": native["tau_plus"], "tau_minus": native["tau_minus"],
                "lambda": native["lambda"], "alpha": native["alpha"], "mu_plus": mu_plus, "mu_minus": mu_minus,
                "Wmax": native["Wmax"] * wf}


class TsodyksMarkramSynapse(synapses.TsodyksMarkramSynapse):
    __doc__ = synapses.TsodyksMarkramSynapse.__doc__
    translations = build_translations(
        ('weight', 'weight'),
        ('delay', 'delay'),
        ('U', 'U'),
        ('tau_rec', 'tau_rec'),
        ('tau_facil', 'tau_fac'),
    )
    _get_minimum_delay = _min_delay
    needs_tau_syn = True      # (olive's tau_psc: the target's synaptic time constant)

    def olive_plasticity(self, native, wf, tau_syn):
        return {"rule": "tsodyks", "U": native["U"], "tau_rec": native["tau_rec"], "tau_fac": native["tau_fac"],
                "tau_psc": tau_syn}


PLASTIC = (STDPMechanism, TsodyksMarkramSynapse)

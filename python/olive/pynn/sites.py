"""Synapse sites on pyNN.olive's cable cells (HHSwcCell, HHBallAndStick): where on the
target cell each synapse of a Projection sits (docs/PYNN.md "Cable cells").

PyNN places synapses on multi-compartment cells through a connector's
location_selector; pyNN.olive takes a SiteList there: each synapse is drawn
uniformly among the list's (section, x) sites, one keyed hash per synapse of
(rng_seed, the projection's index, the synapse's index in the projection), so
the draw depends on nothing else (not the order connections are made in, nor
the ranks olive-simulate runs on). It is not olive-genconn's draw (Random123's
Philox there, a 64-bit mixing hash here): the same rule gives other sites.
"""

import numpy as np

from olive.writer import MAX_SITES_TEXT

CABLE_MODELS = ("hh_swc", "hh_cable")


class SiteList:
    """Synapse sites as a list of (section, x): section, olive's section index of the target
    cell (Import3d's order, as syn_sec and compartment reports number them; 0 the soma;
    hh_cable: 0 soma, 1 dendrite), x the position on it in [0, 1]. Each synapse is drawn
    uniformly among them (give one site to put them all there); label, the provenance
    stored with the projection (attribute `sites`)."""

    def __init__(self, sites, label=None):
        a = np.asarray(sites, dtype=float)
        if a.ndim != 2 or a.shape[1] != 2 or len(a) == 0:
            raise ValueError(f"SiteList: sites must be a non-empty list of (section, x) pairs, got shape {a.shape}")
        sec, x = a[:, 0], a[:, 1]
        bad = np.flatnonzero(~np.isfinite(sec) | (sec != np.round(sec)) | (sec < 0) | (sec > 2 ** 31 - 1))
        if len(bad):
            raise ValueError(f"SiteList: site {bad[0]}: section {sec[bad[0]]} is not a section index (0: the soma)")
        bad = np.flatnonzero(~((x >= 0) & (x <= 1)))
        if len(bad):
            raise ValueError(f"SiteList: site {bad[0]}: x = {x[bad[0]]} is not a position in [0, 1]")
        self.section, self.x = sec.astype(np.int32), x
        self.label = label if label is not None else f"pyNN.olive SiteList of {len(a)} sites"
        if not isinstance(self.label, str) or len(self.label) > MAX_SITES_TEXT or not self.label.isascii():
            raise ValueError(f"SiteList: label must be at most {MAX_SITES_TEXT} ASCII characters")

    def draw(self, seed, projection, n):
        """(site_section int32[n], site_x float64[n]) of synapses 0..n-1 of a projection."""
        k = _pick(_keyed(seed, projection, np.arange(n, dtype=np.uint64)), len(self.x))
        return self.section[k], self.x[k]


def _mix(z):
    """splitmix64's finaliser (a bijection of uint64 that spreads every input bit)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _keyed(seed, projection, synapse):
    """One uint64 per synapse from (seed, projection, synapse index)."""
    key = _mix(_mix(np.uint64(seed & 0xFFFFFFFFFFFFFFFF)) ^ np.uint64(projection))
    with np.errstate(over="ignore"):
        return _mix(key ^ (synapse * np.uint64(0x9E3779B97F4A7C15)))


def _pick(h, n):
    """An index in [0, n) from each hash (the top 32 bits scaled: unbiased to 2^-32 n)."""
    return ((h >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32)


def check_selector(selector, post):
    """The SiteList a Projection onto post may take (TypeError/NotImplementedError otherwise)."""
    if not isinstance(selector, SiteList):
        raise NotImplementedError(
            f"pyNN.olive: location_selector {type(selector).__name__}: olive places synapses by "
            "sim.SiteList([(section, x), ...]); PyNN's morphology selectors (random_placement, "
            "dendrites(), ...) need PyNN's morphology objects, which are not olive's sections (docs/PYNN.md)")
    model = getattr(getattr(post, "celltype", None), "olive_model", None)
    if model not in CABLE_MODELS:
        raise NotImplementedError(f"pyNN.olive: synapse sites need cable cells (HHSwcCell, HHBallAndStick) "
                                  f"as targets, not {type(getattr(post, 'celltype', None)).__name__}")
    return selector

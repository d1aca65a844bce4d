#!/usr/bin/env python3
"""Run one of PyNN's example scripts on a backend as its users run it
(python EXAMPLE.py SIMULATOR), then dump what it computed, read from the
script's own variables, with full precision (the scripts print 8 digits):

    pynn_example_dump.py EXAMPLE.py olive|nest OUT.json

simple_STDP.py: final_weights and the postsynaptic spike times;
tsodyksmarkram.py: every population's recorded signals (v, gsyn_inh).
Run with the python of the backend's venv (tests/test_pynn.sh)."""
import json, runpy, sys
import numpy as np
example, sim, out = sys.argv[1], sys.argv[2], sys.argv[3]
sys.argv = [example, sim]
# PyNN 0.13.0 calls nonzero() on the 0-d mask of a one-cell population, which numpy >= 2.1 refuses:
# 1-d masks instead, for every backend alike (pyNN.olive does the same, projections.py)
from pyNN.connectors import MapConnector
_std = MapConnector._standard_connect
def _standard_connect(self, projection, gen, distance_map=None):
    def masks(*a):
        for m in gen(*a):
            yield np.atleast_1d(m) if isinstance(m, (np.ndarray, np.bool_)) and np.ndim(m) == 0 else m
    return _std(self, projection, masks, distance_map)
MapConnector._standard_connect = _standard_connect
g = runpy.run_path(example, run_name="__main__")
res = {}
if "weight_recorder" in g:
    res["final_weights"] = [float(x) for x in g["final_weights"]]
    res["post_spikes"] = [float(t) for t in g["postsynaptic_data"].spiketrains[0]]
if "populations" in g:
    for label, p in g["populations"].items():
        seg = p.get_data().segments[0]
        for sig in seg.analogsignals:
            res[f"{label}/{sig.name}"] = np.asarray(sig.magnitude, dtype=float).tolist()
json.dump(res, open(out, "w"))

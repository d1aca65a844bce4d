"""The target-owned form on the real microcircuit (issue 58, session 44): the
expected size of a source's group for one block (132 blocks of 585 cells, the
populations contiguous in olive's order), the events a block takes a step at
the full model's rates, and the share of events a window of W due steps holds
under the model's delay law (excitatory N(1.5, 0.75) ms, inhibitory
N(0.75, 0.375) ms, steps of 0.1 ms). The model's tables are those of
examples/microcircuit/microcircuit.py (NEST's network_params.py).
Run: build/venv-python/bin/python docs/results/microcircuit_owned_groups_2026-12-07.py [--table FILE]
(--table: also write the network for `olive-loopprobe 77169 96000 3900 STEPS owned pd14=FILE`: the number of
populations, their sizes, rates, inhibitory flags, then the synapse counts [target][source], a target a line)."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "microcircuit"))
import microcircuit as mc  # noqa: E402

N, R, P = mc.FULL_NUM_NEURONS, mc.FULL_MEAN_RATES, mc.POPULATIONS
K = mc.num_synapses_from_conn_probs(mc.CONN_PROBS, N, N)   # [target][source]
n = int(N.sum())
B = 132
PB = -(-n // B)
start = np.concatenate([[0], np.cumsum(N)])
cov = np.zeros((B, 8))   # cells of each population in each block
for b in range(B):
    lo, hi = b * PB, min((b + 1) * PB, n)
    for y in range(8):
        cov[b, y] = max(0, min(hi, start[y + 1]) - max(lo, start[y]))
group = cov @ (K / N[None, :] / N[:, None])   # [block][source population]: one source's synapses into the block
print("cells %d, blocks %d of %d cells; synapses %.4e, mean out-degree %.0f" % (n, B, PB, K.sum(), K.sum() / n))
print("mean group (source, block) %.1f; largest expected group %.1f" % (K.sum() / n / B, group.max()))
print("largest expected group by source population: " + ", ".join("%s %.0f" % (P[x], group[:, x].max()) for x in range(8)))
ev = group @ (R * N * 1e-4)
print("events a step at the model's rates: total %.0f, a block: mean %.0f, max %.0f, min %.0f"
      % (ev.sum(), ev.mean(), ev.max(), ev.min()))


def phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


exc = np.array([1, 0, 1, 0, 1, 0, 1, 0], bool)
evsrc = K.sum(0) * R * 1e-4
for W in (16, 24):
    fe, fi = phi(((W - 0.5) * 0.1 - 1.5) / 0.75), phi(((W - 0.5) * 0.1 - 0.75) / 0.375)
    print("window %d: excitatory events within %.3f, inhibitory %.4f, all %.3f"
          % (W, fe, fi, (evsrc[exc].sum() * fe + evsrc[~exc].sum() * fi) / evsrc.sum()))

if len(sys.argv) == 3 and sys.argv[1] == "--table":
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % len(N))
        f.write(" ".join("%d" % x for x in N) + "\n")
        f.write(" ".join("%.3f" % x for x in R) + "\n")
        f.write(" ".join("0" if p.endswith("E") else "1" for p in P) + "\n")
        for row in K:
            f.write(" ".join("%.1f" % (x + 0.0) for x in row) + "\n")

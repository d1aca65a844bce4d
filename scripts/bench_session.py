"""What a pause between run()s of an olive.Simulation costs (docs/BENCHMARKS.md): a network of
N cells with 1e6 plastic (stdp) synapses, Poisson drive; timed, best of REPEAT:

  step        one step inside a long run (the floor a piece of one step can reach)
  resume      200 runs of one step minus one run of 200 steps, a step's worth: what stopping
              and resuming costs (the drive off, so that the steps cost alike)
  spikes      spikes() of the last piece
  weights     weights() of all 1e6 plastic synapses (8 MB; their indices are read once)
  get         get("v") of every cell
  copy        numpy copying the same 8 MB (the hardware's part of `weights`)

    python3 scripts/bench_session.py [--backend cpu|cuda] [--cells 4000] [--synapses 1000000]

Prints a table; needs olive's programs and libolive (OLIVE_BIN, or a checkout's build/).
"""

import argparse
import os
import tempfile
import time

import numpy as np

import olive


def best(f, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--cells", type=int, default=4000)
    ap.add_argument("--synapses", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="bench-session-")
    net = os.path.join(d, "net.h5")
    n = a.cells
    olive.genconn(net, model="lif_cuba", populations=[("e", n)], v0=(-65, -52), seed=1,
                  projections=[{"from": "e", "to": "e", "total": a.synapses, "weight": 0.01, "delay": 1.0,
                                "receptor": "ge", "plasticity": "stdp", "Wmax": 0.02}], force=True)
    sim = olive.Simulation(net, os.path.join(d, "run"), backend=a.backend, force=True,
                           poisson=[{"rate": 5, "weight": 0.5, "receptor": "ge", "n": 10}])
    sim.run(steps=100)                       # (set-up's first touches, a GPU's first launches)
    t0 = time.perf_counter()
    sim.run(steps=2000)
    step = (time.perf_counter() - t0) / 2000
    sim.spikes()
    spikes = best(sim.spikes, a.repeat)
    # resume: K pieces of one step against one run of K steps, the drive off (a quiet network:
    # steps of steady cost, so that the difference is the pause's)
    sim.set_poisson_rate(0, 0.0)
    sim.run(steps=500)
    k, whole, pieces = 200, [], []
    for _ in range(5):        # alternated, so that the network's drift falls on both alike
        whole.append(best(lambda: sim.run(steps=k), 1))
        pieces.append(best(lambda: [sim.run(steps=1) for _ in range(k)], 1))
    resume = max(min(pieces) - min(whole), 0.0) / k
    idx, w = sim.weights("e_to_e")
    weights = best(lambda: sim.weights("e_to_e"), a.repeat)
    get = best(lambda: sim.get("v"), a.repeat)
    src = np.empty_like(w)
    copy = best(src.copy, a.repeat)
    sim.close()
    print(f"olive.Simulation between runs: {n} cells, {len(w)} plastic synapses, backend {a.backend}")
    print(f"{'what':10s} {'ms':>10s}")
    for name, t in (("step", step), ("resume", resume), ("spikes", spikes), ("weights", weights),
                    ("get", get), ("copy", copy)):
        print(f"{name:10s} {1e3 * t:10.3f}")
    print(f"resume + spikes + weights = {1e3 * (resume + spikes + weights):.3f} ms; the copy of the weights alone "
          f"{1e3 * copy:.3f} ms")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""An inferior-olive network written in PyNN: olive's InfOli cells on a
grid, their calcium conductances g_cal drawn from [0.6, 1.2] mS/cm2, each
coupled to its 8 neighbours by gap junctions (ElectricalSynapse, 0.04
mS/cm2 as in the original InfOli mesh), a 25 ms pulse of 6 uA/cm2 into every
cell at 1 s. Prints how many cells spiked after the pulse and the spread of
their first spikes, with the coupling and (--compare) without it: the
junctions pull the cells' answers together.

    python3 examples/pynn/infoli.py                  # 10 x 10 cells, 1.1 s
    python3 examples/pynn/infoli.py --side 32 --compare --backend cpu
"""

import argparse

import numpy as np

import olive.pynn

olive.pynn.install_shim()
import pyNN.olive as sim  # noqa: E402


def run(side, weight, time, backend, seed=1):
    sim.setup(timestep=0.05, backend=backend)              # InfOli's step
    grid = sim.space.Grid2D(aspect_ratio=1.0, dx=1.0, dy=1.0)
    g_cal = sim.RandomDistribution("uniform", (0.6, 1.2), rng=sim.NumpyRNG(seed=seed))
    io = sim.Population(side * side, sim.InfOli(g_cal=g_cal), structure=grid, label="io")
    if weight > 0:
        sim.Projection(io, io, sim.DistanceDependentProbabilityConnector("d < 1.5", allow_self_connections=False),
                       sim.ElectricalSynapse(weight=weight / 2), receptor_type="gap")
        # each neighbour pair is connected both ways, each connection a junction both ways:
        # half the conductance per connection gives the mesh's 0.04 per direction
    sim.DCSource(amplitude=6.0, start=1000.0, stop=1025.0).inject_into(io)
    io.record("spikes")
    sim.run(time)
    trains = io.get_data("spikes").segments[0].spiketrains
    sim.end()
    after = [st.magnitude[st.magnitude >= 1000.0] for st in trains]
    first = np.array([t[0] for t in after if len(t)])
    return len(first), first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", type=int, default=10, help="cells per side of the grid (default 10)")
    ap.add_argument("--weight", type=float, default=0.04, help="junction conductance, mS/cm2 (default 0.04)")
    ap.add_argument("--time", type=float, default=1100.0, help="simulated time, ms (default 1100)")
    ap.add_argument("--backend", default="auto", help="auto, cpu or cuda (default auto)")
    ap.add_argument("--compare", action="store_true", help="run once more without gap junctions")
    args = ap.parse_args()
    for w in ([args.weight, 0.0] if args.compare else [args.weight]):
        n, first = run(args.side, w, args.time, args.backend)
        when = (f", first spikes from {first.min():.2f} to {first.max():.2f} ms (spread "
                f"{first.max() - first.min():.2f} ms)") if n else ""
        print(f"gap junctions {w:g} mS/cm2: {n} of {args.side ** 2} cells spiked after the pulse{when}")


if __name__ == "__main__":
    main()

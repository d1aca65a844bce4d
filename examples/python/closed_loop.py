"""A closed loop around a network held in memory (olive.Simulation): every 10 ms a Python
controller reads the excitatory population's rate and sets the rate of the Poisson drive so
that the population fires at the target rate, for 1 s of network time.

    python3 examples/python/closed_loop.py [--backend cpu|cuda] [--out DIR] [--rates RATES.h5]

--rates writes the drive's rate changes as a stimulus file: `olive-simulate NET -o OUT --time
1000 --poisson ... --stimulus RATES.h5` then gives this run's spikes and state bit for bit
(tests/test_session.sh checks it; docs/PYTHON.md "A simulation held in memory").
"""

import argparse
import os

import olive

TARGET_HZ = 10.0          # the excitatory population's rate the controller holds
GAIN = 2.0               # Hz of drive per Hz of error
DRIVE = {"rate": 100.0, "weight": 1.2, "receptor": "ge", "n": 10, "cells": "exc"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--out", default="closed-loop-run")
    ap.add_argument("--net", default="closed-loop-net.h5")
    ap.add_argument("--rates", help="write the rate changes as a stimulus file")
    a = ap.parse_args()
    olive.genconn(a.net, model="lif_cuba", populations=[("exc", 800), ("inh", 200)], v0=(-60, -50), seed=3,
                  projections=[{"from": "exc", "to": "all", "p": 0.05, "weight": 0.3, "delay": 1.0, "receptor": "ge"},
                               {"from": "inh", "to": "all", "p": 0.05, "weight": -2, "delay": 1.0, "receptor": "gi"}],
                  force=True)
    sim = olive.Simulation(a.net, a.out, poisson=[DRIVE], backend=a.backend, force=True)
    exc = 800
    rate = DRIVE["rate"]
    for k in range(100):                     # 100 x 10 ms
        sim.run(10.0)
        times, ids = sim.spikes()
        measured = (ids < exc).sum() / exc / 0.010          # Hz over the last 10 ms
        rate = min(5000.0, max(0.0, rate + GAIN * (TARGET_HZ - measured)))
        sim.set_poisson_rate(0, rate)
        if k % 10 == 9:
            print(f"t = {sim.t:6.1f} ms: exc {measured:5.1f} Hz, drive {rate:7.1f} Hz")
    if a.rates:
        sim.write_rate_changes(a.rates)
    run = sim.close()
    print(f"{len(run.spikes.times)} spikes in {os.path.abspath(a.out)}")


if __name__ == "__main__":
    main()

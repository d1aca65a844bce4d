#!/usr/bin/python3
"""Compare an olive-simulate output directory with tests/ref_model.py.

    compare_ref.py NET.h5 OUTDIR --steps N [--gj rgj|sgj|ngj] [--pulse S:E:A[:F:L]]...
                   [--vars v_dend,v_soma,v_axon] [--record-every K] [--rtol 1e-9]
                   [--spikes] [--min-spikes N]

OUTDIR must hold <var>.h5 reports recorded with --record-precision double
(checked: float64 data) for every cell. For each variable the largest
difference over all frames and cells, divided by the variable's scale
(max |reference| over the run, at least 1e-3), must be <= rtol. With --spikes,
spikes.h5 must hold exactly the reference's spikes (same cells, same steps).
Prints one line per variable; exits 1 on any mismatch.

Why rtol = 1e-9 is the default: olive and this reference evaluate the same
formulas in a different order (e.g. dt*(x_inf-x)/tau against dt*((x_inf-x)/tau),
numpy's exp against libm's), so they differ by a few ulps (~1e-16 relative) per
operation. Between spikes the model is contracting and these differences stay at
1e-15..1e-14; a spike amplifies them by a few orders (ref_model.py --selfcheck
reproduces the MODEL.md table to 7e-14 after 30000 steps and two spikes). 1e-9
leaves a margin of >1e4 over that, while any real modelling error (a wrong
constant, a missing or swapped term, a wrong neighbour or conductance, a pulse
off by one step) changes the trajectories by 1e-6 or far more.
"""
import argparse
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_model  # noqa: E402


def parse_pulse(p):
    f = p.split(":")
    return (float(f[0]), float(f[1]), float(f[2]),
            int(f[3]) if len(f) > 3 else None, int(f[4]) if len(f) > 4 else None)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("net")
    ap.add_argument("outdir")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--gj", default="rgj")
    ap.add_argument("--pulse", action="append", default=[])
    ap.add_argument("--vars", default="v_dend,v_soma,v_axon")
    ap.add_argument("--record-every", type=int, default=1)
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--spikes", action="store_true")
    ap.add_argument("--min-spikes", type=int, default=0)
    ap.add_argument("--population", default="io")
    a = ap.parse_args(argv)

    net = ref_model.read_network(a.net)
    variables = a.vars.split(",")
    pulses = [parse_pulse(p) for p in a.pulse]
    rec, spikes, _ = ref_model.simulate(net, a.steps, a.gj, pulses, variables, a.record_every)
    ok = True
    for v in variables:
        with h5py.File(os.path.join(a.outdir, v + ".h5"), "r") as f:
            d = f[f"report/{a.population}/data"]
            if d.dtype != np.float64:
                print(f"FAIL {v}: report dtype {d.dtype}, need float64 (--record-precision double)")
                ok = False
                continue
            got = d[:]
            ids = f[f"report/{a.population}/mapping/node_ids"][:]
        want = rec[v]
        if not np.array_equal(ids, np.arange(net.count)):
            print(f"FAIL {v}: node_ids are not 0..{net.count - 1}")
            ok = False
            continue
        if got.shape != want.shape:
            print(f"FAIL {v}: shape {got.shape}, reference {want.shape}")
            ok = False
            continue
        scale = max(float(np.max(np.abs(want))), 1e-3)
        diff = np.abs(got - want)
        if not np.all(np.isfinite(got)):
            print(f"FAIL {v}: non-finite values in the report")
            ok = False
            continue
        k, c = np.unravel_index(int(np.argmax(diff)), diff.shape)
        err = float(diff[k, c]) / scale
        status = "ok  " if err <= a.rtol else "FAIL"
        if err > a.rtol:
            ok = False
            first = np.argwhere(diff / scale > a.rtol)[0]
            print(f"FAIL {v}: first difference > rtol at frame {first[0]} (after step "
                  f"{(first[0] + 1) * a.record_every - 1}) cell {first[1]}: olive "
                  f"{got[first[0], first[1]]!r} reference {want[first[0], first[1]]!r}")
        print(f"{status} {v}: max |olive - ref| = {diff[k, c]:.3e} (relative to scale {scale:.3g}: "
              f"{err:.2e}, rtol {a.rtol:g}) at frame {k} cell {c}")
    if a.spikes:
        with h5py.File(os.path.join(a.outdir, "spikes.h5"), "r") as f:
            g = f[f"spikes/{a.population}"]
            t = g["timestamps"][:]
            n = g["node_ids"][:]
        want_steps = [int(round(s[0] / ref_model.DT)) for s in spikes]
        want_nodes = [s[1] for s in spikes]
        got_steps = [int(round(x / ref_model.DT)) for x in t]
        if (got_steps != want_steps or list(map(int, n)) != want_nodes
                or not np.allclose(t, np.array(want_steps) * ref_model.DT, rtol=0, atol=1e-9)):
            ok = False
            print(f"FAIL spikes: olive {len(t)} spikes, reference {len(spikes)}")
            got = list(zip(got_steps, map(int, n)))
            want = list(zip(want_steps, want_nodes))
            print("  only in olive:", sorted(set(got) - set(want))[:10])
            print("  only in reference:", sorted(set(want) - set(got))[:10])
        else:
            print(f"ok   spikes: {len(t)} spikes (steps, cells) identical to the reference")
        if len(spikes) < a.min_spikes:
            ok = False
            print(f"FAIL: the reference has only {len(spikes)} spikes (< {a.min_spikes}); the test would be weak")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

"""Checks the synapse sites olive-genconn drew (sites=; docs/FORMAT.md
"Synapses") against the cell as NEURON 9 reads it (Import3d, through
scripts/neuron_swc_compare.py's load, in Import3d's section order).

  sites_check.py NET.h5 PROJ SWC TYPES DMIN DMAX   every site on a section of
      TYPES ('+'-joined) at path distance [DMIN, DMAX] um from soma(0.5)
      (NEURON's topology: h.distance to each section's 0 end, + x L), and the
      sites spread over that eligible length as a uniform draw would (a loose
      chi-square over sections and halves of sections)
  sites_check.py NET.h5 PROJ SWC @LIST             every site one of LIST's
      (name, x) lines, the lines drawn about equally often
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from neuron_swc_compare import load  # noqa: E402


def chi2_ok(counts, expected, what):
    keep = expected > 0
    if np.any(counts[~keep]):
        sys.exit("FAIL: %s: sites where none may be" % what)
    chi2 = float(np.sum((counts[keep] - expected[keep]) ** 2 / expected[keep]))
    dof = max(int(keep.sum()) - 1, 1)
    if chi2 > dof + 6 * np.sqrt(2 * dof):
        sys.exit("FAIL: %s: chi-square %.1f for %d degrees of freedom: not uniform" % (what, chi2, dof))
    print("%s: chi-square %.1f, %d degrees of freedom" % (what, chi2, dof))


def main():
    net, proj, swc = sys.argv[1:4]
    g = h5py.File(net, "r")["synapses/" + proj]
    sec, x = g["site_section"][:], g["site_x"][:]
    if len(sec) != len(g["col"]) or len(sec) < 1000:
        sys.exit("FAIL: %d sites for %d synapses (the test wants 1000 or more)" % (len(sec), len(g["col"])))
    if not (np.all(x >= 0) and np.all(x <= 1)):
        sys.exit("FAIL: a site x outside [0, 1]")
    from neuron import h
    secs = load(h, swc, True)
    names = [s.name() for s in secs]
    if sec.min() < 0 or sec.max() >= len(secs):
        sys.exit("FAIL: a site on section %d of %d" % (sec.max(), len(secs)))
    if sys.argv[4].startswith("@"):
        lines = []
        for ln in open(sys.argv[4][1:]):
            f = ln.split("#")[0].split()
            if f:
                lines.append((f[0] if "[" in f[0] else f[0] + "[0]", float(f[1])))
        got = [(names[s], float(v)) for s, v in zip(sec, x)]
        unknown = set(got) - set(lines)
        if unknown:
            sys.exit("FAIL: sites not in the list: %s" % sorted(unknown)[:5])
        counts = np.array([sum(1 for q in got if q == line) for line in lines], float)
        chi2_ok(counts, np.full(len(lines), len(got) / len(lines)), "list sites")
        print("PASS: %d sites from %d lines" % (len(got), len(lines)))
        return
    types = sys.argv[4].split("+")
    dmin, dmax = float(sys.argv[5]), float(sys.argv[6])
    origin = secs[0](0.5)
    d0 = np.array([h.distance(origin, s(0)) for s in secs])
    L = np.array([s.L for s in secs])
    root = np.array([h.SectionRef(sec=s).has_parent() == 0 for s in secs])
    # the path distance of every site, and each half section's eligible length
    d = np.where(root[sec], np.abs(x - 0.5) * L[sec], d0[sec] + x * L[sec])
    kind = np.array([n.split("[")[0] for n in names])
    kind[np.char.startswith(kind, "dend_") | np.char.startswith(kind, "minus_")] = "custom"   # other SWC types
    if not np.all(np.isin(kind[sec], types)):
        sys.exit("FAIL: a site on a section of type %s" % sorted(set(kind[sec]) - set(types)))
    if d.min() < dmin - 1e-9 or d.max() > dmax + 1e-9:
        sys.exit("FAIL: site distances %.6g..%.6g um outside [%g, %g]" % (d.min(), d.max(), dmin, dmax))
    expected = np.zeros(2 * len(secs))
    for s in range(len(secs)):
        if kind[s] not in types:
            continue
        for half in (0, 1):
            if root[s]:
                lo, hi = 0.0, 0.5 * L[s]
            else:
                lo, hi = d0[s] + half * 0.5 * L[s], d0[s] + (half + 1) * 0.5 * L[s]
            expected[2 * s + half] = max(0.0, min(hi, dmax) - max(lo, dmin))
    if expected.sum() <= 0:
        sys.exit("FAIL: NEURON's cell has no eligible length")
    counts = np.bincount(2 * sec + (x > 0.5), minlength=2 * len(secs)).astype(float)
    chi2_ok(counts, expected * len(sec) / expected.sum(), "sites %s:%g:%g" % (sys.argv[4], dmin, dmax))
    print("PASS: %d sites on %d sections" % (len(sec), len(set(sec.tolist()))))


main()

#!/usr/bin/env python3
"""A network of SWC cells with synapses over their dendrites, in olive and in NEURON 9.

    neuron_network_compare.py FILE.swc BINDIR [--no-sites] [--ranks 1,3] [--keep DIR] [--json FILE]
    neuron_network_compare.py --net NET.h5    (NEURON's spikes of an hh_swc network file alone)

olive-genconn (BINDIR) builds an hh_swc network of two populations of cells
of FILE.swc: `pyr` (30 cells; nseg by the d_lambda rule at 200 Hz, soma.gnabar
0.15, apic.cm 1.5, dend.Ra 150) and `inh` (10 cells; segments of at most 30
um, hh in the dendrites, V_th 0 mV, Exp2Syn for its site synapses: tau_rise_e
0.5 ms), all with dend.g_pas 5e-5, axon.Ra 150, celsius 16; projections (delays
1-5 ms): pyr -> all (indegree 16, receptor ge) at sites drawn over the
dendrites 20-300 um from the soma (`sites=dend:20:300`), inh -> pyr
(indegree 3, gi) at sites drawn from a list of (section, x) written here
(`sites=@FILE`: the soma's middle, ends of sections, interior points), and
inh -> inh (indegree 2, gi) at syn_sec(syn_x), without sites. --no-sites: the
same without any sites= and tau_rise_e (every synapse at syn_sec(syn_x)).
olive-simulate runs it on each rank count of --ranks (default 1 and 3; one
OpenMP thread per rank) for 100 ms, pyr cells 0-7 clamped (--pulse: 1 nA
for 2 ms, four times, 25 ms apart).

NEURON builds the same network as its users do, from the network file alone:
each cell read by Import3d_SWC_read and Import3d_GUI(...).instantiate into
a Python object, its population's biophysics per section type and nseg rule
(scripts/neuron_swc_compare.py), one ExpSyn (or Exp2Syn where tau_rise_e or
tau_rise_i > 0) per (cell, node, receptor) for the synapses at sites (site_section
in Import3d's order, site_x), one ExpSyn per (cell, receptor) at
syn_sec(syn_x) for those of projections without sites, a NetCon per
synapse (from the source's soma(0.5), its population's V_th, delay = delay
steps * dt, weight), the same clamps, dt 0.025 ms, fixed step; spikes by
NetCon.record. The spike lists (time, cell) must be identical (times within
1e-9 ms) on every rank count, with pyr cells beyond the clamped ones and inh
cells (driven only through the site synapses) firing. Exit 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from neuron_cable_compare import olive_runs, run_neuron, same_spikes
from neuron_swc_compare import import3d, load, section_names

POPS = (("pyr", 30), ("inh", 10))
DRIVEN = 8   # pyr cells 0-7, clamped: 1 nA for 2 ms from 1 + 2 c ms, four times 25 ms apart (a cell of
# these fires once under a lasting current)
CLAMPS = [(c, 1 + 2 * c + 25 * k, 2, 1.0) for c in range(DRIVEN) for k in range(4)]
PARAMS = ["celsius=16", "dend.g_pas=5e-5", "axon.Ra=150",
          "seg_length=0@pyr", "d_lambda_freq=200@pyr", "soma.gnabar=0.15@pyr", "apic.cm=1.5@pyr", "dend.Ra=150@pyr",
          "seg_length=30@inh", "dend.hh=1@inh", "dend.gnabar=0.03@inh", "V_th=0@inh", "syn_sec=1@inh", "syn_x=0.3@inh"]
SITE_PARAMS = ["tau_rise_e=0.5@inh"]   # Exp2Syn at inh's sites (olive: at sites only)


def write_site_list(h, swc, path):
    """A `sites=@FILE` list of (section, x) of swc: the soma's middle, then
    every third non-soma, non-axon section at x 0.5, 0.25, 1, 0.8, 0 in
    turn (0: the node the section leaves its parent at)."""
    names = [(n, k) for n, k in section_names(import3d(h, swc)) if n not in ("soma", "axon")]
    xs = (.5, .25, 1, .8, 0)
    with open(path, "w") as f:
        f.write("# sites of inh -> pyr (written by neuron_network_compare.py)\nsoma[0] 0.5\n")
        for i, (n, k) in enumerate(names[::3]):
            f.write("%s[%d] %g\n" % (n, k, xs[i % len(xs)]))


def genconn(bindir, swc, net, site_list):
    """olive-genconn's network (site_list None: without sites)."""
    def sites(rule):
        return ",sites=" + rule if site_list else ""
    cmd = [os.path.join(bindir, "olive-genconn"), "-o", net, "--model", "hh_swc", "--morphology", swc,
           "--dt", "0.025", "--seed", "7", "--force", "-q"]
    for name, n in POPS:
        cmd += ["--population", "%s:%d" % (name, n)]
    for p in PARAMS + (SITE_PARAMS if site_list else []):
        cmd += ["--param", p]
    for spec in ("from=pyr,to=all,indegree=16,weight=0.015:0.05,delay=1:5,receptor=ge" + sites("dend:20:300"),
                 "from=inh,to=pyr,indegree=3,weight=0.005:0.02,delay=1:5,receptor=gi" + sites("@" + str(site_list)),
                 "from=inh,to=inh,indegree=2,weight=0.005:0.01,delay=1:5,receptor=gi"):
        cmd += ["--projection", spec]
    r = subprocess.run(cmd)
    if r.returncode:
        sys.exit("FAIL: olive-genconn exited with %d: %s" % (r.returncode, " ".join(cmd)))


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def populations(f, netdir):
    """Each population's (first, count, parameters, morphology path) from the
    network file; what this builder does not make is refused."""
    pops = []
    for name, g in f["cells/populations"].items():
        a = {k: text(v) for k, v in g.attrs.items()}
        if a.get("model") != "hh_swc" or len(g):
            sys.exit("population %s: only hh_swc without per-cell datasets is built here" % name)
        if a.get("I_e", 0) != 0:
            sys.exit("population %s: I_e is not built here" % name)
        pops.append((int(a["first"]), int(a["count"]), a, os.path.join(netdir, a["morphology"])))
    return sorted(pops, key=lambda p: p[0])


def shared(pops, name, default):
    """A parameter NEURON holds once for all cells (celsius, usetable_hh, v_init)."""
    vals = set(float(p[2].get(name, default)) for p in pops)
    if len(vals) != 1:
        sys.exit("the populations' %s differ (%s): NEURON has one" % (name, sorted(vals)))
    return vals.pop()


class Synapses:
    """NEURON's point synapses of a cell's projections, made as they are
    needed: at a site (section index, x) one per (node, receptor), as
    olive shares them (ExpSyn, or Exp2Syn with the rise time tau_rise_e /
    tau_rise_i > 0); without a site one ExpSyn per receptor at
    syn_sec(syn_x)."""

    def __init__(self, h, secs, params):
        self.h, self.secs, self.p, self.made = h, secs, params, {}

    def receptor(self, r):
        """(tau, reversal, rise) of receptor ge or gi."""
        e, i = r == "ge", r == "gi"
        if not (e or i):
            sys.exit("receptor %s is not built here" % r)
        p = self.p
        return ((float(p.get("tau_e", 2)), float(p.get("E_e", 0)), float(p.get("tau_rise_e", 0))) if e else
                (float(p.get("tau_i", 5)), float(p.get("E_i", -80)), float(p.get("tau_rise_i", 0))))

    def make(self, seg, r, rise_allowed):
        tau, rev, rise = self.receptor(r)
        if rise > 0 and rise_allowed:
            syn = self.h.Exp2Syn(seg); syn.tau1, syn.tau2 = rise, tau
        else:
            syn = self.h.ExpSyn(seg); syn.tau = tau
        syn.e = rev
        return syn

    def default(self, r):
        key = ("syn_sec", r)
        if key not in self.made:
            sec = self.secs[int(self.p.get("syn_sec", 0))]
            self.made[key] = self.make(sec(float(self.p.get("syn_x", .5))), r, False)
        return self.made[key]

    def site(self, k, x, r):
        if not 0 <= k < len(self.secs) or not 0 <= x <= 1:
            sys.exit("site (%d, %g) is not on the cell's %d sections" % (k, x, len(self.secs)))
        syn = self.make(self.secs[k](x), r, True)
        key = (node_of(syn.get_segment()), r)
        return self.made.setdefault(key, syn)   # a second synapse on the node: the first's object


def node_of(seg):
    """The node a point process at seg sits at, by name: a section's 0 end
    is the node of its parent's segment it connects to (NEURON's node_exact)."""
    sec, x = seg.sec, seg.x
    while x == 0 and sec.parentseg() is not None:
        p = sec.parentseg()
        sec, x = p.sec, p.x
        if 0 < x < 1:   # an interior point of the parent: the node of the segment holding it
            x = (min(int(x * sec.nseg), sec.nseg - 1) + .5) / sec.nseg
    return sec.name(), x


def projection(g, n):
    """A projection's (row_ptr, col, weight[nnz], delay steps[nnz], receptor,
    site_section or None, site_x or None)."""
    row_ptr, col = g["row_ptr"][:], g["col"][:]
    nnz = len(col)
    if len(row_ptr) != n + 1 or row_ptr[-1] != nnz:
        sys.exit("%s: row_ptr does not fit %d cells and %d synapses" % (g.name, n, nnz))
    w = g["weight"][:] if "weight" in g else np.full(nnz, float(g.attrs["weight"]))
    d = g["delay"][:] if "delay" in g else np.full(nnz, int(g.attrs["delay"]))
    if ("site_section" in g) != ("site_x" in g):
        sys.exit("%s: site_section and site_x come together" % g.name)
    ss = g["site_section"][:] if "site_section" in g else None
    sx = g["site_x"][:] if "site_x" in g else None
    return row_ptr, col, w, d, text(g.attrs["receptor"]), ss, sx


def neuron_network(h, net):
    """NEURON's spikes (time, cell) of the network file net, the number of
    synapses at sites and of NEURON's synapse objects."""
    import h5py

    class Cell:
        pass
    with h5py.File(net, "r") as f:
        pops = populations(f, os.path.dirname(os.path.abspath(net)))
        n = int(f["cells"].attrs["count"])
        somas, thresholds, cells = [], [], []
        for first, count, p, morph in pops:
            for c in range(count):
                secs = load(h, morph, float(p.get("seg_length", 20)) == 0, Cell(), p)
                cells.append(Synapses(h, secs, p))
                somas.append(secs[0])
                thresholds.append(float(p.get("V_th", 10)))
        if len(cells) != n:
            sys.exit("the populations hold %d cells, /cells count says %d" % (len(cells), n))
        dt = float(f["synapses"].attrs["dt"])
        if dt != .025:
            sys.exit("dt %g: the runs here are at 0.025 ms" % dt)
        edges, at_sites = [], 0
        for name in sorted(f["synapses"]):
            row_ptr, col, w, d, r, ss, sx = projection(f["synapses"][name], n)
            for t in range(n):
                for e in range(row_ptr[t], row_ptr[t + 1]):
                    syn = cells[t].default(r) if ss is None else cells[t].site(int(ss[e]), float(sx[e]), r)
                    edges.append((int(col[e]), syn, float(w[e]), int(d[e]) * dt))
            at_sites += 0 if ss is None else len(col)
        h.usetable_hh = shared(pops, "hh_tables", 1)
        celsius, v0 = shared(pops, "celsius", 6.3), shared(pops, "v0", -65)
    spikes = run_neuron(h, somas, thresholds, edges, CLAMPS, celsius, v0)
    return spikes, at_sites, sum(len(c.made) for c in cells)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("swc", nargs="?")
    ap.add_argument("bindir", nargs="?")
    ap.add_argument("--no-sites", action="store_true", help="every synapse at syn_sec(syn_x)")
    ap.add_argument("--ranks", default="1,3")
    ap.add_argument("--net", help="NEURON only: build this network file instead (no olive run)")
    ap.add_argument("--keep", help="work in this directory (kept) instead of a temporary one")
    ap.add_argument("--json")
    a = ap.parse_args()
    if not a.net and not a.bindir:
        ap.error("FILE.swc and BINDIR are needed (or --net NET.h5)")
    from neuron import h
    h.load_file("stdrun.hoc")
    if a.net:   # the NEURON builder alone, on a given file
        spikes, at_sites, objs = neuron_network(h, a.net)
        print("NEURON: %d spikes, %d synapses at sites, %d synapse objects" % (len(spikes), at_sites, objs))
        for t, c in spikes:
            print("%.17g %d" % (t, c))
        return 0
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        return compare(h, a, a.keep)
    with tempfile.TemporaryDirectory() as tmp:
        return compare(h, a, tmp)


def compare(h, a, tmp):
    """The network of a.swc by olive-genconn in tmp, in NEURON and in
    olive-simulate on each rank count; 0 when all give the same spikes."""
    swc = os.path.abspath(a.swc)
    site_list = None
    if not a.no_sites:
        site_list = os.path.join(tmp, "sites.txt")
        write_site_list(h, swc, site_list)
    net = os.path.join(tmp, "net.h5")
    genconn(a.bindir, swc, net, site_list)
    nrn, at_sites, objs = neuron_network(h, net)
    runs = olive_runs(a.bindir, net, tmp, [int(p) for p in a.ranks.split(",")], CLAMPS)
    fired = set(c for _, c in nrn)
    pyr_undriven = len([c for c in fired if DRIVEN <= c < POPS[0][1]])
    inh = len([c for c in fired if c >= POPS[0][1]])
    ok = pyr_undriven > 0 and inh > 0 and (a.no_sites or at_sites > 0)
    report = {"neuron_spikes": len(nrn), "cells_fired": len(fired), "pyr_undriven_fired": pyr_undriven,
              "inh_fired": inh, "synapses_at_sites": at_sites, "synapse_objects": objs}
    print("network of %s (%s): NEURON %d spikes from %d cells (%d undriven pyr, %d inh), %d synapses at sites, "
          "%d synapse objects" % (os.path.basename(swc), "no sites" if a.no_sites else "sites", len(nrn), len(fired),
                                  pyr_undriven, inh, at_sites, objs))
    for p, olive in sorted(runs.items()):
        same, dmax = same_spikes(olive, nrn)
        print("  olive-simulate on %d rank(s): %d spikes; identical: %s (max time difference %.3g ms)"
              % (p, len(olive), same, dmax))
        report["olive_%d_ranks" % p] = {"spikes": len(olive), "identical": same, "max_time_diff_ms": dmax}
        ok = ok and same
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

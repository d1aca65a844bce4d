#!/usr/bin/env python3
"""An SWC file in NEURON 9 as its users load it, against olive's reading of it.

    neuron_swc_compare.py swc:FILE|swcdl:FILE|swcbio:FILE OLIVE_TRACE [--tol MV] [--formula]

NEURON reads FILE with its own reader (Import3d_SWC_read, then
Import3d_GUI(reader, False).instantiate(None): sections soma[k], axon[k],
dend[k], apic[k], dend_T[k] with their 3-d points). The biophysics are set
per section type as olive's hh_swc sets them (common/models/cable_model.c,
docs/FORMAT.md): swc: and swcdl: its defaults (Ra 100 ohm cm, cm 1 uF/cm2,
hh on soma and axon sections, pas (g 1e-4 S/cm2, e -65 mV) on the others);
nseg = 2 int((L / 20 + 0.9) / 2) + 1 (swc:) or by the d_lambda rule (swcdl:,
stdlib.hoc's lambda_f at 100 Hz, d_lambda 0.1). swcbio: non-default values
of each type (BIO: hh_swc's TYPE.* parameters; keep in step with
swcbio_params in tests/unit/test_cable.c), nseg by d_lambda 0.05 at 200 Hz
from each section's own Ra and cm, 16 C. hh.mod with NEURON's default rate
tables (usetable_hh = 1), or with --formula its formulas (usetable_hh = 0;
`test_cable trace CELL OUT formula`). An IClamp of 0.5 nA from 5 to 65 ms on
soma[0](0.5), celsius 6.3 (swcbio: 16), v_init -65 mV, dt 0.025 ms, 100 ms,
fixed step (secondorder 0). OLIVE_TRACE is `test_cable trace`'s output for
the same cell (tests/unit/test_cable.c): a first line naming every segment
"NAME(x)", then t and each segment's voltage per step. Every segment of both
must be the same (the same sections, names and nseg) and every voltage
within --tol mV (default 1e-9) at every step; the soma must fire.
"""
import argparse
import sys

import numpy as np


def type_name(t):
    """Import3d_GUI's type2name."""
    return {1: "soma", 2: "axon", 3: "dend", 4: "apic"}.get(t, "minus_%d" % -t if t < 0 else "dend_%d" % t)


# The swcbio cell's biophysics: hh_swc's parameters, TYPE.FIELD per section
# type (keep in step with swcbio_params in tests/unit/test_cable.c).
BIO = {"celsius": 16, "d_lambda": .05, "d_lambda_freq": 200,
       "soma.Ra": 80, "soma.cm": 1.5, "soma.gnabar": .2, "soma.el": -60,
       "axon.Ra": 150, "axon.cm": .8, "axon.gkbar": .05, "axon.pas": 1, "axon.g_pas": 2e-4, "axon.e_pas": -70,
       "axon.ena": 55,
       "dend.Ra": 200, "dend.cm": 2, "dend.hh": 1, "dend.gnabar": .02, "dend.gkbar": .01, "dend.gl": 1e-4,
       "dend.g_pas": 5e-5, "dend.e_pas": -60, "dend.ek": -80,
       "apic.Ra": 120, "apic.cm": .9, "apic.e_pas": -68, "apic.g_pas": 2e-4,
       "custom.Ra": 90, "custom.cm": 1.2, "custom.hh": 1, "custom.gkbar": .02, "custom.g_pas": 3e-5}
# hh_swc's defaults of every section type (common/models/cellmodel.c)
BIO_DEFAULT = {"Ra": 100, "cm": 1, "gnabar": .12, "gkbar": .036, "gl": .0003, "el": -54.3, "ena": 50, "ek": -77,
               "g_pas": 1e-4, "e_pas": -65}


def type_biophysics(bio, typ):
    """SWC type typ's settings from bio (hh_swc's TYPE.* parameters; types
    other than 1-4 are `custom`)."""
    kind = {1: "soma", 2: "axon", 3: "dend", 4: "apic"}.get(typ, "custom")
    out = dict(BIO_DEFAULT, hh=1 if typ in (1, 2) else 0, pas=0 if typ in (1, 2) else 1)
    for k, v in bio.items():
        if k.startswith(kind + "."):
            out[k[len(kind) + 1:]] = v
    return out


def set_biophysics(h, sec, b, seg_length, d_lambda, freq):
    """One section's Ra, cm, nseg (at most seg_length um, or with seg_length
    None stdlib.hoc's d_lambda rule from its own Ra and cm), hh and pas."""
    sec.Ra, sec.cm = b["Ra"], b["cm"]
    per = d_lambda * h.lambda_f(freq, sec=sec) if seg_length is None else seg_length
    sec.nseg = int((sec.L / per + 0.9) / 2) * 2 + 1
    if b["pas"]:
        sec.insert("pas")
        for seg in sec:
            seg.g_pas, seg.e_pas = b["g_pas"], b["e_pas"]
    if b["hh"]:
        sec.insert("hh")
        for seg in sec:
            seg.hh.gnabar, seg.hh.gkbar, seg.hh.gl, seg.hh.el = b["gnabar"], b["gkbar"], b["gl"], b["el"]
            seg.ena, seg.ek = b["ena"], b["ek"]


def import3d(h, path):
    """NEURON's Import3d reader with path read (Import3d_SWC_read)."""
    h.load_file("stdlib.hoc")
    h.load_file("import3d.hoc")
    reader = h.Import3d_SWC_read()
    reader.input(path)
    return reader


def section_names(reader):
    """The (type name, index) of each section of an Import3d reader, in its
    order (olive's: common/models/swc.c), as instantiate names them (before it:
    the index counts the sections of the type in that order)."""
    names, seen = [], {}
    for s in reader.sections:
        name = type_name(int(s.type))
        names.append((name, seen.get(name, 0)))
        seen[name] = names[-1][1] + 1
    return names


def load(h, path, dl, cell=None, bio=None):
    """The sections of path through NEURON's Import3d, in Import3d's order
    (olive's: common/models/swc.c), with hh_swc's biophysics per section type (bio:
    its TYPE.* parameters and seg_length; none: its defaults; dl: nseg by
    the d_lambda rule). cell None: at the top level,
    as instantiate(None) makes them (soma[0], dend[3], ...); else as
    attributes of the Python object cell (cell.soma[0], ...)."""
    bio = bio or {}
    reader = import3d(h, path)
    h.Import3d_GUI(reader, False).instantiate(cell)
    secs = []
    for s in reader.sections:
        name, k = type_name(int(s.type)), int(s.nameindex)
        sec = getattr(h, name)[k] if cell is None else getattr(cell, name)[k]
        set_biophysics(h, sec, type_biophysics(bio, int(s.type)), None if dl else bio.get("seg_length", 20.0),
                       bio.get("d_lambda", .1), bio.get("d_lambda_freq", 100))
        secs.append(sec)
    return secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cell")
    ap.add_argument("olive_trace")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--formula", action="store_true", help="hh.mod's rates from its formulas (usetable_hh = 0)")
    a = ap.parse_args()
    kind, path = a.cell.split(":", 1)
    bio = BIO if kind == "swcbio" else {}
    from neuron import h
    h.load_file("stdrun.hoc")
    secs = load(h, path, kind != "swc", bio=bio)
    if len(secs) != len(list(h.allsec())):
        sys.exit("FAIL: Import3d's section list and NEURON's sections differ")
    byname = {sec.name(): sec for sec in secs}
    with open(a.olive_trace) as f:
        header = f.readline().split()
    if header[:2] != ["#", "t"]:
        sys.exit("%s: no header line naming the segments" % a.olive_trace)
    olive_segs = []
    for col in header[2:]:
        name, x = col[:-1].split("(")
        olive_segs.append((name, float(x)))
    nrn_segs = [(sec.name(), seg.x) for sec in secs for seg in sec]
    key = lambda s: (s[0], round(s[1] * 1e9))
    if sorted(map(key, olive_segs)) != sorted(map(key, nrn_segs)):
        only_o = sorted(set(map(key, olive_segs)) - set(map(key, nrn_segs)))[:5]
        only_n = sorted(set(map(key, nrn_segs)) - set(map(key, olive_segs)))[:5]
        sys.exit("FAIL: the segments differ (%d in olive, %d in NEURON); only olive's: %s; only NEURON's: %s"
                 % (len(olive_segs), len(nrn_segs), only_o, only_n))
    if a.formula:
        h.usetable_hh = 0
    elif h.usetable_hh != 1:
        sys.exit("NEURON's usetable_hh is %g, not its default 1" % h.usetable_hh)
    h.celsius = bio.get("celsius", 6.3)
    h.secondorder = 0
    stim = h.IClamp(byname["soma[0]"](.5))
    stim.delay, stim.dur, stim.amp = 5, 60, .5
    h.dt = .025
    recs = [h.Vector().record(byname[n](x)._ref_v) for n, x in olive_segs]
    tv = h.Vector().record(h._ref_t)
    h.finitialize(-65)
    while h.t < 100 - h.dt / 2:
        h.fadvance()
    nrn = np.column_stack([np.array(tv)] + [np.array(r) for r in recs])
    olive = np.loadtxt(a.olive_trace, comments="#")
    if olive.shape != nrn.shape:
        sys.exit("FAIL: shapes differ: olive %s, NEURON %s" % (olive.shape, nrn.shape))
    tdiff = float(np.max(np.abs(olive[:, 0] - nrn[:, 0])))
    diff = np.max(np.abs(olive[:, 1:] - nrn[:, 1:]), axis=0)
    worst = int(np.argmax(diff))
    soma = olive_segs.index(("soma[0]", .5)) + 1 if ("soma[0]", .5) in olive_segs else 1
    spikes = int(np.sum((nrn[1:, soma] > 0) & (nrn[:-1, soma] <= 0)))
    area = sum(seg.area() for sec in secs for seg in sec)
    print("%s (%s): %d sections, %d segments, area %.6g um2 in NEURON; %d soma spikes; max |olive - NEURON| = %.3g mV "
          "(at %s(%g)); time columns differ by %.3g ms"
          % (a.cell, "formulas" if a.formula else "tables", len(secs), len(olive_segs), area, spikes, diff[worst],
             olive_segs[worst][0], olive_segs[worst][1],
             tdiff))
    ok = bool(np.all(diff <= a.tol)) and tdiff < 1e-9 and spikes > 0
    print("PASS" if ok else "FAIL", "(tolerance %g mV)" % a.tol)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

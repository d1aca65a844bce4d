#!/usr/bin/env python3
"""An Allen Cell Types cell in NEURON 9 as bmtk BioNet builds it, against
olive-simulate's biophys_swc cell (its compartment report).

    neuron_biophys_compare.py --mods DIR|--mech-dir DIR --swc FILE --fit FIT.json --olive V_COMPARTMENTS.h5
        [--amp NA] [--tstop MS] [--celsius C] [--v-init MV] [--dl UM] [--tol MV]

NEURON compiles the .mod files of DIR with its own nrnivmodl and loads them
(--mech-dir: a folder nrnivmodl has compiled already);
the cell is bmtk 1.2.0's own: its Biophys1.hoc template (Import3d_SWC_read,
Import3d_GUI.instantiate), then bmtk's aibs_perisomatic functions
fix_axon_peri (the axon replaced by two 30-um stub sections) and
set_params_peri (the fit file's passive values, genome and reversal
potentials), then bmtk's Morphology.set_segment_dl(dL) (nseg 1 + 2 int(L /
(2 dL))). An IClamp of AMP nA on soma[0](0.5) from t = 0 on (olive's I_e),
celsius, v_init, dt 0.025 ms, fixed step. Every compartment of olive's report
(section index, x: olive's sections in Import3d's order, the stub last, as in
bmtk's `all` list) must exist in NEURON and its voltage be within --tol mV of
NEURON's at every step; the soma must fire (cross -15 mV, bmtk's spike_threshold). Prints the largest difference."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def build_mechanisms(mods, work):
    """nrnivmodl in a private copy of the folder (NEURON's own compiler of .mod files)."""
    d = os.path.join(work, "mods")
    shutil.copytree(mods, d)
    nrnivmodl = os.path.join(os.path.dirname(sys.executable), "nrnivmodl")
    r = subprocess.run([nrnivmodl], cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("nrnivmodl failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--mods")
    src.add_argument("--mech-dir")
    ap.add_argument("--swc", required=True)
    ap.add_argument("--fit", required=True)
    ap.add_argument("--olive", required=True)
    ap.add_argument("--amp", type=float, default=0.3)
    ap.add_argument("--tstop", type=float, default=100)
    ap.add_argument("--celsius", type=float, default=34)
    ap.add_argument("--v-init", type=float, default=None, help="default: the fit file's conditions' v_init")
    ap.add_argument("--dl", type=float, default=20)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--var", action="append", default=[], metavar="NAME=FILE",
                    help="also an NMODL variable's compartment report (an ion's ina, cai ...; a mechanism's "
                         "NAME_SUFFIX): within 1e-6 of its largest magnitude where NEURON has it, NaN where not")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        mech_dir = a.mech_dir or build_mechanisms(a.mods, work)
        import neuron
        from neuron import h
        neuron.load_mechanisms(mech_dir)
        import bmtk.simulator.bionet as bionet
        from bmtk.simulator.bionet.default_setters import cell_models
        from bmtk.simulator.bionet.morphology import Morphology
        h.load_file("stdrun.hoc")
        h.load_file("import3d.hoc")
        tmpl = os.path.join(os.path.dirname(bionet.__file__), "default_templates", "Biophys1.hoc")
        h.load_file(tmpl)
        with open(a.fit) as f:
            fit = json.load(f)
        hobj = h.Biophys1(a.swc)
        cell_models.aibs_perisomatic(hobj, None, fit)   # fix_axon_peri + set_params_peri
        Morphology(hobj).set_segment_dl(a.dl)
        secs = list(hobj.all)
        h.celsius = a.celsius
        v_init = a.v_init if a.v_init is not None else fit["conditions"][0]["v_init"]
        clamp = h.IClamp(hobj.soma[0](0.5))
        clamp.delay, clamp.dur, clamp.amp = 0, 1e9, a.amp
        with h5py.File(a.olive, "r") as f:
            g = next(iter(f["report"].values()))
            ov = g["data"][:]
            sec_ids = g["mapping/element_ids"][:]
            pos = g["mapping/element_pos"][:]
        if len(sec_ids) != sum(s.nseg for s in secs):
            sys.exit(f"olive reports {len(sec_ids)} compartments, NEURON's cell has {sum(s.nseg for s in secs)}")
        vecs = []
        for k, x in zip(sec_ids, pos):
            sec = secs[int(k)]
            seg = sec(float(x))
            # the segment whose centre is x (olive's report positions are floats)
            j = min(int(float(x) * sec.nseg), sec.nseg - 1)
            centre = (j + .5) / sec.nseg
            if abs(centre - float(x)) > 1e-6:
                sys.exit(f"olive's compartment {sec.name()}({x}) is not a segment centre of NEURON's (nseg {sec.nseg})")
            vec = h.Vector()
            vec.record(sec(centre)._ref_v)
            vecs.append(vec)
            del seg
        extra = []
        for spec in a.var:
            name, path = spec.split("=", 1)
            with h5py.File(path, "r") as f:
                og = next(iter(f["report"].values()))["data"][:]
            refs = []
            for k, x in zip(sec_ids, pos):
                seg = secs[int(k)](float(x))
                owner, field = seg, name
                for cut in range(len(name) - 1, 0, -1):   # NAME_SUFFIX: a mechanism's variable
                    if name[cut] == "_" and hasattr(seg, name[cut + 1:]) and \
                            type(getattr(seg, name[cut + 1:])).__name__ == "Mechanism":
                        owner, field = getattr(seg, name[cut + 1:]), name[:cut]
                        break
                try:
                    vec = h.Vector()
                    vec.record(getattr(owner, "_ref_" + field))
                except (AttributeError, NameError, RuntimeError, TypeError):
                    vec = None
                refs.append(vec)
            extra.append((name, og, refs))
        h.dt = 0.025
        h.secondorder = 0
        h.finitialize(v_init)
        steps = int(round(a.tstop / h.dt))
        for _ in range(steps):
            h.fadvance()
        nv = np.array([np.array(v)[1:steps + 1] for v in vecs]).T
        if ov.shape != nv.shape:
            sys.exit(f"olive's report is {ov.shape}, NEURON's {nv.shape}")
        diff = np.abs(ov - nv)
        worst = np.unravel_index(np.argmax(diff), diff.shape)
        soma = nv[:, 0]
        spikes = int(np.sum((soma[1:] > -15) & (soma[:-1] <= -15)))   # bmtk's spike_threshold
        print(f"{len(vecs)} compartments x {steps} steps: largest difference {diff.max():.3e} mV "
              f"(step {worst[0] + 1}, compartment {worst[1]}: {secs[int(sec_ids[worst[1]])].name()}({pos[worst[1]]:.4f})); "
              f"NEURON's soma crosses -15 mV {spikes} times")
        if not spikes:
            sys.exit("the soma did not fire: the comparison would not test the channels")
        for name, og, refs in extra:
            have = [i for i, r in enumerate(refs) if r is not None]
            if not have:
                sys.exit(f"{name}: NEURON has it in no compartment")
            nx = np.array([np.array(refs[i])[1:steps + 1] for i in have]).T
            ox = og[:, have]
            missing = [i for i, r in enumerate(refs) if r is None and not np.all(np.isnan(og[:, i]))]
            if missing:
                sys.exit(f"{name}: olive has values where NEURON has none (compartments {missing[:5]})")
            scale = max(np.max(np.abs(nx)), 1e-300)
            dv = np.max(np.abs(ox - nx))
            print(f"{name}: {len(have)} compartments: largest difference {dv:.3e} ({dv / scale:.1e} of its largest "
                  f"magnitude {scale:.3e})")
            if not dv <= 1e-6 * scale:
                sys.exit(f"FAIL: {name}: olive and NEURON differ by {dv:.3e}")
        if not diff.max() <= a.tol:
            sys.exit(f"FAIL: olive and NEURON differ by {diff.max():.3e} mV > {a.tol}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""NEURON's time for the Allen cells of scripts/bench_nmodl.sh.

    bench_nmodl_neuron.py --mech-dir DIR --cells N --steps S [--threads T] [--expect STATE.h5]
                          [--part K/P] [--bmtk-files DIR]

N cells, N/4 of each of bmtk 1.2.0's four Allen perisomatic cells (Scnn1a,
Rorb, Nr5a1, Pvalb), each built as bmtk BioNet builds it (Biophys1.hoc,
aibs_perisomatic, set_segment_dl(20)) with the mechanisms nrnivmodl compiled
in DIR; an IClamp of 0.4 nA at soma(0.5) from t = 0; celsius 34, v_init
-80, dt 0.025 ms, fixed step; times the fadvance loop with T threads
(ParallelContext.nthread). With --expect (olive-simulate's state.h5 of the
same cells, or its state/v as h5dump -m %.17g -y -o writes it, FILE.txt),
every cell's final soma potential must equal olive's within
1e-6 mV. Prints "neuron CELLS STEPS SECONDS CELL_STEPS_PER_S".

--part K/P: only the cells k with k % P == K (one of P processes on P cores:
NaV.mod is not thread safe, so NEURON runs these unconnected cells as P
processes, as its MPI would place them). --bmtk-files DIR: where bmtk itself
is not installed (a GPU host: bmtk's pandas/scipy stack is not carried),
bmtk 1.2.0's own files from DIR (Biophys1.hoc, cell_models.py with
aibs_perisomatic, biophysical_neuron_models/, morphologies/), loaded as they
are, bmtk's registry and logger that cell_models.py imports replaced by
no-ops; bmtk's set_segment_dl rule is one line.
"""
import argparse
import json
import os
import sys
import time

CELLS = [("Scnn1a_473845048", "472363762"), ("Rorb_325404214", "473863510"),
         ("Nr5a1_471087815", "473863035"), ("Pvalb_470522102", "472912177")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mech-dir", required=True)
    ap.add_argument("--cells", type=int, required=True)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--expect")
    ap.add_argument("--part", default="0/1")
    ap.add_argument("--bmtk-files")
    a = ap.parse_args()
    part, parts = (int(x) for x in a.part.split("/"))
    import neuron
    from neuron import h
    neuron.load_mechanisms(a.mech_dir)
    if a.bmtk_files:
        import importlib.util
        import types
        try:
            import bmtk  # noqa: F401  (installed: cell_models.py's own imports serve)
        except ImportError:   # bmtk's registry and logger, which cell_models.py imports, as no-ops
            def noop(*args, **kw):
                return None
            for name, attrs in (("bmtk", {}), ("bmtk.simulator", {}), ("bmtk.simulator.bionet", {}),
                                ("bmtk.simulator.bionet.pyfunction_cache",
                                 {"add_cell_model": noop, "add_cell_processor": noop}),
                                ("bmtk.simulator.bionet.io_tools",
                                 {"io": types.SimpleNamespace(log_error=noop, log_warning=noop, log_info=noop,
                                                              log_exception=sys.exit)}),
                                ("bmtk.simulator.bionet.nml_reader", {"NMLTree": None})):
                mod = types.ModuleType(name)
                mod.__dict__.update(attrs)
                sys.modules[name] = mod
        spec = importlib.util.spec_from_file_location("cell_models", os.path.join(a.bmtk_files, "cell_models.py"))
        cell_models = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cell_models)
        data, template = a.bmtk_files, os.path.join(a.bmtk_files, "Biophys1.hoc")

        def set_segment_dl(c, dl):   # bmtk's Morphology.set_segment_dl
            for sec in c.all:
                sec.nseg = 1 + 2 * int(sec.L / (2 * dl))
    else:
        import bmtk
        import bmtk.simulator.bionet as bionet
        from bmtk.simulator.bionet.default_setters import cell_models
        from bmtk.simulator.bionet.morphology import Morphology
        data = os.path.join(os.path.dirname(bmtk.__file__), "utils", "scripts", "bionet")
        template = os.path.join(os.path.dirname(bionet.__file__), "default_templates", "Biophys1.hoc")

        def set_segment_dl(c, dl):
            Morphology(c).set_segment_dl(dl)
    h.load_file("stdrun.hoc")
    h.load_file("import3d.hoc")
    h.load_file(template)
    per = a.cells // 4
    cells, clamps, mine = [], [], []
    for m, fit in CELLS:
        with open(os.path.join(data, "biophysical_neuron_models", fit + "_fit.json")) as f:
            params = json.load(f)
        for _ in range(per):
            k = len(mine)
            mine.append(k % parts == part)
            if not mine[-1]:
                continue
            c = h.Biophys1(os.path.join(data, "morphologies", m + "_m.swc"))
            cell_models.aibs_perisomatic(c, None, params)
            set_segment_dl(c, 20)
            cl = h.IClamp(c.soma[0](0.5))
            cl.delay, cl.dur, cl.amp = 0, 1e9, 0.4
            cells.append(c)
            clamps.append(cl)
    h.celsius = 34
    h.dt = 0.025
    h.secondorder = 0
    pc = h.ParallelContext()
    pc.nthread(a.threads)
    h.finitialize(-80)
    t0 = time.perf_counter()
    for _ in range(a.steps):
        h.fadvance()
    secs = time.perf_counter() - t0
    print(f"neuron {len(cells)} {a.steps} {secs:.4f} {len(cells) * a.steps / secs:.4g}", flush=True)
    if a.expect:
        import numpy as np
        if a.expect.endswith(".txt"):   # h5dump -m %.17g -y -o of state/v (where h5py is not installed)
            with open(a.expect) as f:
                ov = np.array([float(x) for x in f.read().replace(",", " ").split()])[np.array(mine)]
        else:
            import h5py
            with h5py.File(a.expect) as f:
                ov = f["state/v"][:][np.array(mine)]
        nv = np.array([c.soma[0](0.5).v for c in cells])
        if ov.shape != nv.shape or not np.max(np.abs(ov - nv)) <= 1e-6:
            sys.exit(f"the final soma potentials differ from olive's by {np.max(np.abs(ov - nv)):.3e} mV")
        print(f"# every cell's final soma potential equals olive's within {np.max(np.abs(ov - nv)):.1e} mV")


if __name__ == "__main__":
    main()

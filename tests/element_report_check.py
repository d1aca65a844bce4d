"""Checks of a compartment (element) report of cable cells written by
olive-simulate --record-compartments v (docs/FORMAT.md):

    element_report_check.py RUN NSEG_BY_CELL [--readers]

RUN holds spikes.h5, v.h5 (the soma) and v_compartments.h5, one population
each per network population (node ids local to it); NSEG_BY_CELL is
"first:last:nseg,..." (global cells first <= id < last have a soma of one segment and
a dendrite of nseg). The mapping must list, per cell, the soma's segment
(section 0, x 0.5) and the dendrite's (section 1, x (k + 0.5) / nseg); the
soma's column must equal v.h5 bit for bit. --readers: libsonata's
ElementReportReader and bmtk's CompartmentReport read the same values and
element ids (run with the python of a venv holding them)."""
import sys

import h5py
import numpy as np

run, spec = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


nseg = {}
for part in spec.split(","):
    a, b, k = (int(x) for x in part.split(":"))
    for c in range(a, b):
        nseg[c] = k
with h5py.File(f"{run}/spikes.h5", "r") as f:   # each population's first global id
    first = {p: int(g.attrs["first_cell"]) for p, g in f["spikes"].items()}
with h5py.File(f"{run}/v_compartments.h5", "r") as f:
    pops = list(f["report"])


def check_population(pop):
    """One population's report: node ids are local to it (global = first_cell + local)."""
    with h5py.File(f"{run}/v_compartments.h5", "r") as f:
        g = f["report/" + pop]
        data = g["data"][:]
        ids = g["mapping/node_ids"][:]
        ptr = g["mapping/index_pointers"][:]
        el = g["mapping/element_ids"][:]
        pos = g["mapping/element_pos"][:]
        tm = g["mapping/time"][:]
    with h5py.File(f"{run}/v.h5", "r") as f:
        soma = f[f"report/{pop}/data"][:]
        soma_ids = f[f"report/{pop}/mapping/node_ids"][:]
    check(np.array_equal(ids, soma_ids), f"{pop}: the cells are v.h5's")
    want_el, want_pos, want_ptr = [], [], [0]
    for c in ids:
        k = nseg[first[pop] + int(c)]
        want_el += [0] + [1] * k
        want_pos += [0.5] + [(j + 0.5) / k for j in range(k)]
        want_ptr.append(want_ptr[-1] + 1 + k)
    check(np.array_equal(ptr, want_ptr), f"{pop}: index_pointers: 1 + nseg compartments per cell")
    check(np.array_equal(el, want_el), f"{pop}: element_ids: the section of each compartment")
    check(np.allclose(pos, want_pos, rtol=0, atol=1e-7), f"{pop}: element_pos: each compartment's centre")
    check(data.shape == (soma.shape[0], want_ptr[-1]), f"{pop}: data shape {data.shape}")
    check(np.array_equal(data[:, ptr[:-1]], soma), f"{pop}: the soma compartment equals v.h5, bit for bit")
    check(float(np.std(data)) > 1, f"{pop}: the compartments vary")
    if "--readers" not in sys.argv:
        return
    import libsonata
    from bmtk.utils.reports.compartment import CompartmentReport
    r = libsonata.ElementReportReader(f"{run}/v_compartments.h5")[pop]
    check(np.array_equal(np.sort(r.get_node_ids()), ids), f"{pop}: libsonata ElementReportReader: node ids")
    c = int(ids[len(ids) // 2])
    i = int(np.where(ids == c)[0][0])
    sel = r.get(node_ids=[c])
    got = np.asarray(sel.data)
    check(np.array_equal(got, data[:, ptr[i]:ptr[i + 1]]), f"{pop}: libsonata: cell {c}'s compartments equal olive's")
    check([int(e) for _, e in np.asarray(sel.ids)] == list(el[ptr[i]:ptr[i + 1]]),
          f"{pop}: libsonata: cell {c}'s element ids")
    times = tm[0] + tm[2] * np.arange(data.shape[0])
    check(np.allclose(np.asarray(sel.times), times, rtol=0, atol=1e-9), f"{pop}: libsonata: times")
    cr = CompartmentReport(f"{run}/v_compartments.h5", mode="r")
    d = np.asarray(cr.data(node_id=c, population=pop))
    check(d.shape == got.shape and np.array_equal(d, got), f"{pop}: bmtk CompartmentReport: cell {c}'s compartments")


check(len(pops) > 0, f"populations in the report: {pops}")
for pop in pops:
    check_population(pop)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)

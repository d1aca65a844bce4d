"""Runs the NEURON, NEST and bmtk sketches of docs/IMPORT-EXPORT.md as written
on olive's export (net_nodes.h5, net_edges.h5 in the current directory) and
checks what they built against the network file net.h5:
  neuron  the python block (after nrnivmodl compiled the halfgap.mod block):
          one HalfGap per junction with g = w * area * 1e-5 uS, and a 5 ms run
          through ParallelContext's transfer in which coupled cells move;
  nest    one gap_junction per direction of every pair, weight w * 20000e-2 nS;
  bmtk    the columns it adds (syn_weight, sec_id, sec_x) and the JSON parses.
Usage: peer_sketches.py DOC {extract|neuron|nest|bmtk}"""
import json, re, subprocess, sys

doc, what = sys.argv[1], sys.argv[2]
text = open(doc).read()


def section(title):
    m = re.search(r"^### " + re.escape(title) + r"\n(.*?)(?=^### |\Z)", text, re.S | re.M)
    assert m, f"no section {title}"
    return m.group(1)


def blocks(body, lang):
    """The fenced blocks of language lang ("" for a plain fence), in order."""
    return [code for tag, code in re.findall(r"^```(\w*)\n(.*?)^```$", body, re.S | re.M) if tag == lang]


def network():
    import h5py, numpy as np
    with h5py.File("net.h5") as f:
        rp, col = f["gap_junctions/row_ptr"][:], f["gap_junctions/col"][:]
        w = f["gap_junctions/conductance"][:]
    tgt = np.repeat(np.arange(len(rp) - 1), np.diff(rp))
    return col, tgt, w


if what == "extract":
    open("halfgap.mod", "w").write(blocks(section("NEURON"), "")[0])
    for name in ("NEURON", "NEST"):
        open(f"sketch_{name.lower()}.py", "w").write(blocks(section(name), "python")[0])
    bm = section("bmtk (BioNet)")
    open("sketch_bmtk.py", "w").write(blocks(bm, "python")[0])
    json.loads(blocks(bm, "json")[0])
    print("extracted")
elif what == "neuron":
    import numpy as np
    g = {}
    exec(open("sketch_neuron.py").read(), g)
    h, gaps, cells = g["h"], g["gaps"], g["cells"]
    src, tgt, w = network()
    assert len(gaps) == len(w), (len(gaps), len(w))
    area = cells[0].dend(0.5).area()
    order = {(int(s), int(t)): i for i, (s, t) in enumerate(zip(g["src"], g["tgt"]))}
    for s, t, x in zip(src, tgt, w):
        gap = gaps[order[(int(s), int(t))]]
        assert abs(gap.g - x * area * 1e-5) <= 1e-12 * gap.g, (s, t, gap.g, x * area * 1e-5)
    # current into cell 0: its partners (through the half-gaps) rise above the cells that
    # are not coupled to it (all relax from -65 mV towards the leak's reversal alike)
    stim = h.IClamp(cells[0].dend(0.5))
    stim.delay, stim.dur, stim.amp = 0, 5, 0.5
    h.finitialize(-65)
    h.continuerun(5)
    v = np.array([c.dend(0.5).v for c in cells])
    partners = {int(s) for s, t in zip(src, tgt) if t == 0}
    far = [i for i in range(1, len(cells)) if i not in partners]
    moved = v[sorted(partners)] - np.median(v[far])
    assert partners and far and moved.min() > 1e-3, f"partners of cell 0 did not follow: {moved}"
    print(f"neuron {h.nrnversion(5)}: {len(gaps)} half-gaps, conductances exact; partners of cell 0 moved "
          f"{moved.min():.3g}..{moved.max():.3g} mV above the uncoupled cells")
elif what == "nest":
    import nest, numpy as np
    g = {}
    exec(open("sketch_nest.py").read(), g)
    src, tgt, w = network()
    conns = nest.GetConnections(synapse_model="gap_junction")
    got = {(int(s) - 1, int(t) - 1): x for s, t, x in zip(conns.source, conns.target, conns.weight)}
    want = {(int(s), int(t)): x * 20000.0 * 1e-2 for s, t, x in zip(src, tgt, w)}
    assert set(got) == set(want), (len(got), len(want))
    assert all(abs(got[k] - want[k]) <= 1e-12 * want[k] for k in want)
    nest.Simulate(5.0)
    print(f"nest {nest.__version__}: {len(got)} gap junctions (both directions of every pair), weights exact")
elif what == "bmtk":
    import h5py, numpy as np
    g = {}
    exec(open("sketch_bmtk.py").read(), g)
    src, tgt, w = network()
    with h5py.File("net_edges.h5") as f:
        e = f["edges/io"]
        sw, order_t = e["0/syn_weight"][:], e["target_node_id"][:]
        assert len(sw) == len(w) and len(e["0/sec_id"]) == len(w) and np.all(e["0/sec_x"][:] == 0.5)
        assert np.allclose(sw, e["0/conductance"][:] * 20000.0 * 1e-5, rtol=1e-15, atol=0)
    print("bmtk sketch: syn_weight, sec_id, sec_x written")

"""Opens every file olive writes with the outside SONATA readers (pip's
libsonata and bmtk, pinned by tests/test_sonata_readers.sh) and checks that
they read the values olive's own files hold (read back with h5py): spikes,
each report, the exported circuit with its edge index and circuit config.
Usage: sonata_readers.py RUNDIR EXPORT_PREFIX NETWORK"""
import sys
import h5py
import numpy as np
import libsonata
from bmtk.utils.reports.spike_trains import SpikeTrains
from bmtk.utils.reports.compartment import CompartmentReport

run, prefix, net = sys.argv[1:4]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# --- spikes: libsonata SpikeReader and bmtk SpikeTrains ---
with h5py.File(f"{run}/spikes.h5", "r") as f:
    t = f["spikes/io/timestamps"][:]
    n = f["spikes/io/node_ids"][:]
check(len(t) > 0, f"the run has spikes ({len(t)})")
sr = libsonata.SpikeReader(f"{run}/spikes.h5")
check(sr.get_population_names() == ["io"], "libsonata: spike populations")
pop = sr["io"]
check(pop.sorting == "by_time", f"libsonata: sorting {pop.sorting}")
got = np.array(pop.get(), dtype=[("node", np.uint64), ("t", np.float64)])
check(np.array_equal(got["node"], n) and np.array_equal(got["t"], t), "libsonata: spikes equal olive's")
df = SpikeTrains.from_sonata(f"{run}/spikes.h5").to_dataframe()
check(np.array_equal(df["node_ids"].to_numpy(np.uint64), n) and np.array_equal(df["timestamps"].to_numpy(), t),
      "bmtk SpikeTrains: spikes equal olive's")

# --- reports: libsonata ElementReportReader / SomaReportReader, bmtk CompartmentReport ---
for var in ("v_axon", "v_dend"):
    path = f"{run}/{var}.h5"
    with h5py.File(path, "r") as f:
        data = f["report/io/data"][:]
        ids = f["report/io/mapping/node_ids"][:]
        tm = f["report/io/mapping/time"][:]
    frames = data.shape[0]
    times = tm[0] + tm[2] * np.arange(frames)
    for cls in (libsonata.ElementReportReader, libsonata.SomaReportReader):
        r = cls(path)["io"]
        check(np.array_equal(np.sort(r.get_node_ids()), ids), f"{cls.__name__} {var}: node ids")
        sel = r.get(node_ids=[int(ids[0]), int(ids[-1])])
        d = np.asarray(sel.data)
        want = data[:, [0, len(ids) - 1]]
        check(d.shape == want.shape and np.array_equal(d, want), f"{cls.__name__} {var}: data of two cells equal olive's")
        check(np.allclose(np.asarray(sel.times), times, rtol=0, atol=1e-9), f"{cls.__name__} {var}: times")
    cr = CompartmentReport(path, mode="r")
    check(cr.populations == ["io"], f"bmtk CompartmentReport {var}: populations {cr.populations}")
    k = len(ids) // 2
    d = np.asarray(cr.data(node_id=int(ids[k]))).ravel()
    check(np.array_equal(d, data[:, k]), f"bmtk CompartmentReport {var}: cell {ids[k]} equals olive's")

# --- exported circuit: NodeStorage, EdgeStorage with the edge index, CircuitConfig ---
with h5py.File(net, "r") as f:
    count = int(f["cells"].attrs["count"])
    row_ptr = f["gap_junctions/row_ptr"][:]
    col = f["gap_junctions/col"][:]
nodes = libsonata.NodeStorage(f"{prefix}_nodes.h5").open_population("io")
check(nodes.size == count, f"libsonata NodeStorage: {nodes.size} nodes")
edges = libsonata.EdgeStorage(f"{prefix}_edges.h5").open_population("io")
check(edges.size == len(col), f"libsonata EdgeStorage: {edges.size} edges")
tgt = np.repeat(np.arange(count), np.diff(row_ptr))
check(np.array_equal(edges.source_nodes(libsonata.Selection([(0, edges.size)])), col) and
      np.array_equal(edges.target_nodes(libsonata.Selection([(0, edges.size)])), tgt), "libsonata: edge ends equal the network's")
bad = [c for c in range(count)
       if not np.array_equal(np.sort(edges.afferent_edges([c]).flatten()), np.where(tgt == c)[0])
       or not np.array_equal(np.sort(edges.efferent_edges([c]).flatten()), np.where(col == c)[0])]
check(not bad, f"libsonata: afferent/efferent edges of every cell from the index groups (wrong: {bad[:5]})")
cfg = libsonata.CircuitConfig.from_file(f"{prefix}_circuit_config.json")
check(cfg.node_populations == {"io"} and cfg.edge_populations == {"io"}, "libsonata CircuitConfig: populations")
check(cfg.node_population("io").size == count and cfg.edge_population("io").size == len(col),
      "libsonata CircuitConfig: opens the nodes and edges it names")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)

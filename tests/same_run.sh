# Sourced by the tests of spiking runs continued from a checkpoint
# (test_spiking_restart.sh, test_model_plugin.sh); dt is 0.1 ms there.
# same_run REPORTS MIN REF FIRST-STEP PART...: the parts (output directories,
# in order) are REF from FIRST-STEP on, bit for bit: spikes, the reports
# REPORTS (comma-separated) and the final state; the last part has more than
# MIN spikes (fewer make a weak comparison). "spikes differ" on stderr when
# the spikes are not REF's. Every population is compared.
same_run() {
  "$PY" - "$@" <<'PY'
import sys, h5py, numpy as np
reports, least, ref, first, parts = sys.argv[1].split(","), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5:]
def spikes(d, pop):
    with h5py.File(f"{d}/spikes.h5") as f:
        return f["spikes"][pop]["timestamps"][:], f["spikes"][pop]["node_ids"][:]
def report(d, v, pop):
    with h5py.File(f"{d}/{v}.h5") as f:
        return f["report"][pop]["data"][:].tobytes()
with h5py.File(f"{ref}/spikes.h5") as f:
    pops = list(f["spikes"])
total = n = 0
for pop in pops:
    rt, ri = spikes(ref, pop)
    keep = rt > first * 0.1 - 1e-9
    pt = np.concatenate([spikes(p, pop)[0] for p in parts]); pi = np.concatenate([spikes(p, pop)[1] for p in parts])
    assert np.array_equal(rt[keep], pt) and np.array_equal(ri[keep], pi), f"{pop} spikes differ: {keep.sum()} vs {len(pt)}"
    total += keep.sum(); n += len(spikes(parts[-1], pop)[0])
    for v in reports:
        rd = report(ref, v, pop); got = b"".join(report(p, v, pop) for p in parts)
        assert rd[len(rd) - len(got):] == got, f"{pop} {v} report differs"
with h5py.File(f"{ref}/state.h5") as a, h5py.File(f"{parts[-1]}/state.h5") as b:
    for v in ["v", "ge", "gi", "ref"]:
        assert a["state"][v][:].tobytes() == b["state"][v][:].tobytes(), f"final state {v} differs"
assert n > least, f"{parts[-1]} has {n} spikes: a weak comparison"
print(f"{parts} = {ref} from step {first}: {total} spikes of {', '.join(pops)}")
PY
}

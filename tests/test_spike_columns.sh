#!/usr/bin/env bash
# spikes.h5's columns (tools/simulate/output/spike_split.c): each
# population's spikes sorted by time, then node id, whatever order the
# engine collected them in:
# - one thread (the spikes already in step order), two and three threads
#   (each thread's list in step order: a counting sort over the steps) and
#   two ranks (point-to-point pieces to rank 0) write the same datasets;
# - populations of 0.3 to 100 spikes a step (the CPU engine lists a step's
#   spikes by cell; the unordered lists of the CUDA engine are checked by
#   tests/unit/test_spike_columns.c);
# - a long run with few spikes (more steps than spikes: a sort by
#   comparisons over the steps) on two threads equals one thread;
# - in every file each population's (timestamp, node id) pairs rise, lie in
#   the population and number what the file's spike_count says.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" S="$BIN/olive-simulate"

# 9 populations of sources: "big" has 100 spikes a step, the others 0.3 to 6
"$G" -q -o dense.h5 --model lif_cuba --population n:40 --source-poisson big:1000:1000 --source-poisson s1:30:100 \
    --source-poisson s2:5:600 --source-poisson s3:300:20 --source-poisson s4:64:900 --source-poisson s5:1:300 \
    --source-poisson s6:200:150 --source-poisson s7:17:50 \
    --projection from=s3,to=n,indegree=20,weight=2,delay=1,receptor=ge
for t in 1 2 3; do
  OMP_NUM_THREADS=$t "$S" -q dense.h5 -o d$t --time 200 --record none --threads "$t" --seed 4
done
mpirun -np 2 "$S" -q dense.h5 -o dr2 --time 200 --record none --threads 1 --seed 4

"$G" -q -o sparse.h5 --model lif_cuba --population n:10 --source-poisson a:30:1 --source-poisson b:7:3 \
    --projection from=a,to=n,indegree=20,weight=3,delay=1,receptor=ge
for t in 1 2; do
  "$S" -q sparse.h5 -o sp$t --time 120000 --record none --threads "$t" --seed 2   # 1.2e6 steps, ~3e4 spikes
done

"$PY" - <<'PYEOF' || fail "spikes.h5 columns differ or are out of order"
import h5py, numpy as np

def columns(path):
    f = h5py.File(path, "r")
    out, total = {}, 0
    for name, g in f["spikes"].items():
        t, i = g["timestamps"][:], g["node_ids"][:]
        assert int(g.attrs["sorting"]) == 2, (path, name, g.attrs["sorting"])   # SONATA's enum: by_time
        assert len(t) == len(i)
        if len(t) > 1:
            dt, di = np.diff(t), np.diff(i.astype(np.int64))
            assert np.all((dt > 0) | ((dt == 0) & (di > 0))), (path, name, "pairs do not rise")
        assert len(i) == 0 or i.max() < g.attrs["cells"], (path, name)
        out[name] = (t, i)
        total += len(t)
    assert total == f.attrs["spike_count"], (path, total, f.attrs["spike_count"])
    return out, total

def same(a, b):
    ca, na = columns(a + "/spikes.h5")
    cb, nb = columns(b + "/spikes.h5")
    assert ca.keys() == cb.keys(), (a, b)
    for k in ca:
        assert np.array_equal(ca[k][0], cb[k][0]) and np.array_equal(ca[k][1], cb[k][1]), (a, b, k)
    return na

n = same("d1", "d2"); same("d1", "d3"); same("d1", "dr2")
big = columns("d1/spikes.h5")[0]["big"][0]
per_step = np.unique(big, return_counts=True)[1]
assert per_step.max() > 48, per_step.max()
print(f"dense: {n} spikes, the same columns on 1, 2, 3 threads and 2 ranks; 'big' up to {per_step.max()} spikes a step")
m = same("sp1", "sp2")
assert 1000 < m < 1200000 - (1 << 20), m    # fewer spikes than steps beyond 2^20: spike_split.c's comparison sort
print(f"sparse: {m} spikes over 1.2e6 steps, the same columns on 1 and 2 threads")
PYEOF
echo "test_spike_columns: all passed"

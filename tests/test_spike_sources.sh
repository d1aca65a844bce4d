#!/usr/bin/env bash
# Spike sources beside a network's neurons (spike_source_poisson,
# spike_source_array; docs/FORMAT.md; PyNN's SpikeSourcePoisson and
# SpikeSourceArray):
# - Poisson sources (olive-genconn --source-poisson) spike at their rate
#   (1000 sources at 50 Hz for 1 s: within 4 standard errors), only inside
#   (start, start + duration];
# - array sources (written with h5py) spike exactly at their times, a
#   duplicate time once, and their events reach a lif_cuba target one delay
#   later (ge jumps by the weight at t + delay and not before);
# - networks driven by both, lif_coba and hh_cable, give identical spikes,
#   reports and state on 1, 2 and 3 ranks and 1 or 2 threads;
# - bad inputs are refused naming the file and the fault: a spike before the
#   end of the first step, a broken spike_times_ptr, synapses onto a source,
#   a neuron population of another model, a /cells model that is a source.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" S="$BIN/olive-simulate" A="$BIN/olive-analyze"

# Poisson rate and window
"$G" -q -o pois.h5 --model lif_cuba --population n:10 --source-poisson drive:1000:50:200:600 \
    --projection from=drive,to=n,indegree=2,weight=0.1,delay=1,receptor=ge
"$S" -q pois.h5 -o pois --time 1000 --record none --seed 7
"$PY" - <<'PYEOF' || fail "Poisson sources: rate or window wrong"
import h5py, numpy as np
s = h5py.File("pois/spikes.h5")["spikes/drive"]             # the sources' own population
ids, t = s["node_ids"][:], s["timestamps"][:]
src = ids >= 0
n = src.sum()
expect = 1000 * 50 * 0.6            # 1000 sources, 50 Hz, 600 ms
se = np.sqrt(expect)
print(f"Poisson sources: {n} spikes, expected {expect:.0f} +- {se:.0f}; first {t[src].min()} ms, last {t[src].max()} ms")
assert abs(n - expect) < 4 * se, n
assert t[src].min() > 200 and t[src].max() <= 800 + 1e-9, (t[src].min(), t[src].max())
PYEOF
# a per-cell rate dataset is each source's own rate (sources 0-19 silent, 20-39 at 800 Hz)
"$G" -q -o prate.h5 --model lif_cuba --population n:2 --source-poisson drive:40:100
"$PY" -c 'import h5py, numpy as np; h5py.File("prate.h5", "r+")["cells/populations/drive"]["rate"] = np.repeat([0.0, 800.0], 20)'
"$S" -q prate.h5 -o prate --time 200 --record none --seed 3
"$PY" - <<'PYEOF' || fail "per-cell Poisson rates not used"
import h5py, numpy as np
ids = h5py.File("prate/spikes.h5")["spikes/drive"]["node_ids"][:]   # ids local to the population
silent, fast = np.sum(ids < 20), np.sum(ids >= 20)
expect = 20 * 800 * 0.2
print(f"per-cell rates: {silent} spikes at 0 Hz, {fast} at 800 Hz (expected {expect:.0f} +- {np.sqrt(expect):.0f})")
assert silent == 0 and abs(fast - expect) < 4 * np.sqrt(expect), (silent, fast)
PYEOF
# Array sources: exact times, and a target's ge one delay later
"$PY" - <<'PYEOF' || fail "could not write the array-source network"
import h5py, numpy as np
with h5py.File("arr.h5", "w") as f:
    f.attrs["format"] = "olive-network"; f.attrs["format_version"] = 1
    c = f.create_group("cells")
    c.attrs["count"] = np.int64(3); c.attrs["dims"] = np.array([3, 1, 1], dtype=np.int64); c.attrs["model"] = "lif_cuba"
    p = c.create_group("populations/n")
    p.attrs["model"] = "lif_cuba"; p.attrs["first"] = np.int64(0); p.attrs["count"] = np.int64(1)
    p.attrs["E_L"] = -60.0                                   # silent without input
    q = c.create_group("populations/src")
    q.attrs["model"] = "spike_source_array"; q.attrs["first"] = np.int64(1); q.attrs["count"] = np.int64(2)
    q["spike_times"] = np.array([5.0, 12.3, 12.3, 40.0, 0.1, 7.5])   # cell 1: 5, 12.3 (twice), 40; cell 2: 0.1, 7.5
    q["spike_times_ptr"] = np.array([0, 4, 6], dtype=np.int64)
    gj = f.create_group("gap_junctions")
    gj["row_ptr"] = np.zeros(4, dtype=np.int64); gj["col"] = np.zeros(0, dtype=np.int32)
    gj.attrs["bits"], gj.attrs["offset"], gj.attrs["scale"] = 0, 0.0, 0.0
    s = f.create_group("synapses"); s.attrs["dt"] = 0.1
    e = s.create_group("src_to_n")                            # cell 1 -> cell 0, 2 ms
    e["row_ptr"] = np.array([0, 1, 1, 1], dtype=np.int64); e["col"] = np.array([1], dtype=np.int32)
    e.attrs["weight"], e.attrs["delay"], e.attrs["receptor"] = 3.0, np.int64(20), "ge"
PYEOF
"$S" -q arr.h5 -o arr --time 50 --record ge --record-precision double
"$PY" - <<'PYEOF' || fail "array sources: times or delivery wrong"
import h5py, numpy as np
s = h5py.File("arr/spikes.h5")["spikes/src"]             # cells 1, 2: node ids 0, 1 of src
got = sorted(zip(s["node_ids"][:].tolist(), np.round(s["timestamps"][:], 9).tolist()))
want = [(0, 5.0), (0, 12.3), (0, 40.0), (1, 0.1), (1, 7.5)]
assert got == want, got
ge = h5py.File("arr/ge.h5")["report/n/data"][:, 0]      # frame k: after step k, t = (k + 1) dt
k = int(round(7.0 / 0.1)) - 1                            # the spike at 5 ms + 2 ms delay
assert ge[k - 1] == 0 and abs(ge[k] - 3.0) < 1e-12, (ge[k - 1], ge[k])
print("array sources: spikes at their times (a duplicate once), the event at t + delay")
PYEOF
# Networks driven by sources: rank and thread invariance
"$G" -q -o coba.h5 --model lif_coba --population exc:320 --population inh:80 --source-poisson kick:100:40:0:150 \
    --v0 -60:-50 --projection from=kick,to=exc,indegree=10,weight=6,delay=0.5,receptor=ge \
    --projection from=exc,to=exc,p=0.05,weight=6,delay=1,receptor=ge --projection from=exc,to=inh,p=0.05,weight=6,delay=1,receptor=ge \
    --projection from=inh,to=exc,p=0.1,weight=67,delay=1,receptor=gi
"$G" -q -o ball.h5 --model hh_cable --population a:60 --source-poisson drive:40:80 \
    --projection from=drive,to=a,indegree=4,weight=0.01,delay=1:3,receptor=ge \
    --projection from=a,to=a,p=0.1,weight=0.004,delay=1,receptor=ge
for net in coba ball; do
  R=(--time 200 --record v,ge --record-precision double --seed 3)
  "$S" -q $net.h5 -o ${net}_1 "${R[@]}"
  n=$("$PY" -c "import h5py; print(sum(len(g['node_ids']) for g in h5py.File('${net}_1/spikes.h5')['spikes'].values()))")
  [ "$n" -gt 100 ] || fail "$net: only $n spikes"
  for P in 2 3; do
    OMP_NUM_THREADS=1 mpirun -np $P "$S" -q $net.h5 -o ${net}_$P "${R[@]}"
    "$A" compare -q ${net}_1 ${net}_$P || fail "$net with sources: $P ranks differ from 1"
  done
  OMP_NUM_THREADS=1 "$S" -q $net.h5 -o ${net}_t1 "${R[@]}"
  "$A" compare -q ${net}_1 ${net}_t1 || fail "$net with sources: 1 thread differs from 2"
  echo "$net with spike sources: $n spikes, identical on 1-3 ranks and 1-2 threads"
done
# Refusals
refused() {  # message command...
  local msg=$1; shift
  if "$@" > err.txt 2>&1; then fail "accepted: $*"; fi
  grep -q -- "$msg" err.txt || fail "expected '$msg', got: $(cat err.txt)"
}
edit() { cp arr.h5 "$1"; "$PY" -c "import h5py, numpy as np; f = h5py.File('$1', 'a'); $2"; }
edit early.h5 "d = f['cells/populations/src/spike_times']; x = d[:]; x[4] = 0.04; d[...] = x"
refused "spikes at 0.04 ms, before the end of the first step" "$S" -q early.h5 -o o1 --time 10
edit ptr.h5 "d = f['cells/populations/src/spike_times_ptr']; d[...] = np.array([0, 4, 5])"
refused "spike_times_ptr runs from 0 to 5" "$S" -q ptr.h5 -o o2 --time 10
edit onto.h5 "s = f['synapses/src_to_n']; del s['row_ptr']; s['row_ptr'] = np.array([0, 0, 1, 1], dtype=np.int64)"
refused "targets the spike source" "$S" -q onto.h5 -o o3 --time 10
edit other.h5 "f['cells/populations/n'].attrs['model'] = 'lif_coba'"
refused "population n is lif_coba in a lif_cuba network" "$S" -q other.h5 -o o4 --time 10
edit srcmodel.h5 "f['cells'].attrs['model'] = 'spike_source_array'"
refused "the model of the network's neurons, not of its spike sources" "$S" -q srcmodel.h5 -o o5 --time 10
refused "its targets include the spike sources" "$G" -q -o x.h5 --model lif_cuba --population n:4 --source-poisson s:2:10 \
    --projection from=n,to=all,p=1,weight=1,delay=1,receptor=ge
for d in o1 o2 o3 o4 o5; do [ ! -e $d ] || fail "a refused run left $d"; done
[ ! -e x.h5 ] || fail "olive-genconn left x.h5"
echo "refusals: early spike, broken ptr, synapse onto a source, other model, source as the network model"

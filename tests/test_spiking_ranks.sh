#!/usr/bin/env bash
# Spiking networks are rank- and thread-invariant (docs/MODELS.md): identical
# spikes, reports (float64) and final state for mpirun -np 1..4 and 1 or 2
# threads, on a network with delay-0 synapses (exchange and delivery within
# every step), one whose delays are 1..5 ms (spikes cross ranks once every
# 10 steps) and one with fixed in-degree / fixed total projections; Poisson
# input and a pulse included. The run must spike, the events must be counted.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
"$G" -q -o zero.h5 --model lif_cuba --population exc:400 --population inh:100 --v0 -60:-50 --param t_ref=5 \
    --projection from=exc,to=all,p=0.05,weight=1.62,delay=0:2,receptor=ge \
    --projection from=inh,to=all,p=0.05,weight=-9,delay=0,receptor=gi
"$G" -q -o late.h5 --model lif_cuba --population exc:400 --population inh:100 --v0 -60:-50 \
    --projection from=exc,to=all,p=0.05,weight=1.62,delay=1:5,receptor=ge \
    --projection from=inh,to=all,p=0.05,weight=-9,delay=1,receptor=gi
"$G" -q -o deg.h5 --model lif_coba --population exc:400 --population inh:100 --v0 -60:-50 --param I_e=120 \
    --projection from=exc,to=all,indegree=20,weight=6,delay=0.2:1,receptor=ge \
    --projection from=inh,to=exc,total=2000,weight=67,delay=0.3,receptor=gi
# alpha synapses (lif_cuba_alpha, lif_coba_alpha: events add to the drives xe, xi)
"$G" -q -o calpha.h5 --model lif_cuba_alpha --population exc:400 --population inh:100 --v0 -60:-50 --param t_ref=5 \
    --projection from=exc,to=all,p=0.05,weight=1.62,delay=0:2,receptor=ge \
    --projection from=inh,to=all,p=0.05,weight=-9,delay=0,receptor=gi
"$G" -q -o galpha.h5 --model lif_coba_alpha --population exc:400 --population inh:100 --v0 -60:-50 --param I_e=150 \
    --projection from=exc,to=all,indegree=20,weight=4,delay=0.2:1,receptor=ge \
    --projection from=inh,to=exc,total=2000,weight=40,delay=0.3,receptor=gi
IN=(--time 300 --record v,ge,gi --record-precision double --poisson rate=20,weight=0.5,receptor=ge,n=10,cells=0:250,time=50:250
    --pulse 100:120:5:400:500)
for net in zero late deg calpha galpha; do
  "$S" -q $net.h5 -o ${net}_1 "${IN[@]}"
  n=$("$PY" -c "import h5py; print(sum(len(g['node_ids']) for g in h5py.File('${net}_1/spikes.h5')['spikes'].values()))")
  [ "$n" -gt 200 ] || fail "$net: only $n spikes; the test needs an active network"
  ranks="2 3 4"
  case $net in *alpha) ranks="3" ;; esac    # (the alpha models: one split, to keep CI short)
  [ "${SANITIZED:-0}" = 1 ] && ranks=3           # (the sanitizer pass: one odd split; tests/run.sh)
  for P in $ranks; do
    mpirun -np $P "$S" -q $net.h5 -o ${net}_$P "${IN[@]}"
    "$A" compare -q ${net}_1 ${net}_$P || fail "$net: $P ranks differ from 1 rank"
  done
  OMP_NUM_THREADS=1 "$S" -q $net.h5 -o ${net}_t1 "${IN[@]}"
  "$A" compare -q ${net}_1 ${net}_t1 || fail "$net: 1 thread differs from 2"
  echo "$net: $n spikes, identical on 1 and $ranks ranks"
done
# The set-up's turn-around keeps a record's source in its receptor field
# where receptors are 0 and 1, else in an array of its own: the same lists
OLIVE_SETUP_SOURCE_ARRAY=1 "$S" -q deg.h5 -o deg_sa "${IN[@]}"
"$A" compare -q deg_1 deg_sa || fail "deg: the turn-around's source array gives other spikes"
OLIVE_SETUP_SOURCE_ARRAY=1 mpirun -np 3 "$S" -q deg.h5 -o deg_sa3 "${IN[@]}"
"$A" compare -q deg_1 deg_sa3 || fail "deg: the turn-around's source array on 3 ranks gives other spikes"
echo "deg: the same spikes with the turn-around's source array (1 and 3 ranks)"
# Threads split a rank's cells only from SPK_PARALLEL_MIN_CELLS (2048) cells on
# (tools/simulate/spiking/spk.h): a 4000-cell network, 1 thread against 2
"$G" -q -o wide.h5 --model lif_cuba --population exc:3200 --population inh:800 --v0 -60:-50 --param t_ref=5 \
    --projection from=exc,to=all,p=0.02,weight=1.62,delay=0:2,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi
WIDE=(--time 150 --record v --poisson rate=20,weight=0.5,receptor=ge,n=10,cells=0:3000,time=0:150)
OMP_NUM_THREADS=2 "$S" -q wide.h5 -o wide_t2 "${WIDE[@]}"
OMP_NUM_THREADS=1 "$S" -q wide.h5 -o wide_t1 "${WIDE[@]}"
n=$("$PY" -c "import h5py; print(sum(len(g['node_ids']) for g in h5py.File('wide_t2/spikes.h5')['spikes'].values()))")
[ "$n" -gt 1000 ] || fail "wide: only $n spikes; the test needs an active network"
"$A" compare -q wide_t1 wide_t2 || fail "wide: 1 thread differs from 2"
echo "wide: $n spikes, identical on 1 and 2 threads"
# The events are counted: with delay >= 1 ms every spike reaches all its
# targets within the run except those of the last 5 ms.
out=$("$S" late.h5 -o count --time 300)
echo "$out" | grep -Eq "^olive-simulate: [1-9][0-9]* synaptic events" || fail "no synaptic event count: $out"
# olive-analyze on a spiking run: the model in the summary, v as the default report
"$A" summary --population exc zero_1 | grep -Eq "^model +lif_cuba \(exact\)" || fail "summary does not name the model"
"$A" summary --population inh deg_1 | grep -Eq "^model +lif_coba \(exponential_euler\)" || fail "summary does not name the COBA model"
"$A" summary --population exc zero_1 | grep -q "gap junctions" && fail "summary shows a gap-junction model for a LIF network"
"$A" sync --population exc zero_1 | grep -q "zero_1/v.h5" || fail "sync did not default to the v report"
"$A" rates --population inh zero_1 >/dev/null || fail "rates failed on a spiking run"
# The output keeps the network's populations: summary per population (and
# one row per population without --population) against the spike file.
"$A" summary --csv --population exc zero_1 > exc.csv
"$A" summary --csv zero_1 > all.csv
"$PY" - <<'PYEOF' || fail "summary of the populations exc, inh differs from the spike file"
import csv, h5py, numpy as np
kv = dict(r for r in csv.reader(open("exc.csv")))
rows = {r["population"]: r for r in csv.DictReader(open("all.csv"))}
with h5py.File("zero_1/spikes.h5") as f:
    assert sorted(f["spikes"]) == ["exc", "inh"], list(f["spikes"])
    for pop, cells in (("exc", 400), ("inh", 100)):
        ids = f[f"spikes/{pop}/node_ids"][:]
        assert ids.size and ids.max() < cells, (pop, ids.max())          # node ids local to the population
        r = rows[pop]
        assert int(r["cells"]) == cells and int(r["spikes"]) == ids.size, (pop, r)
        assert int(r["cells_spiked"]) == np.unique(ids).size, (pop, r)
        assert abs(float(r["mean_rate_hz"]) - ids.size / cells / 0.3) < 1e-4 * float(r["mean_rate_hz"]), (pop, r)
    t = f["spikes/exc/timestamps"][:]
    ids = f["spikes/exc/node_ids"][:]
    assert kv["population"] == "exc" and int(kv["cells"]) == 400 and int(kv["spikes"]) == ids.size, kv
    assert float(kv["first_spike_ms"]) == t[0] and int(kv["first_spike_node"]) == ids[0], kv
print("summary --population exc and per population: the spike file's numbers")
PYEOF
# Recording takes cell sets: ids, ranges, populations, POP[A:B], VAR=SET, repeated = union
"$S" -q zero.h5 -o sets --time 5 --record v --record-cells 'exc[0:3],450' --record-cells 7 --record-cells ge=inh[98:100]
"$PY" - <<'PYEOF' || fail "--record-cells sets"
import h5py, numpy as np
ids = lambda f, p: h5py.File(f"sets/{f}.h5")[f"report/{p}/mapping/node_ids"][:].tolist()
assert ids("v", "exc") == [0, 1, 2, 7] and ids("v", "inh") == [50], (ids("v", "exc"), ids("v", "inh"))
g = h5py.File("sets/ge.h5")["report"]
assert list(g) == ["inh"] and ids("ge", "inh") == [98, 99], list(g)
PYEOF
for bad in "exc[0:401]|population exc has 400 cells" "500|the network has 500 cells" "nope|populations: exc, inh" \
           "xx=1|has no variable 'xx'" "4:4|names no cell" "1,,2|an empty item"; do
  rc=0; "$S" -q zero.h5 -o badset --time 1 --record-cells "${bad%%|*}" 2>err.txt || rc=$?
  [ $rc = 2 ] && grep -qF -- "--record-cells ${bad%%|*}" err.txt && grep -qF -- "${bad#*|}" err.txt && [ ! -e badset ] \
    || { cat err.txt; fail "--record-cells ${bad%%|*} (rc $rc)"; }
done
rc=0; "$S" -q zero.h5 -o badset --time 1 --population x 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "has 2 populations" err.txt || { cat err.txt; fail "--population on two populations (rc $rc)"; }
echo "analyze: summary, sync and rates on spiking runs"

#!/usr/bin/env bash
# --order-free-sums (common/math/weight_quantum.h, docs/MODELS.md): every
# weight is rounded to a multiple of 2^-F, F = 51 - e with largest in-degree x
# largest |weight| < 2^e, so that every sum of a cell's events is exact and
# no order of addition changes it (the CUDA engine then adds them with
# atomics: scripts/gpu-validate-spiking.sh checks its bits against these).
# Here: F and the maxima it is made of are the file's (recomputed from the
# file), the same spikes and states on 1 and 3 ranks and 1 thread, the
# rounding moves no spike of a 200 ms run (and v by under 1e-9 mV), a state
# made with the option restarts only with it, and the refusals.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
A="$BIN/olive-analyze"
# normal weights (NEST's Potjans_2014 form), delays of 1 step and more
"$G" -q -o net.h5 --model lif_coba --population exc:400 --population inh:100 --v0 -60:-50 --param I_e=120 --seed 7 \
    --projection from=exc,to=all,indegree=30,weight=normal:6:0.6:0:inf,delay=normal:1:0.5:0.1:inf,receptor=ge \
    --projection from=inh,to=exc,total=3000,weight=normal:67:6.7:0:inf,delay=0.1:0.6,receptor=gi
IN=(--time 200 --record v,ge,gi --record-precision double --poisson rate=20,weight=0.5,receptor=ge,n=10,cells=0:250)
"$S" net.h5 -o of_1 "${IN[@]}" --order-free-sums -v 2> of_1.log
line=$(grep -- "--order-free-sums: weights rounded" of_1.log) || { cat of_1.log >&2; fail "-v does not print F"; }
echo "$line"
"$PY" - "$line" <<'PYEOF' || fail "F, the largest in-degree or |weight| is not the file's"
import sys, re, math, h5py, numpy as np
m = re.search(r"multiples of 2\^(-?\d+) \(largest in-degree (\d+), largest \|weight\| (\S+)\)", sys.argv[1])
F, dmax, wmax = -int(m.group(1)), int(m.group(2)), float(m.group(3))
f = h5py.File("net.h5")
deg = np.zeros(500, np.int64); w = 0.0
for p in f["synapses"].values():
    if not isinstance(p, h5py.Group): continue
    rp = p["row_ptr"][:]
    deg += np.diff(rp)              # rows are targets
    w = max(w, float(np.abs(p["weight"][:]).max()))
assert dmax == deg.max(), (dmax, deg.max())
assert abs(wmax - w) <= 1e-5 * w, (wmax, w)     # (-v prints %g)
e = math.frexp(float(deg.max()) * w)[1]
assert F == 51 - e, (F, 51 - e)
print(f"F = {F}: largest in-degree {dmax}, largest |weight| {w}")
PYEOF
# ranks and threads: the same bits
mpirun -np 3 "$S" -q net.h5 -o of_3 "${IN[@]}" --order-free-sums
"$A" compare -q of_1 of_3 || fail "--order-free-sums: 3 ranks differ from 1"
OMP_NUM_THREADS=1 "$S" -q net.h5 -o of_t1 "${IN[@]}" --order-free-sums
"$A" compare -q of_1 of_t1 || fail "--order-free-sums: 1 thread differs from 2"
# the rounding (here 2^-39: ~3e-13 of a weight) moves no spike of these 200 ms
"$S" -q net.h5 -o plain "${IN[@]}"
"$PY" - <<'PYEOF' || fail "--order-free-sums moved spikes"
import h5py, numpy as np
def sp(d):
    g = h5py.File(d + "/spikes.h5")["spikes"]
    return sorted((float(t), int(i)) for pop in g.values() for t, i in zip(pop["timestamps"][:], pop["node_ids"][:]))
a, b = sp("plain"), sp("of_1")
assert len(a) > 300, f"only {len(a)} spikes: a weak test"
assert a == b, f"{len(a)} against {len(b)} spikes"
va = h5py.File("plain/v.h5")["report"]; vb = h5py.File("of_1/v.h5")["report"]
x = np.max(np.abs(list(va.values())[0]["data"][:] - list(vb.values())[0]["data"][:]))
assert 0 < x < 1e-9, f"the voltages differ by {x} mV"
print(f"{len(a)} spikes, the same with and without the rounding; v within {x:.1e} mV")
PYEOF
# a state made with the option restarts with it only (its F is in the synapse hash)
"$S" -q net.h5 -o half --steps 1000 "${IN[@]:2}" --order-free-sums
if "$S" -q net.h5 -o bad --steps 2000 "${IN[@]:2}" --restart half/state.h5 2> bad.err; then
  fail "a state of --order-free-sums restarted without it"
fi
grep -q "synapse hash" bad.err || { cat bad.err >&2; fail "no message naming the synapse hash"; }
[ ! -e bad ] || fail "a refused restart left its output directory"
"$S" -q net.h5 -o rest --steps 2000 "${IN[@]:2}" --restart half/state.h5 --order-free-sums
"$PY" - <<'PYEOF' || fail "the restart is not the unbroken run"
import h5py
def sp(d):
    g = h5py.File(d + "/spikes.h5")["spikes"]
    return sorted((float(t), int(i)) for pop in g.values() for t, i in zip(pop["timestamps"][:], pop["node_ids"][:]))
a = sp("of_1"); b = sp("half") + sp("rest")
assert sorted(b) == a, f"{len(a)} against {len(b)} spikes"
PYEOF
echo "restart: only with --order-free-sums, and then the unbroken run's spikes"
# refused: InfOli, plastic synapses
"$G" -q -o io.h5 --cells 8 --generator uniform --density 2 --seed 3
if "$S" -q io.h5 -o io --steps 10 --order-free-sums 2> io.err; then fail "--order-free-sums on InfOli accepted"; fi
grep -q -- "--order-free-sums applies to networks with chemical synapses" io.err || { cat io.err >&2; fail "InfOli: no message"; }
"$G" -q -o pl.h5 --model lif_cuba --population e:20 \
    --projection from=e,to=e,p=0.2,weight=1,delay=1,receptor=ge,plasticity=stdp,Wmax=4.5
if "$S" -q pl.h5 -o pl --steps 10 --order-free-sums 2> pl.err; then fail "--order-free-sums on plastic synapses accepted"; fi
grep -q -- "--order-free-sums: pl.h5: /synapses/.* is plastic" pl.err || { cat pl.err >&2; fail "plastic: no message"; }
[ ! -e pl ] && [ ! -e io ] || fail "a refused run left its output directory"
echo "refused with a message: InfOli, plastic synapses"
# a projection whose weights the grid would round by more than 2^-24 of their
# size (1e-6 beside 1e9: to 0) is refused, naming it and the grid; weights
# of 0..1 (tiny ones included, rounded by at most 2^-24 of 1) run
"$G" -q -o far.h5 --model lif_cuba --population a:100 --seed 1 \
    --projection name=big,from=a,to=a,p=0.1,weight=1e9,delay=1,receptor=ge \
    --projection name=small,from=a,to=a,p=0.1,weight=1e-6,delay=1,receptor=gi
if "$S" -q far.h5 -o far --steps 10 --order-free-sums 2> far.err; then fail "1e-6 beside 1e9 accepted"; fi
grep -q -- "far.h5: --order-free-sums: projection small: its weights (largest |weight| 1e-06) would be rounded to multiples of 2^-16" far.err \
  || { cat far.err >&2; fail "1e-6 beside 1e9: no message naming the projection and the grid"; }
[ ! -e far ] || fail "the refused run left its output directory"
"$S" -q far.h5 -o far-plain --steps 10 || fail "the same network without --order-free-sums"
"$G" -q -o spread.h5 --model lif_cuba --population a:100 --seed 1 --projection from=a,to=a,p=0.3,weight=0:1,delay=1,receptor=ge
"$S" -q spread.h5 -o spread --steps 10 --order-free-sums || fail "weights 0..1 refused"
echo "refused: a projection's weights rounded by more than 2^-24 of their size; weights 0..1 run"

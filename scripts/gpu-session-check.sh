#!/usr/bin/env bash
# olive.Simulation (libolive) on a GPU against the CPU, on the GPU host (issue 56):
# - the closed loop of examples/python/closed_loop.py on the GPU and on the CPU: the same
#   controller decisions (rate changes) and the same spikes.h5 and state.h5; olive-simulate
#   given the GPU run's rate changes (stimulus file) on the CPU and on the GPU: the same again;
# - the plastic network of tests/test_session.sh in 7 pieces on the GPU, read between them
#   (spikes, frames, v, weights at exchange-window ends), against one olive-simulate CPU run;
# - parameters set between runs on the GPU against CPU olive-simulate pieces given them as --param;
# - an InfOli network in pieces on the GPU against one CPU run;
# - scripts/bench_session.py on the GPU and the CPU (the costs of a pause between runs).
#   BIN=DIR (olive-genconn, olive-simulate), LIB=libolive.so, PY=python3 (numpy, h5py);
#   OUT=DIR for the results. Exit 0 when every check passes.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
export OLIVE_BIN=$BIN OLIVE_LIB=${LIB:-$BIN/../lib/libolive.so} PYTHONPATH=$top/python:${PYTHONPATH:-} PYTHONUNBUFFERED=1
PY=${PY:-python3}
OUT=${OUT:-$PWD/gpu-session-check-out}
work=$(mktemp -d)
cd "$work"
bad=0
check() { local what=$1; shift; if "$@" > log.txt 2>&1; then echo "PASS $what"; else echo "FAIL $what"; tail -n 15 log.txt; bad=1; fi; }
same() { "$PY" "$top/tests/same_datasets.py" "$@"; }

check "closed loop on the GPU" "$PY" "$top/examples/python/closed_loop.py" --backend cuda --out loop-gpu --rates rates-gpu.h5
check "closed loop on the CPU" "$PY" "$top/examples/python/closed_loop.py" --backend cpu --out loop-cpu --rates rates-cpu.h5
check "closed loop: GPU = CPU (rate changes, spikes, state)" bash -c \
  "$PY $top/tests/same_datasets.py loop-gpu loop-cpu spikes.h5 state.h5 && cmp <(h5dump -d /poisson_rates/rate_hz rates-gpu.h5 | tail -n +3) <(h5dump -d /poisson_rates/rate_hz rates-cpu.h5 | tail -n +3)"
drive=$("$PY" -c "
import runpy; d = runpy.run_path('$top/examples/python/closed_loop.py')['DRIVE']
print(','.join(f'{k}={v}' for k, v in d.items()))")
for b in cpu cuda; do
  check "olive-simulate --backend $b given the GPU loop's rate changes = the GPU loop" bash -c \
    "$BIN/olive-simulate -q closed-loop-net.h5 -o replay-$b --time 1000 --poisson '$drive' --stimulus rates-gpu.h5 --backend $b && $PY $top/tests/same_datasets.py loop-gpu replay-$b spikes.h5 state.h5"
done

"$BIN/olive-genconn" -q -o plastic.h5 --model lif_cuba --population e:300 --population i:100 --v0 -65:-52 --seed 5 \
    --projection from=e,to=all,p=0.1,weight=1.5,delay=1,receptor=ge,plasticity=stdp,Wmax=4 \
    --projection from=i,to=all,p=0.1,weight=-6,delay=1.5,receptor=gi
"$BIN/olive-simulate" -q plastic.h5 -o whole --time 91 --backend cpu --poisson rate=30,weight=1.2,receptor=ge,n=20 \
    --record v,ge --record-cells 7:40 --record-precision double
check "plastic network in pieces on the GPU = one CPU run (reads between pieces)" "$PY" "$top/tests/session_pieces.py" pieces-gpu cuda
cat log.txt
check "plastic network in pieces on the GPU: its files = the CPU run's" same whole pieces-gpu spikes.h5 v.h5 ge.h5
check "plastic network in pieces on the GPU: its state = the CPU run's (the datasets both have)" \
  same --shared whole pieces-gpu state.h5

# parameters set between runs on the GPU (olive_session_set_param) = CPU olive-simulate pieces with --param
r=(-q plastic.h5 --backend cpu --poisson rate=30,weight=1.2,receptor=ge,n=20)
"$BIN/olive-simulate" "${r[@]}" -o p1 --time 30
"$BIN/olive-simulate" "${r[@]}" -o p2 --time 60 --restart p1/state.h5 --param e.tau_m=12
"$BIN/olive-simulate" "${r[@]}" -o p3 --time 90 --restart p2/state.h5 --param e.tau_m=12 --param V_th=-52.5@i
check "parameters set between runs on the GPU = CPU pieces with --param" "$PY" "$top/tests/session_params.py" pset-gpu cuda
cat log.txt
check "parameters set between runs on the GPU: its state = the CPU's" same --shared p3 pset-gpu state.h5

"$BIN/olive-genconn" -q -o io.h5 --dims 16x16x1 --generator gaussian --density 4 --sigma 2 --seed 4
"$BIN/olive-simulate" -q io.h5 -o io-whole --steps 3000 --pulse 20:40:6 --record v_soma --backend cpu
check "InfOli in pieces on the GPU" "$PY" -c "
import olive
sim = olive.Simulation('io.h5', 'io-gpu', steps=3000, pulses=[(20, 40, 6)], record='v_soma', backend='cuda')
for n in (700, 1, 299, 2000):
    sim.run(steps=n)
    sim.spikes()
sim.close()"
check "InfOli in pieces on the GPU = one CPU run" same io-whole io-gpu spikes.h5 state.h5 v_soma.h5

for b in cuda cpu; do
  "$PY" "$top/scripts/bench_session.py" --backend $b --repeat 20 > "bench-$b.txt" 2>&1 && echo "bench $b:" && cat "bench-$b.txt"
done
mkdir -p "$OUT" && cp bench-*.txt "$OUT/" 2>/dev/null
[ $bad = 0 ] && echo "gpu-session-check: all passed" || echo "gpu-session-check: FAILED"
exit $bad

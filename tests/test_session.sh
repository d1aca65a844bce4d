#!/usr/bin/env bash
# A simulation held in memory (libolive, tools/simulate/session/olive_session.h; Python's
# olive.Simulation, python/olive/session.py), against olive-simulate on the same options:
# - the closed loop of examples/python/closed_loop.py (a controller sets the Poisson drive's
#   rate every 10 ms, 1 s): its spikes.h5 and state.h5 equal, dataset for dataset,
#   olive-simulate's given the rate changes as a stimulus file (/poisson_rates);
# - a run in pieces (7 x 13 ms, reads between them) equals one olive-simulate --time 91: the
#   spikes taken piece by piece, the frames taken piece by piece (= the report file's data), the
#   variables now (= state.h5's), the plastic weights now (= state.h5's), and the output files;
#   the same on 2 MPI ranks (one Simulation a rank, each reading its own cells);
# - an InfOli network in pieces: the same output files as olive-simulate;
# - Ctrl-C (SIGINT) during run(): OliveInterrupted at a 256-step boundary, and the simulation
#   goes on to the same result; parameters set between runs (1 and 2 ranks) = olive-simulate's
#   pieces continued with --restart --param, refusals leaving the session going on (InfOli's too);
#   a wrong variable name: an error, the session goes on; a bad
#   option: an error at open naming it; a rate change naming an input the run lacks, refused
#   naming the file; a run past --time refused;
# - libolive.so exports olive_session_* only.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then
  echo "olive.Simulation: checked in the normal build only (a sanitized library in Python needs its runtime preloaded)"; exit 0
fi
source "$TESTS/python_venv.sh"
py="$venv/bin/python"
export OLIVE_BIN="$BIN"
LIB="$BIN/../lib/libolive.so"
[ -f "$LIB" ] || fail "no $LIB"
others=$(nm -D --defined-only "$LIB" | awk '{print $3}' | grep -v '^olive_session_' || true)
[ -z "$others" ] || fail "libolive.so exports more than olive_session_*: $(echo $others | head -c 300)"

# the closed loop and its replay by olive-simulate
"$py" "$TOP/examples/python/closed_loop.py" --out loop --rates rates.h5 > loop.txt || fail "closed_loop.py"
grep -q "^t = 1000.0 ms" loop.txt || { cat loop.txt; fail "closed_loop.py did not reach 1 s"; }
drive=$("$py" -c "
import runpy; d = runpy.run_path('$TOP/examples/python/closed_loop.py')['DRIVE']
print(','.join(f'{k}={v}' for k, v in d.items()))")
"$BIN/olive-simulate" -q closed-loop-net.h5 -o replay --time 1000 --poisson "$drive" --stimulus rates.h5 \
    || fail "olive-simulate with the loop's rate changes"
"$py" "$TESTS/same_datasets.py" loop replay spikes.h5 state.h5 || fail "the closed loop differs from olive-simulate given its rate changes"
"$py" - <<'PYEOF' || fail "the closed loop's rate changes"
import h5py, numpy as np
g = h5py.File("rates.h5")["poisson_rates"]
assert len(g["rate_hz"]) == 100 and np.all(np.diff(g["start_ms"][:]) == 10.0), g["start_ms"][:5]
assert len(set(np.round(g["rate_hz"][:], 6))) > 3, g["rate_hz"][:]    # the controller did act
PYEOF

# a plastic network in pieces against one olive-simulate run (1 and 2 ranks)
"$BIN/olive-genconn" -q -o plastic.h5 --model lif_cuba --population e:300 --population i:100 --v0 -65:-52 --seed 5 \
    --projection from=e,to=all,p=0.1,weight=1.5,delay=1,receptor=ge,plasticity=stdp,Wmax=4 \
    --projection from=i,to=all,p=0.1,weight=-6,delay=1.5,receptor=gi
opts=(--poisson rate=30,weight=1.2,receptor=ge,n=20 --record v,ge --record-cells 7:40 --record-precision double)
"$BIN/olive-simulate" -q plastic.h5 -o whole --time 91 "${opts[@]}" || fail "olive-simulate plastic.h5"
"$py" "$TESTS/session_pieces.py" pieces > pieces.txt || { cat pieces.txt; fail "a run in pieces differs from one olive-simulate run"; }
cat pieces.txt
"$py" "$TESTS/same_datasets.py" whole pieces spikes.h5 state.h5 v.h5 ge.h5 || fail "the files of a run in pieces"
mpirun -np 2 "$py" "$TESTS/session_pieces.py" pieces2 > pieces2.txt 2>&1 || { cat pieces2.txt; fail "2 ranks: a run in pieces"; }
# (each rank prints its line; the two ranks' lines can meet without a newline between them)
[ "$(grep -o "pieces: [0-9]* spikes, [0-9]* frames, [0-9]* weights alike" pieces2.txt | wc -l)" = 2 ] ||
    { cat pieces2.txt; fail "2 ranks: not both ranks checked"; }
"$py" "$TESTS/same_datasets.py" whole pieces2 spikes.h5 state.h5 v.h5 || fail "2 ranks: the files of a run in pieces"

# parameters set between runs (1 and 2 ranks) against olive-simulate's pieces continued with --param
r=(-q plastic.h5 --poisson rate=30,weight=1.2,receptor=ge,n=20)
"$BIN/olive-simulate" "${r[@]}" -o p1 --time 30 || fail "p1"
"$BIN/olive-simulate" "${r[@]}" -o p2 --time 60 --restart p1/state.h5 --param e.tau_m=12 || fail "p2"
"$BIN/olive-simulate" "${r[@]}" -o p3 --time 90 --restart p2/state.h5 --param e.tau_m=12 --param V_th=-52.5@i || fail "p3"
"$py" "$TESTS/session_params.py" pset > pset.txt || { cat pset.txt; fail "parameters set between runs"; }
cat pset.txt
"$py" "$TESTS/same_datasets.py" --shared p3 pset state.h5 || fail "parameters set between runs: the state at the end"
mpirun -np 2 "$py" "$TESTS/session_params.py" pset2 > pset2.txt 2>&1 || { cat pset2.txt; fail "2 ranks: parameters set between runs"; }
"$py" "$TESTS/same_datasets.py" --shared p3 pset2 state.h5 || fail "2 ranks: parameters set between runs: the state at the end"

# InfOli in pieces
"$BIN/olive-genconn" -q -o io.h5 --dims 6x6x1 --generator gaussian --density 4 --sigma 2 --seed 4
"$BIN/olive-simulate" -q io.h5 -o io-whole --steps 3000 --pulse 20:40:6 --record v_soma || fail "olive-simulate io.h5"
"$py" - <<'PYEOF' || fail "InfOli in pieces"
import olive
sim = olive.Simulation("io.h5", "io-pieces", steps=3000, pulses=[(20, 40, 6)], record="v_soma")
for n in (700, 1, 299, 1000):
    sim.run(steps=n)
try:
    sim.run(steps=1001)
    raise SystemExit("a run past --steps was taken")
except olive.OliveError as e:
    assert "horizon" in str(e), e
sim.run(steps=1000)     # (the session goes on after a refused run)
try:
    sim.set_param("g_cal=1.1")
    raise SystemExit("a parameter set in memory in an InfOli run")
except olive.OliveError as e:
    assert "spiking point-model networks only" in str(e), e
sim.close()
PYEOF
"$py" "$TESTS/same_datasets.py" io-whole io-pieces spikes.h5 state.h5 v_soma.h5 || fail "InfOli in pieces: the files"

# Ctrl-C: stopped at a step boundary, then on to the same end
"$py" - <<'PYEOF' || fail "Ctrl-C during Simulation.run"
import os, signal, threading, time, olive
sim = olive.Simulation("plastic.h5", "int", poisson=[{"rate": 30, "weight": 1.2, "receptor": "ge", "n": 20}], force=True)
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    sim.run(1e6)
    raise SystemExit("no interruption")
except olive.OliveInterrupted as e:
    assert sim.step % 256 == 0 and 0 < sim.step < 10_000_000, sim.step
    assert "stopped by SIGINT" in str(e), e
    print("interrupted at step", sim.step)
sim.run(steps=2560 - sim.step % 2560)
sim.close()
PYEOF

# faults
"$py" - <<'PYEOF' || fail "a bad option"
import olive
try:
    olive.Simulation("plastic.h5", "bad", method="rk9", force=True)
    raise SystemExit("a bad option was taken")
except olive.OliveError as e:
    assert "rk9" in str(e), e
PYEOF
"$py" - <<'PYEOF' || fail "a rate change naming an input the run lacks"
import h5py, numpy as np, olive
with h5py.File("badrates.h5", "w") as f:
    f.attrs["format"] = "olive-stimulus"
    f.attrs["format_version"] = np.int64(1)
    g = f.create_group("poisson_rates")
    g["input"], g["start_ms"], g["rate_hz"] = np.array([0, 1]), np.array([1.0, 2.0]), np.array([5.0, 6.0])
try:
    olive.Simulation("plastic.h5", "bad", poisson=[{"rate": 30, "weight": 1.2, "receptor": "ge"}], stimulus="badrates.h5")
    raise SystemExit("a rate change of input 1 was taken")
except olive.OliveError as e:
    assert "badrates.h5: /poisson_rates: input 1: the run has 1 --poisson input(s)" in str(e), e
PYEOF
[ ! -e bad ] || fail "a refused Simulation left its output directory"
echo "test_session: ok"

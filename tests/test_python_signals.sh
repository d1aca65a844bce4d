#!/usr/bin/env bash
# A signal that ends a Python process running olive ends olive too
# (python/olive/programs.py): SIGTERM to a script in olive.simulate is passed
# on (olive-simulate stops at its next 256-step boundary, writing the run so
# far and its state) and the script exits 143; SIGKILL to the script leaves
# no olive-simulate running (the parent-death signal). A pyNN.olive script
# stopped by SIGTERM leaves no temporary work directory, and its Ctrl-C
# message names no file it removed.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then echo "signals: checked in the normal build only"; exit 0; fi
source "$TESTS/python_venv.sh"
py="$venv/bin/python"
export OLIVE_BIN="$BIN" OMP_NUM_THREADS=1 TMPDIR="$PWD/tmp"
mkdir -p tmp
"$BIN/olive-genconn" -q -o net.h5 --model lif_cuba --population exc:8000 --population inh:2000 --seed 2 \
  --projection from=exc,to=all,p=0.02,weight=1.62,delay=1,receptor=ge \
  --projection from=inh,to=all,p=0.02,weight=-9,delay=1,receptor=gi
alive() { pgrep -f "olive-simulate $PWD/net.h5 -o $PWD/$1" >/dev/null; }
started() {  # OUT: wait (10 s at most) until olive-simulate runs with -o OUT
  for _ in $(seq 100); do alive "$1" && return 0; sleep 0.1; done
  fail "olive-simulate -o $1 did not start"
}
script() {  # OUT
  cat > "$1.py" <<PY
import olive
olive.simulate("$PWD/net.h5", "$PWD/$1", time=100000, progress=False)
PY
}
# SIGTERM: passed on, then exit 143 within seconds, olive-simulate gone
script term
"$py" term.py 2> term.err & pid=$!
started term
sleep 3   # (into its step loop, where a signal stops it at a 256-step boundary with a state)
kill -TERM $pid
rc=0; timeout 30 tail --pid=$pid -f /dev/null || fail "the script did not end within 30 s of SIGTERM"
wait $pid || rc=$?
[ "$rc" = 143 ] || { cat term.err; fail "SIGTERM: exit $rc, not 143"; }
! alive term || fail "olive-simulate ran on after its script's SIGTERM"
[ -f term/state.h5 ] || fail "SIGTERM: olive-simulate did not write the run so far and its state (term/state.h5)"
echo "ok SIGTERM: passed on, exit 143, term/ holds the run so far"
# SIGKILL: the child dies with its parent
script kill
"$py" kill.py 2> /dev/null & pid=$!
started kill
kill -KILL $pid
for _ in $(seq 300); do alive kill || break; sleep 0.1; done
! alive kill || { pkill -KILL -f "olive-simulate $PWD/net.h5 -o $PWD/kill" || true; fail "olive-simulate outlived its killed parent by 30 s"; }
echo "ok SIGKILL: olive-simulate ended with its parent"
# pyNN.olive with olive-simulate processes (setup(in_process=False); olive in this process:
# test_session.sh): SIGTERM removes the temporary work directory
"$py" -m olive.pynn.install >/dev/null
cat > pynn_term.py <<'PY'
import pyNN.olive as sim
sim.setup(timestep=0.1)
p = sim.Population(10000, sim.IF_curr_exp(i_offset=1.0))
sim.Projection(p, p, sim.FixedProbabilityConnector(0.01), sim.StaticSynapse(weight=0.1, delay=1.0))
p.record("spikes")
sim.run(100000.0)
p.get_data()   # (pyNN.olive runs olive-simulate when the data are asked for)
PY
OLIVE_PYNN_IN_PROCESS=0 "$py" pynn_term.py 2> pynn.err & pid=$!
for _ in $(seq 200); do pgrep -f "olive-simulate $PWD/tmp/pynn-olive-" >/dev/null && break; sleep 0.1; done
pgrep -f "olive-simulate $PWD/tmp/pynn-olive-" >/dev/null || { cat pynn.err; fail "pyNN.olive's olive-simulate did not start"; }
kill -TERM $pid
rc=0; wait $pid || rc=$?
[ "$rc" = 143 ] || { cat pynn.err; fail "pyNN.olive SIGTERM: exit $rc"; }
! pgrep -f "olive-simulate $PWD/tmp/pynn-olive-" >/dev/null || fail "pyNN.olive's olive-simulate ran on"
[ -z "$(ls tmp | grep pynn-olive)" ] || fail "pyNN.olive left its work directory: $(ls tmp)"
echo "ok pyNN.olive SIGTERM: exit 143, no work directory left"
# pyNN.olive Ctrl-C: the message names no removed state file
cat > pynn_int.py <<'PY'
import os, signal, tempfile, threading, time, subprocess
import pyNN.olive as sim
sim.setup(timestep=0.1)
p = sim.Population(10000, sim.IF_curr_exp(i_offset=1.0))
sim.Projection(p, p, sim.FixedProbabilityConnector(0.01), sim.StaticSynapse(weight=0.1, delay=1.0))
def interrupt():
    for _ in range(200):
        # (this script's own run: another pyNN.olive on the machine must not set it off)
        mine = f"olive-simulate {tempfile.gettempdir()}/pynn-olive-"
        if subprocess.run(["pgrep", "-f", mine], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
p.record("spikes")
try:
    sim.run(100000.0)
    p.get_data()
except KeyboardInterrupt as e:
    msg = str(e)
    assert "state.h5" not in msg and "--restart" not in msg, msg
    assert "removed its temporary run files" in msg, msg
    print("interrupted:", msg)
PY
OLIVE_PYNN_IN_PROCESS=0 "$py" pynn_int.py > int.out 2> int.err || { cat int.err; fail "pyNN.olive Ctrl-C"; }
grep -q "^interrupted: " int.out || { cat int.out int.err; fail "pyNN.olive Ctrl-C: no KeyboardInterrupt"; }
echo "ok pyNN.olive Ctrl-C: $(head -c 200 int.out)"
echo "test_python_signals: ok"

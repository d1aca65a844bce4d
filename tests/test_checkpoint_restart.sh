#!/usr/bin/env bash
# Checkpoint/restart: a run continued from a state file is
# bit-identical to an unbroken run (spikes, reports, final state compared
# exactly), for a checkpoint written on 2 ranks and continued on 1 and 3, and
# one written on 1 rank continued on 2. A run killed with SIGTERM (one rank of
# two signalled) stops at a step boundary with exit status 143, leaves a
# complete OUTDIR of the steps done, and resumes from it. A run that turns
# non-finite keeps the last good checkpoint. A state file that does not match
# the run is refused before any work, naming the file and the fault.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$BIN/olive-genconn" -o net.h5 --cells 301 --generator uniform --density 12 --seed 3 \
    --conductance 0.01:0.06 --conductance-bits 8 --gcal 0.6:0.8 >/dev/null
# spikes before and after step 256 (the checkpoint): pulses at 0-5 ms and 13-18 ms
PULSES=(--pulse 0:5:6:0:150 --pulse 13:18:6 --pulse 10:12:-3:200:301)
REC=(--record v_axon,v_dend,ca --record-every 5 --record-precision double)
run() {  # P OUT STEPS [extra args]
  local P=$1 out=$2 steps=$3; shift 3
  mpirun -np "$P" --oversubscribe "$S" net.h5 -o "$out" --steps "$steps" "${PULSES[@]}" "${REC[@]}" "$@" >/dev/null
}
# same REF PART...: the parts, in order, are the reference cut in pieces
same() {
  same_state "$1/state.h5" "${!#}/state.h5"
  "$PY" - "$@" <<'PY'
import sys, h5py, numpy as np
ref, parts = sys.argv[1], sys.argv[2:]
def spikes(d):
    with h5py.File(f"{d}/spikes.h5") as f:
        return f["spikes/io/timestamps"][:], f["spikes/io/node_ids"][:]
rt, ri = spikes(ref)
pt = np.concatenate([spikes(p)[0] for p in parts]); pi = np.concatenate([spikes(p)[1] for p in parts])
assert np.array_equal(rt, pt) and np.array_equal(ri, pi), f"spikes differ: {len(rt)} vs {len(pt)}"
for v in ["v_axon", "v_dend", "ca"]:
    with h5py.File(f"{ref}/{v}.h5") as f:
        rd, rtime = f["report/io/data"][:], f["report/io/mapping/time"][:]
    data, t0, t1 = [], None, None
    for p in parts:
        with h5py.File(f"{p}/{v}.h5") as f:
            data.append(f["report/io/data"][:]); tm = f["report/io/mapping/time"][:]
            assert tm[2] == rtime[2], (p, tm)
            # the time axis continues: each part starts where the previous stopped
            assert t1 is None or abs(tm[0] - t1) < 1e-9, (p, tm, t1)
            assert abs(tm[1] - tm[0] - len(data[-1]) * tm[2]) < 1e-9, (p, tm, len(data[-1]))
            t0 = tm[0] if t0 is None else t0; t1 = tm[1]
    assert abs(t0 - rtime[0]) < 1e-9 and abs(t1 - rtime[1]) < 1e-9, (t0, t1, rtime)
    assert np.array_equal(np.concatenate(data), rd), f"{v} report differs"
print(f"same as {ref}: {len(rt)} spikes, parts {parts} with {[len(spikes(p)[0]) for p in parts]}")
assert len(spikes(parts[-1])[0]) > 0, "the last part has no spikes: a weak comparison"
PY
}
same_state() {  # A B: the 19 state arrays are identical (attributes such as kind may differ)
  "$PY" - "$1" "$2" <<'PY' || fail "$2 differs from $1"
import sys, h5py, numpy as np
a, b = (h5py.File(x)["state"] for x in sys.argv[1:])
assert sorted(a) == sorted(b) and len(a) == 19
for v in a:
    assert a[v].dtype == b[v].dtype and np.array_equal(a[v][:], b[v][:]), v
PY
}
attr() {  # FILE OBJ NAME
  "$PY" -c "import h5py,sys; v=h5py.File(sys.argv[1])[sys.argv[2]].attrs[sys.argv[3]]; print(v.decode() if isinstance(v, bytes) else v)" "$@"
}

# ---- the reference: 600 steps unbroken, on 1 rank
run 1 ref 600
n=$("$PY" -c "import h5py; t=h5py.File('ref/spikes.h5')['spikes/io/timestamps'][:]; print((t <= 12.8).sum(), (t > 12.8).sum())")
read -r before after <<<"$n"
[ "$before" -gt 0 ] && [ "$after" -gt 0 ] || fail "the reference needs spikes before and after step 256 ($n)"

# ---- periodic checkpoints on 2 ranks; an absurd pulse at step 300 (t = 15 ms)
# makes cell 4 non-finite at step 301: the run stops naming it, and OUTDIR keeps
# the checkpoint of step 256, complete (state.h5, and spikes.h5 with the spikes
# up to it), and nothing else
rc=0
run 2 ck 600 --checkpoint-every 128 --pulse 15:15.05:1e6:4:5 2>err.txt || rc=$?
[ "$rc" -ne 0 ] || fail "the non-finite run exited 0"
grep -Eq "step 301\b.*cell 4\b" err.txt || { cat err.txt; fail "the non-finite stop does not name step 301 and cell 4"; }
grep -q "last good checkpoint ck/state.h5 (step 256)" err.txt || { cat err.txt; fail "the message does not name the kept checkpoint"; }
[ "$(ls ck | tr '\n' ' ')" = "spikes.h5 state.h5 " ] || fail "ck holds $(ls ck | tr '\n' ' ') (spikes.h5 and state.h5 expected)"
[ "$(attr ck/spikes.h5 / end_step)" = 256 ] || fail "ck/spikes.h5 does not end at the checkpoint's step 256"
[ "$(attr ck/state.h5 state step)" = 256 ] && [ "$(attr ck/state.h5 state kind)" = checkpoint ] ||
  fail "ck/state.h5 is not the checkpoint of step 256"
echo "ok: non-finite stop kept the checkpoint of step 256: $(head -n 1 err.txt)"

# ---- continued on 1 and on 3 ranks (without the absurd pulse): bit-identical
# to the reference from step 256 on; the time axis continues
run 1 r1 600 --restart ck/state.h5
run 3 r3 600 --restart ck/state.h5
[ "$(attr r1/spikes.h5 / start_step)" = 256 ] && [ "$(attr r1/spikes.h5 / steps)" = 344 ] ||
  fail "r1 provenance: start_step/steps not 256/344"
# the first 256 steps, written by a run that ends there, complete the picture
run 1 first 256
same_state first/state.h5 ck/state.h5
"$PY" - <<'PY' || fail "ck/spikes.h5 (the checkpoint's) is not the spikes of the first 256 steps"
import h5py, numpy as np
a, b = (h5py.File(f"{d}/spikes.h5")["spikes/io"] for d in ("first", "ck"))
assert len(a["timestamps"]) > 0
for k in ("timestamps", "node_ids"):
    assert np.array_equal(a[k][:], b[k][:]), k
PY
same ref first r1
same ref first r3

# ---- a 1-rank checkpoint resumed on 2 ranks, in place: OUTDIR keeps its
# state.h5 until a newer checkpoint replaces it (--force)
cp -r ck inplace
run 2 inplace 600 --restart inplace/state.h5 --checkpoint-every 100 --force
same ref first inplace
[ "$(attr inplace/state.h5 state kind)" = final ] || fail "inplace/state.h5 is not the final state"
! compgen -G "inplace/*.tmp-*" >/dev/null || fail "temporary files left in inplace"

# a pulse every 100 ms (200 s of them), so that the resumed parts below spike too
"$PY" - <<'PY'
import h5py, numpy as np
s = np.arange(30, 200000, 100.0)
with h5py.File("stim.h5", "w") as f:
    f.attrs["format"] = "olive-stimulus"; f.attrs["format_version"] = 1
    f["pulses/start_ms"] = s; f["pulses/stop_ms"] = s + 5; f["pulses/amplitude"] = np.full(len(s), 6.0)
PY
PULSES+=(--stimulus stim.h5)

# ---- SIGTERM: one rank of two signalled (as SLURM signals every task, any one
# suffices); both stop at the same 256-step boundary, write the output so far
# and exit 143; the run resumes from its state.h5 on 1 rank
mpirun -np 2 --oversubscribe "$S" net.h5 -o killed --steps 2000000 "${PULSES[@]}" "${REC[@]}" \
  --checkpoint-every 1000 >killed.out 2>killed.err &
mp=$!
for _ in $(seq 600); do [ -e killed/state.h5 ] && break; sleep 0.1; done
[ -e killed/state.h5 ] || { kill -TERM $mp; fail "no checkpoint after 60 s"; }
rank1=$(ps --ppid $mp -o pid=,comm= | awk '$2 == "olive-simulate" {print $1}' | sed -n 2p)
[ -n "$rank1" ] || { kill -TERM $mp; fail "rank 1 not found"; }
kill -TERM "$rank1"
rc=0; wait $mp || rc=$?
[ "$rc" -ne 0 ] || fail "mpirun exited 0 after SIGTERM"
grep -q "Exit code: *143" killed.err || { cat killed.err; fail "the ranks did not exit with 143"; }
grep -q "stopped by SIGTERM after step [0-9]*.*--restart killed/state.h5" killed.err ||
  { cat killed.err; fail "no stop message"; }
k=$(attr killed/state.h5 state step)
[ "$(attr killed/state.h5 state kind)" = interrupted ] || fail "killed/state.h5 kind is not interrupted"
[ $((k % 256)) -eq 0 ] && [ "$k" -gt 1000 ] && [ "$k" -lt 2000000 ] || fail "stopped at step $k"
[ "$(attr killed/spikes.h5 / end_step)" = "$k" ] || fail "killed/spikes.h5 does not end at step $k"
[ -f killed/v_axon.h5 ] && ! compgen -G "killed/*.tmp-*" >/dev/null || fail "killed/ is not complete"
echo "ok: SIGTERM to rank 1 stopped both at step $k: $(grep stopped killed.err)"
end=$((k + 4000))   # two stimulus periods: the resumed part always spikes
run 1 resumed "$end" --restart killed/state.h5
run 1 unbroken "$end"
same unbroken killed resumed

# ---- SIGTERM to a single process, then resumed on 2 ranks
"$S" net.h5 -o killed1 --steps 2000000 "${PULSES[@]}" "${REC[@]}" >k1.out 2>k1.err &
pid=$!
for _ in $(seq 600); do compgen -G "killed1.tmp-$pid-*" >/dev/null && break; sleep 0.1; done
sleep 0.5
kill -TERM $pid
rc=0; wait $pid || rc=$?
[ "$rc" -eq 143 ] || { cat k1.err; fail "exit status $rc after SIGTERM (143 expected)"; }
k=$(attr killed1/state.h5 state step)
end=$((k + 4000))   # two stimulus periods: the resumed part always spikes
run 2 resumed1 "$end" --restart killed1/state.h5
run 1 unbroken1 "$end"
same unbroken1 killed1 resumed1

# ---- state files that do not fit are refused before any work, with no output
no_output() { [ ! -e "$1" ] && ! compgen -G "$1.tmp-*" >/dev/null || fail "$1 left behind"; }
refused() {  # REGEX ARGS... (run as olive-simulate net.h5 -o bad ARGS)
  local re=$1 rc=0; shift
  "$S" net.h5 -o bad "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || { cat err.txt; fail "accepted or crashed ($rc): $*"; }
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "message does not match /$re/: $*"; }
  no_output bad
  echo "ok refused $*: $(head -n 1 err.txt)"
}
"$PY" - <<'PY'
import h5py, numpy as np, shutil
for name, change in [("nan", lambda f: f["state/v_soma"].__setitem__(7, np.nan)),
                     ("nostep", lambda f: f["state"].attrs.__delitem__("step")),
                     ("short", lambda f: (f["state"].__delitem__("ca"), f["state"].create_dataset("ca", data=np.zeros(300)))),
                     ("missing", lambda f: f["state"].__delitem__("m_a")),
                     ("int", lambda f: (f["state"].__delitem__("q"), f["state"].create_dataset("q", data=np.zeros(301, "i8")))),
                     ("sgj", lambda f: f.attrs.__setitem__("gj", "sgj")),
                     ("crc", lambda f: f.attrs.__setitem__("network_crc", 12345)),
                     ("nosum", lambda f: f["state"].attrs.__delitem__("checksum")),
                     ("changed", lambda f: f["state/ca"].__setitem__(3, f["state/ca"][3] * (1 + 1e-15)))]:
    shutil.copy("first/state.h5", f"{name}.h5")
    with h5py.File(f"{name}.h5", "a") as f:
        change(f)
PY
"$BIN/olive-genconn" -o other.h5 --cells 301 --generator uniform --density 12 --seed 4 >/dev/null
"$BIN/olive-genconn" -o small.h5 --cells 300 --generator uniform --density 12 --seed 3 >/dev/null
refused 'nosuch\.h5.*no such file' --steps 600 --restart nosuch.h5
refused 'net\.h5.*not an olive state file' --steps 600 --restart net.h5
refused 'nan\.h5.*v_soma of cell 7 is not finite' --steps 600 --restart nan.h5
refused "nostep\.h5.*'step' is missing" --steps 600 --restart nostep.h5
refused 'short\.h5.*/state/ca has 300 values for 301 cells' --steps 600 --restart short.h5
refused 'missing\.h5.*/state/m_a is missing' --steps 600 --restart missing.h5
refused 'int\.h5.*/state/q is not float64' --steps 600 --restart int.h5
refused 'sgj\.h5.*--gj sgj.*--gj rgj' --steps 600 --restart sgj.h5
refused 'crc\.h5.*another network' --steps 600 --restart crc.h5
refused "nosum\.h5: /state has no 'checksum' attribute" --steps 600 --restart nosum.h5
refused "changed\.h5: /state checksum [0-9a-f]* does not match the file's contents" --steps 600 --restart changed.h5
# byte flips (most inside the data, with and without the noise current) are
# refused naming the copy, or change nothing: never another run with exit 0
run 1 noisy 256 --noise 0,0.1,5
run 1 flipref 300 --restart first/state.h5
run 1 noisyref 300 --restart noisy/state.h5 --noise 0,0.1,5
if [ "$SANITIZED" = 1 ]; then nflip=(4 2); else nflip=(12 6); fi
"$PY" "$TESTS/flip_state.py" first/state.h5 flipref "${nflip[@]}" -- "$S" net.h5 -o {out} --steps 300 "${PULSES[@]}" \
  "${REC[@]}" --restart {state} || fail "byte flips in first/state.h5"
"$PY" "$TESTS/flip_state.py" noisy/state.h5 noisyref "${nflip[@]}" -- "$S" net.h5 -o {out} --steps 300 "${PULSES[@]}" \
  "${REC[@]}" --noise 0,0.1,5 --restart {state} || fail "byte flips in noisy/state.h5"
refused 'first/state\.h5.*in double precision.*single' --steps 600 --restart first/state.h5 --precision single
refused 'first/state\.h5.*step 256.*ends at step 256' --steps 256 --restart first/state.h5
refused 'first/state\.h5.*step 256.*ends at step 100' --time 5 --restart first/state.h5
rc=0; "$S" other.h5 -o bad --steps 600 --restart first/state.h5 2>err.txt || rc=$?
[ "$rc" -ne 0 ] && grep -q "first/state.h5.*another network" err.txt || { cat err.txt; fail "another network accepted"; }
no_output bad
rc=0; "$S" small.h5 -o bad --steps 600 --restart first/state.h5 2>err.txt || rc=$?
[ "$rc" -ne 0 ] && grep -q "first/state.h5: the state has 301 cells.*300" err.txt || { cat err.txt; fail "cell count"; }
no_output bad
rc=0; mpirun -np 2 --oversubscribe "$S" net.h5 -o bad --steps 600 --restart nan.h5 2>err.txt || rc=$?
[ "$rc" -ne 0 ] && grep -q "nan.h5: /state/v_soma of cell 7 is not finite" err.txt || { cat err.txt; fail "np 2: nan state"; }
no_output bad
echo "checkpoint/restart: bit-identical on 1, 2 and 3 ranks, SIGTERM resumed, non-finite keeps the checkpoint, bad states refused"

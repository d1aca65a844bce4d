#!/usr/bin/env bash
# Provenance longer than HDF5's 64 KiB attribute header: a run with 3,500
# --param options (a sweep's generated command) succeeds, spikes.h5 keeps the
# whole command (the files use HDF5 1.8's format: such an attribute goes to
# dense storage), and olive-analyze and olive.read_run read the run.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
"$BIN/olive-genconn" -q -o net.h5 --model lif_cuba --population e:40 --population i:10 --seed 1 \
  --projection from=e,to=all,p=0.1,weight=1,delay=1,receptor=ge
args=()
for k in $(seq 3500); do args+=(--param "e.tau_m=$((10 + k % 7))"); done
"$BIN/olive-simulate" net.h5 -o run --steps 50 -q "${args[@]}" 2> err.txt || { cat err.txt; fail "3500 --param options refused"; }
"$PY" - <<'PY'
import h5py
with h5py.File("run/spikes.h5") as f:
    c = f.attrs["command"]
    c = c.decode() if isinstance(c, bytes) else c
assert c.count("--param") == 3500 and len(c) > 65536, (c.count("--param"), len(c))
print(f"ok command attribute: {len(c)} characters, 3500 --param options")
PY
"$BIN/olive-analyze" summary run > sum.txt || fail "olive-analyze summary of the run"
grep -q "^command  *.*--param e.tau_m" sum.txt || { cat sum.txt; fail "summary: no command"; }
PYTHONPATH="$TOP/python" "$PY" -c "import olive; r = olive.read_run('run'); assert r.provenance['command'].count('--param') == 3500" \
  || fail "olive.read_run of the run"
# olive-genconn keeps its whole command in the network file too (it was cut at 1023 characters)
gargs=()
for k in $(seq 200); do gargs+=(--param "tau_m=$((10 + k % 7))"); done
"$BIN/olive-genconn" -q -o long.h5 --model lif_cuba --population e:10 "${gargs[@]}" || fail "olive-genconn with 200 --param"
"$PY" - <<'PY'
import h5py
with h5py.File("long.h5") as f:
    found = []
    f.visititems(lambda n, o: found.append(o.attrs["command"]) if "command" in o.attrs else None)
    found += [f.attrs["command"]] if "command" in f.attrs else []
c = [x.decode() if isinstance(x, bytes) else x for x in found]
assert c and max(x.count("--param") for x in c) == 200 and max(map(len, c)) > 3000, [len(x) for x in c]
print(f"ok network file: the command of {max(map(len, c))} characters kept whole")
PY
echo "test_long_provenance: ok"

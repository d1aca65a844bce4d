#!/usr/bin/env bash
# Inputs that used to be accepted, block or crash, each refused
# with a message naming the file and the fault, a non-zero exit that is not a
# signal, and no output left behind:
#  - a FIFO (or a directory) given as network, map, stimulus, restart state,
#    import file or spike file: refused at once, not blocking in open();
#  - stimulus-file pulses beyond the limits --pulse applies (stop 1e300,
#    amplitude 1e9, a negative first cell);
#  - a spike file whose 'cells' attribute would wrap the per-cell count array
#    (an ASan heap overflow in `rates`; the sanitizer pass runs this too);
#  - olive-disperse on a tiny file that declares 2^31-1 cells: refused by the
#    memory check instead of running into the OOM killer.
# Also what must work: SONATA's enum `sorting` is read by olive-analyze; a
# report of another population beside a bare spike file is not used for its
# duration; sync's spike coincidence covers the report's cells and frames.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" D="$BIN/olive-disperse" S="$BIN/olive-simulate" A="$BIN/olive-analyze"

no_output() {  # PATH: neither PATH nor PATH.tmp-* exists
  [ ! -e "$1" ] || fail "$1 was left behind"
  ! compgen -G "$1.tmp-*" >/dev/null || fail "$(compgen -G "$1.tmp-*") was left behind"
}
# refused NAME REGEX CMD...: fails within 20 s (a blocking open() is a
# failure too), not by a signal, and stderr matches REGEX
refused() {
  local name=$1 re=$2 rc=0; shift 2
  timeout 20 "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 124 ] || fail "$name: still running after 20 s (blocked?): $*"
  [ "$rc" -ne 0 ] || { cat out.txt err.txt; fail "$name: accepted: $*"; }
  [ "$rc" -lt 128 ] || { cat err.txt; fail "$name: killed by a signal (exit $rc): $*"; }
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "$name: stderr does not match /$re/"; }
  echo "ok $name: $(head -n 1 err.txt)"
}

"$G" -o net.h5 --cells 64 --generator uniform --density 6 --seed 3 --gcal 0.6:0.8 >/dev/null
"$D" net.h5 --ranks 2 -o map.h5 >/dev/null
"$S" net.h5 -o run --steps 1000 --record v_axon,v_dend --pulse 5:30:6:0:40 >/dev/null
[ "$("$A" summary run --csv | sed -n 's/^spikes,//p')" -gt 0 ] || fail "the reference run has no spikes"

# --- FIFOs and directories are not input files ---
mkfifo fifo.h5
refused "fifo network" 'fifo\.h5.*not a regular file' "$S" fifo.h5 -o o1 --steps 5
no_output o1
refused "fifo map" 'fifo\.h5.*not a regular file' "$S" net.h5 --map fifo.h5 -o o2 --steps 5
no_output o2
refused "fifo stimulus" 'fifo\.h5.*not a regular file' "$S" net.h5 --stimulus fifo.h5 -o o3 --steps 5
no_output o3
refused "fifo restart" 'fifo\.h5.*not a regular file' "$S" net.h5 --restart fifo.h5 -o o4 --steps 5
no_output o4
refused "fifo disperse" 'fifo\.h5.*not a regular file' "$D" fifo.h5 --ranks 2 -o m2.h5
no_output m2.h5
refused "fifo import" 'fifo\.h5.*not a regular file' "$G" -o i.h5 --import fifo.h5 --import-format edges
no_output i.h5
refused "fifo spikes" 'fifo\.h5.*not a regular file' "$A" summary fifo.h5
refused "directory network" 'run.*directory' "$S" run -o o5 --steps 5
no_output o5

# --- SWC morphologies and SONATA edge-types files ---
# A FIFO or a device as either is refused at once (it blocked in open() or
# never ended); an empty edge-types file is not "no types"; an SWC comment
# line of any length is read past, and a fault is reported at its own line;
# a tree of 200,000 nested sections (400,003 points) loads without a crash
# (sections were built recursively: a stack overflow), with a stack of 8 MiB.
# The time bound is generous, a smoke check only: the quadratic reading took
# minutes on 400k points; its time is not asserted here.
hh=(--model hh_swc --cells 1 --force)
refused "fifo morphology" 'fifo\.h5.*not a regular file' "$G" -o sw.h5 "${hh[@]}" --morphology fifo.h5
refused "device morphology" '/dev/zero.*not a regular file' "$G" -o sw.h5 "${hh[@]}" --morphology /dev/zero
types=(-o et.h5 --model lif_cuba --cells 10 --import-synapses net.h5 --import-edge-types)
refused "fifo edge types" 'fifo\.h5.*not a regular file' "$G" "${types[@]}" fifo.h5
refused "device edge types" '/dev/zero.*not a regular file' "$G" "${types[@]}" /dev/zero
: > empty_types.csv
refused "empty edge types" 'empty_types\.csv: the edge types file is empty' "$G" "${types[@]}" empty_types.csv
printf 'edge_type_id syn_weight\n' > header_types.csv
refused "header-only edge types" 'header_types\.csv: no edge types' "$G" "${types[@]}" header_types.csv
printf 'edge_type_id syn_weight\n1 0.5\n1 0.7\n' > twice_types.csv
refused "edge type given twice" 'twice_types\.csv: line 3: edge_type_id 1 is given twice' "$G" "${types[@]}" twice_types.csv
printf 'edge_type_id syn_weight\n1 %05000d\n' 0 > long_types.csv
refused "long edge-types line" 'long_types\.csv: line 2: longer than 4094 characters' "$G" "${types[@]}" long_types.csv
no_output sw.h5; no_output et.h5
long=$(printf '%02000d' 0)
printf '%s\n' "# $long" "1 1 0 0 0 5 -1 # $long" "2 3 0 10 0 1 1" "3 3 0 20 0 1 2" > comment.swc
"$G" -q -o sw.h5 "${hh[@]}" --morphology comment.swc || fail "an SWC file with long comment lines refused"
printf '%s\n' "# $long" "1 1 0 0 0 5 -1" "2 3 0 10 0 1" > badline.swc
refused "SWC fault after a long comment" 'badline\.swc:3: expected' "$G" -o sw1.h5 "${hh[@]}" --morphology badline.swc
printf '%s\n' "# $long" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1 ${long//0/ } 7" > longline.swc
refused "long SWC point line" 'longline\.swc:3: longer than 1023 characters' "$G" -o sw1.h5 "${hh[@]}" --morphology longline.swc
no_output sw1.h5
awk 'BEGIN { print "1 1 0 0 0 5 -1"; print "2 3 0 1 0 1 1"; print "3 3 0 2 0 1 2"; p = 3
             for (k = 0; k < 200000; k++) { print 4 + 2 * k, 3, 0, k + 3, 0, 1, p; print 5 + 2 * k, 3, 1, k + 3, 0, 1, p; p = 4 + 2 * k } }' > deep.swc
( ulimit -s 8192; timeout 120 "$G" -q -o deep.h5 "${hh[@]}" --morphology deep.swc ) || fail "a 200,000-deep SWC tree: exit $?"
( ulimit -s 8192; timeout 120 "$S" deep.h5 -o deep_run --steps 2 >/dev/null ) || fail "olive-simulate on a 200,000-deep SWC tree: exit $?"

# --- stimulus files get the limits of --pulse ---
stim() {  # FILE START STOP AMP [FIRST LAST]
  "$PY" - "$@" <<'EOF'
import sys, h5py, numpy as np
path, start, stop, amp = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
with h5py.File(path, "w") as f:
    f.attrs["format"] = "olive-stimulus"; f.attrs["format_version"] = np.int64(1)
    g = f.create_group("pulses")
    g["start_ms"] = [start]; g["stop_ms"] = [stop]; g["amplitude"] = [amp]
    if len(sys.argv) > 5:
        g["first_cell"] = np.array([int(sys.argv[5])], np.int64); g["last_cell"] = np.array([int(sys.argv[6])], np.int64)
EOF
}
stim huge_stop.h5 1 1e300 6
refused "stimulus stop 1e300" 'huge_stop\.h5: pulse 0: .*stop_ms 1e\+300' "$S" net.h5 --stimulus huge_stop.h5 -o o6 --steps 5
no_output o6
stim huge_amp.h5 1 2 1e9
refused "stimulus amplitude 1e9" 'huge_amp\.h5: pulse 0: amplitude 1e\+09' "$S" net.h5 --stimulus huge_amp.h5 -o o7 --steps 5
no_output o7
stim neg_first.h5 1 2 6 -3 5
refused "stimulus first cell -3" 'neg_first\.h5: pulse 0: cells \[-3, 5\)' "$S" net.h5 --stimulus neg_first.h5 -o o8 --steps 5
no_output o8
stim fine.h5 5 30 6 0 40
"$S" net.h5 --stimulus fine.h5 -o o9 --steps 1000 >/dev/null || fail "a valid stimulus file refused"
"$A" compare o9/spikes.h5 run/spikes.h5 >/dev/null || fail "the stimulus file and --pulse 5:30:6:0:40 differ"

# --- a spike file whose 'cells' would wrap the count array (ASan heap overflow) ---
"$PY" - <<'EOF'
import h5py, numpy as np
with h5py.File("wrap.h5", "w") as f:
    f.attrs["cells"] = np.int64(1 << 61)   # x 8 bytes = 2^64: wraps to 0
    g = f.create_group("spikes/io")
    g["timestamps"] = np.array([1.0, 2.0]); g["node_ids"] = np.array([0, 3], np.uint64)
EOF
refused "rates cells 2^61" 'wrap\.h5: 2305843009213693952 cells .*too many' "$A" rates wrap.h5
refused "summary cells 2^61" 'wrap\.h5: 2305843009213693952 cells .*too many' "$A" summary wrap.h5

# --- olive-disperse checks the memory a file declares before reading it ---
"$PY" - <<'EOF'
import h5py, numpy as np
n = (1 << 31) - 1
with h5py.File("huge.h5", "w") as f:
    f.attrs["format"] = "olive-network"; f.attrs["format_version"] = np.int64(1)
    c = f.create_group("cells"); c.attrs["count"] = np.int64(n); c.attrs["dims"] = np.array([n, 1, 1], np.int64)
    g = f.create_group("gap_junctions")
    for k, v in dict(bits=np.int64(0), offset=0.04, scale=0.0).items(): g.attrs[k] = v
    g.create_dataset("row_ptr", shape=(n + 1,), dtype=np.int64, chunks=(1 << 20,), compression="gzip", fillvalue=0)
    g.create_dataset("col", shape=(0,), dtype=np.int32)
EOF
[ "$(stat -c %s huge.h5)" -lt 2000000 ] || fail "huge.h5 is not small"
refused "disperse 2^31-1 cells" 'not enough memory: huge\.h5 \(2147483647 cells, 0 junctions\) needs about [0-9.]+ GiB, but only 1 GiB' \
  env OLIVE_MEMAVAILABLE=1G "$D" huge.h5 --ranks 2 -o hm.h5
no_output hm.h5
OLIVE_MEMAVAILABLE=1G "$D" net.h5 --ranks 2 -o m3.h5 --force >/dev/null || fail "a small network refused by the memory check"

# --- SONATA's enum sorting is read; populations are not mixed ---
"$PY" - <<'EOF'
import h5py, numpy as np, os
enum = h5py.enum_dtype({"none": 0, "by_id": 1, "by_time": 2}, basetype=np.uint8)
os.makedirs("spec", exist_ok=True)
with h5py.File("spec/spikes.h5", "w") as f:
    g = f.create_group("spikes/io")
    g.attrs.create("sorting", 1, dtype=enum)
    g["timestamps"] = np.array([5.0, 1.0, 3.0]); g["timestamps"].attrs["units"] = "ms"
    g["node_ids"] = np.array([0, 2, 2], np.uint64)
# a report of another population, lying in the same folder
with h5py.File("spec/v_axon.h5", "w") as f:
    m = f.create_group("report/other/mapping")
    m["node_ids"] = np.arange(50, dtype=np.uint64); m["time"] = np.array([0.0, 1000.0, 1.0])
    f["report/other/data"] = np.zeros((1000, 50), np.float32)
EOF
"$A" summary spec --csv > spec.csv || fail "summary refused a spike file with enum sorting"
grep -qx 'sorting,by_id' spec.csv || { cat spec.csv; fail "enum sorting not read as by_id"; }
grep -qx 'cells,3' spec.csv || { cat spec.csv; fail "cells taken from another population's report"; }
grep -qx 'duration_ms,5' spec.csv || { cat spec.csv; fail "duration taken from another population's report"; }

# --- sync: the spike coincidence covers the report's cells and frames ---
"$S" net.h5 -o part --steps 1000 --record v_dend --record-cells 0:16 --pulse 5:30:6:0:40 >/dev/null
"$A" sync part --csv > part.csv
"$PY" - <<'EOF'
import h5py, numpy as np
with h5py.File("part/spikes.h5", "r") as f:
    n = f["spikes/io/node_ids"][:]; t = f["spikes/io/timestamps"][:]
want = int(np.sum(n < 16))
got = dict(l.strip().split(",", 1) for l in open("part.csv") if "," in l)
assert int(got["spikes"]) == want, (got["spikes"], want, len(n))
assert want < len(n), "every spike is in cells 0..15: the test would not tell"
print("sync spikes", want, "of", len(n))
EOF
echo "bad inputs refused, good ones read"

# --- a restart continues the network it was computed on: same structure but
# other conductances, or other g_CaL, is refused (the structure checksum
# alone accepted both, and g_CaL was silently taken from the state) ---
"$G" -o c1.h5 --cells 64 --generator uniform --density 6 --seed 3 --conductance 0.02:0.06 --conductance-bits 8 --gcal 0.6:0.8 >/dev/null
"$G" -o c2.h5 --cells 64 --generator uniform --density 6 --seed 3 --conductance 0.02:0.08 --conductance-bits 8 --gcal 0.6:0.8 >/dev/null
"$G" -o c3.h5 --cells 64 --generator uniform --density 6 --seed 3 --conductance 0.02:0.06 --conductance-bits 8 --gcal 0.7:0.9 >/dev/null
"$S" c1.h5 -o first --steps 100 >/dev/null
refused "restart, other conductances" "first/state\.h5: the state belongs to a network with other conductances or g_CaL than c2\.h5" \
  "$S" c2.h5 --restart first/state.h5 -o r2 --steps 200
no_output r2
refused "restart, other g_CaL" "first/state\.h5: the state belongs to a network with other conductances or g_CaL than c3\.h5" \
  "$S" c3.h5 --restart first/state.h5 -o r3 --steps 200
no_output r3
# a state without the hash (older olive): g_CaL still checked, cell by cell
cp first/state.h5 old.h5
"$PY" -c "import h5py; f = h5py.File('old.h5', 'r+'); del f.attrs['network_content_hash']"
refused "restart, other g_CaL, old state" "old\.h5: the state's g_CaL of cell 0 differs from the network's in c3\.h5" \
  "$S" c3.h5 --restart old.h5 -o r4 --steps 200
"$S" c1.h5 --restart first/state.h5 -o r1 --steps 200 >/dev/null || fail "the right network refused on restart"
"$S" c1.h5 -o whole --steps 200 >/dev/null
"$A" compare r1/state.h5 whole/state.h5 >/dev/null || fail "restart differs from the unbroken run"
# the hash does not depend on the rank count
mpirun -np 3 --oversubscribe "$S" c1.h5 -o first3 --steps 100 >/dev/null
"$PY" -c "
import h5py
a = h5py.File('first/state.h5')['/'].attrs['network_content_hash']; b = h5py.File('first3/state.h5')['/'].attrs['network_content_hash']
assert a == b, (a, b); print('content hash', hex(a), 'on 1 and 3 ranks')"
echo "restarts checked against the network's content"

# --- the command line: an option given twice, an amplitude of the wrong kind ---
refused "--seed twice" '--seed given twice' "$S" net.h5 -o o30 --steps 5 --seed 1 --seed 2
no_output o30
refused "--record twice" '--record given twice' "$S" net.h5 -o o31 --steps 5 --record v_axon --record v_dend
no_output o31
refused "-o twice" '-o given twice' "$G" -o n30.h5 -o n31.h5 --cells 4 --generator uniform
no_output n30.h5; no_output n31.h5
refused "pA on InfOli" "'50pA' is a current; model infoli takes a current density in uA/cm2" "$S" net.h5 -o o32 --steps 5 --pulse 0:1:50pA
no_output o32
refused "mV noise" "--noise MEAN: '1mV' is a voltage; model infoli takes a current density in uA/cm2" "$S" net.h5 -o o33 --steps 5 --noise 1mV,0,5
no_output o33
refused "amplitude text" "'6 uA' is not a finite number|unknown unit ' uA'" "$S" net.h5 -o o34 --steps 5 --pulse '0:1:6 uA'
no_output o34

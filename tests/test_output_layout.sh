#!/usr/bin/env bash
# The SONATA output of olive-simulate, exactly per docs/SPEC-simulate-output.md,
# checked with h5py: file set per --record (a list, none, all = 19 reports);
# dataset names, dtypes, shapes, units, sorting; mapping/node_ids,
# index_pointers, element_ids, time = (start, stop, step) for --record-every 10
# (also on 3 ranks with --record-cells 11:29 across them, and 9 steps: 0 frames)
# (405 steps: 40 frames, frame k = state after (k+1)*10 steps, compared with an
# every-step run) and --record-cells 5:17; float32 by default = the float64
# report rounded; chunked, deflate only with --compress; state.h5 (19 variables, step, time_ms,
# precision, = the last frame); provenance attributes on every file with the
# run's values; spikes = the upward crossings of the threshold in the report,
# sorted by time then node id (also with --spike-threshold -20 and
# --population); --stimulus FILE = the same --pulse options, bit for bit;
# --no-spikes (no spikes.h5, the rest bit for bit; refused with
# --checkpoint-every); an existing OUTDIR is refused without --force (left untouched) and replaced
# with it; no OUTDIR.tmp-* is left behind.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$PY" "$TESTS/make_network.py" net.h5 --cells 40 --seed 3 --degree 4 --gcal 0.6:0.8 --bits 8
"$PY" "$TESTS/make_network.py" iso.h5 --cells 40
PULSES=(--pulse 1:11:6:0:25 --pulse 3:4:-2:30:40)
run() { "$S" "$@" >/dev/null 2>err.txt || { cat err.txt; fail "olive-simulate $* exited with $?"; }; }

run net.h5 -o sub --steps 405 --gj sgj "${PULSES[@]}" --record v_axon,v_dend,ca --record-every 10 --record-cells 5:17
run net.h5 -o full --steps 405 --gj sgj "${PULSES[@]}" --record v_axon,v_dend,ca --compress
run net.h5 -o dbl --steps 405 --gj sgj "${PULSES[@]}" --record all --record-precision double
run net.h5 -o thr --steps 405 --gj sgj "${PULSES[@]}" --spike-threshold -20 --population olive_io --record v_axon
# a cell range that straddles the ranks of a 3-rank run; fewer steps than K
mpirun -np 3 --oversubscribe "$S" net.h5 -o sub3 --steps 405 --gj sgj "${PULSES[@]}" --record v_axon,ca \
  --record-every 10 --record-cells 11:29 >/dev/null 2>err.txt || { cat err.txt; fail "mpirun -np 3 exited with $?"; }
run net.h5 -o zero --steps 9 --record-every 10 --record v_axon
# ties: identical uncoupled cells pulsed alike spike on the same step; the
# pulse listed first spikes later
run iso.h5 -o none --steps 300 --record none --pulse 2:12:6:0:3 --pulse 1:11:6:30:40 --pulse 1:11:6:5:10

"$PY" - <<'EOF'
import os, h5py, numpy as np
VARS = "v_dend q r s ca i_cah g_cal v_soma m h k l n p x_s v_axon m_a h_a x_a".split()
PROV = ("olive_version command network network_crc map world_size backend precision gj dt steps "
        "cells threads time_setup_s time_exchange_s time_compute_s time_io_s time_total_s").split()
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)
        print("  FAIL:", msg)
def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)
def files(d):
    return sorted(os.listdir(d))

def check_prov(path, steps, gj, cells=40, precision="double", net="net.h5"):
    with h5py.File(path, "r") as f:
        a = f.attrs
        missing = [k for k in PROV if k not in a]
        check(not missing, f"{path}: provenance attributes missing: {missing}")
        if missing:
            return
        check(int(a["steps"]) == steps, f"{path}: steps = {a['steps']}, want {steps}")
        check(int(a["cells"]) == cells, f"{path}: cells = {a['cells']}")
        check(s(a["gj"]) == gj, f"{path}: gj = {a['gj']}")
        check(s(a["precision"]) == precision, f"{path}: precision = {a['precision']}")
        check(float(a["dt"]) == 0.05, f"{path}: dt = {a['dt']}")
        check(int(a["world_size"]) == 1, f"{path}: world_size = {a['world_size']}")
        check(s(a["backend"]) == "cpu", f"{path}: backend = {a['backend']}")
        check(int(a["threads"]) >= 1, f"{path}: threads = {a['threads']}")
        check(s(a["network"]).endswith(net), f"{path}: network = {a['network']}")
        check("olive-simulate" in s(a["command"]) and f"--steps {steps}" in s(a["command"]),
              f"{path}: command = {a['command']}")
        check(len(s(a["olive_version"])) > 0, f"{path}: empty olive_version")
        for k in PROV:
            if k.startswith("time_"):
                check(np.isfinite(float(a[k])) and float(a[k]) >= 0, f"{path}: {k} = {a[k]}")
        check(float(a["time_total_s"]) >= float(a["time_compute_s"]), f"{path}: total < compute time")

def report(path, pop="io"):
    with h5py.File(path, "r") as f:
        g = f[f"report/{pop}"]
        return (g["data"], g["mapping/node_ids"][:], g["mapping/index_pointers"][:],
                g["mapping/element_ids"][:], g["mapping/time"]), f

def check_report(path, frames, ids, t, dtype, pop="io"):
    with h5py.File(path, "r") as f:
        check(list(f.keys()) == ["report"] and list(f["report"].keys()) == [pop],
              f"{path}: top-level groups {list(f.keys())}")
        g = f[f"report/{pop}"]
        d = g["data"]
        m = g["mapping"]
        check(sorted(g.keys()) == ["data", "mapping"], f"{path}: report/{pop} holds {sorted(g.keys())}")
        check(sorted(m.keys()) == ["element_ids", "element_pos", "index_pointer", "index_pointers", "node_ids", "time"],
              f"{path}: mapping holds {sorted(m.keys())}")
        # index_pointer (bmtk's name) is a second link to index_pointers (SONATA's, libsonata's)
        check(h5py.h5o.get_info(m["index_pointer"].id).addr == h5py.h5o.get_info(m["index_pointers"].id).addr,
              f"{path}: index_pointer and index_pointers are two datasets")
        check(m["element_pos"].dtype == np.float32 and np.all(m["element_pos"][:] == 0.5),
              f"{path}: element_pos {m['element_pos'][:]}")
        n = len(ids)
        check(d.dtype == dtype, f"{path}: data dtype {d.dtype}, want {dtype}")
        check(d.shape == (frames, n), f"{path}: data shape {d.shape}, want {(frames, n)}")
        # deflate only with --compress (the "full" run): readers without the filter must open the default
        want = "gzip" if path.startswith("full/") else None
        check(frames == 0 or (d.chunks is not None and d.compression == want), f"{path}: data chunks {d.chunks}, "
              f"compression {d.compression}, want {want}")
        check("units" in d.attrs, f"{path}: data has no units attribute")
        var = os.path.basename(path)[:-3]
        if var.startswith("v_"):
            check(s(d.attrs.get("units", "")) == "mV", f"{path}: units {d.attrs.get('units')}, want mV")
        check(m["node_ids"].dtype == np.uint64 and np.array_equal(m["node_ids"][:], ids),
              f"{path}: node_ids {m['node_ids'].dtype} {m['node_ids'][:]}, want uint64 {ids}")
        check(m["index_pointers"].dtype == np.uint64 and np.array_equal(m["index_pointers"][:], np.arange(n + 1)),
              f"{path}: index_pointers {m['index_pointers'].dtype} {m['index_pointers'][:]}")
        check(m["element_ids"].dtype == np.uint32 and np.array_equal(m["element_ids"][:], np.zeros(n)),
              f"{path}: element_ids {m['element_ids'].dtype} {m['element_ids'][:]}")
        tm = m["time"]
        check(tm.dtype == np.float64 and tm.shape == (3,) and np.allclose(tm[:], t, rtol=0, atol=1e-12),
              f"{path}: mapping/time {tm.dtype} {tm[:]}, want {t}")
        check(s(tm.attrs.get("units", "")) == "ms", f"{path}: mapping/time units {tm.attrs.get('units')}")

def check_spikes(path, pop="io"):
    with h5py.File(path, "r") as f:
        check(list(f.keys()) == ["spikes"] and list(f["spikes"].keys()) == [pop], f"{path}: groups {list(f.keys())}")
        g = f[f"spikes/{pop}"]
        # SONATA's sorting: an enum over uint8 (none 0, by_id 1, by_time 2), value by_time
        sdt = g.attrs.get_id("sorting").dtype
        check(h5py.check_enum_dtype(sdt) == {"none": 0, "by_id": 1, "by_time": 2} and sdt.base == np.uint8
              and int(g.attrs["sorting"]) == 2, f"{path}: sorting = {g.attrs.get('sorting')!r} of type {sdt}")
        ts, ns = g["timestamps"], g["node_ids"]
        check(ts.dtype == np.float64 and ns.dtype == np.uint64, f"{path}: dtypes {ts.dtype} {ns.dtype}")
        check(s(ts.attrs.get("units", "")) == "ms", f"{path}: timestamps units {ts.attrs.get('units')}")
        t, n = ts[:], ns[:]
        check(t.shape == n.shape and t.ndim == 1, f"{path}: shapes {t.shape} {n.shape}")
        order = np.lexsort((n, t))
        check(np.array_equal(order, np.arange(len(t))), f"{path}: not sorted by time, then node id")
        return t, n

def crossings(v, thr, v0=-60.0):
    """spikes from an every-step report: V(step i) < thr <= V(step i+1), t = (i+1)*dt"""
    full = np.vstack([np.full((1, v.shape[1]), v0), v])
    i, c = np.nonzero((full[:-1] < thr) & (thr <= full[1:]))
    sp = sorted(zip(i + 1, c))
    return np.array([x[0] for x in sp]) * 0.05, np.array([x[1] for x in sp])

print("== file sets")
check(files("sub") == ["ca.h5", "spikes.h5", "state.h5", "v_axon.h5", "v_dend.h5"], f"sub: {files('sub')}")
check(files("dbl") == sorted([v + ".h5" for v in VARS] + ["spikes.h5", "state.h5"]), f"dbl: {files('dbl')}")
check(len([x for x in files("dbl") if x[:-3] in VARS]) == 19, "--record all: not 19 reports")
check(files("none") == ["spikes.h5", "state.h5"], f"--record none: {files('none')}")
check(not [x for x in os.listdir(".") if ".tmp-" in x], f"temporary output left: {os.listdir('.')}")

print("== reports")
for v in ("v_axon", "v_dend", "ca"):
    check_report(f"sub/{v}.h5", 40, np.arange(5, 17), [0.5, 20.5, 0.5], np.float32)
    check_report(f"full/{v}.h5", 405, np.arange(40), [0.05, 20.3, 0.05], np.float32)
for v in VARS:
    check_report(f"dbl/{v}.h5", 405, np.arange(40), [0.05, 20.3, 0.05], np.float64)
for v in ("v_axon", "ca"):
    check_report(f"sub3/{v}.h5", 40, np.arange(11, 29), [0.5, 20.5, 0.5], np.float32)
check_report("zero/v_axon.h5", 0, np.arange(40), [0.5, 0.5, 0.5], np.float32)
check_report("thr/v_axon.h5", 405, np.arange(40), [0.05, 20.3, 0.05], np.float32, pop="olive_io")

print("== values: every 10 steps, cells 5..16, float32 = rounded float64")
for v in ("v_axon", "v_dend", "ca"):
    sub = h5py.File(f"sub/{v}.h5")["report/io/data"][:]
    full = h5py.File(f"full/{v}.h5")["report/io/data"][:]
    dbl = h5py.File(f"dbl/{v}.h5")["report/io/data"][:]
    check(np.array_equal(full, dbl.astype(np.float32)), f"{v}: float32 report is not the float64 one rounded")
    check(np.array_equal(sub, full[9::10, 5:17][:40]), f"{v}: --record-every 10 frame k is not the state "
          "after (k+1)*10 steps (or --record-cells 5:17 picks other cells)")
    check(np.ptp(dbl) > 1e-3, f"{v}: constant report")
    if v != "v_dend":
        sub3 = h5py.File(f"sub3/{v}.h5")["report/io/data"][:]
        check(np.array_equal(sub3, full[9::10, 11:29][:40]), f"{v}: 3 ranks, --record-cells 11:29 every 10: "
              "wrong values")
thr = h5py.File("thr/v_axon.h5")["report/olive_io/data"][:]
check(np.array_equal(thr, h5py.File("full/v_axon.h5")["report/io/data"][:]),
      "--spike-threshold/--population changed the report values")

print("== state.h5")
for d, prec, dt in (("dbl", "double", np.float64), ("none", "double", np.float64)):
    steps = 405 if d == "dbl" else 300
    with h5py.File(f"{d}/state.h5") as f:
        check(sorted(f["state"].keys()) == sorted(VARS), f"{d}/state.h5: /state holds {sorted(f['state'].keys())}")
        a = f["state"].attrs
        check(int(a.get("step", -1)) == steps, f"{d}/state.h5: step = {a.get('step')}")
        check(abs(float(a.get("time_ms", -1)) - steps * 0.05) < 1e-9, f"{d}/state.h5: time_ms = {a.get('time_ms')}")
        check(s(a.get("precision", "")) == prec, f"{d}/state.h5: precision = {a.get('precision')}")
        for v in VARS:
            x = f[f"state/{v}"]
            check(x.dtype == dt and x.shape == (40,), f"{d}/state.h5: {v} {x.dtype} {x.shape}")
            if d == "dbl":
                last = h5py.File(f"dbl/{v}.h5")["report/io/data"][-1]
                check(np.array_equal(x[:], last), f"state/{v} is not the last frame of the report")
gcal = h5py.File("net.h5")["cells/g_CaL"][:]
check(np.array_equal(h5py.File("dbl/state.h5")["state/g_cal"][:], gcal), "state g_cal is not the network's g_CaL")
check(np.all(h5py.File("none/state.h5")["state/g_cal"][:] == 0.68), "default g_CaL is not 0.68")

print("== spikes")
t, n = check_spikes("dbl/spikes.h5")
wt, wn = crossings(h5py.File("dbl/v_axon.h5")["report/io/data"][:], 0.0)
check(len(t) >= 10, f"only {len(t)} spikes: weak test")
check(np.array_equal(n, wn) and np.allclose(t, wt, rtol=0, atol=1e-9),
      f"spikes.h5 ({len(t)}) != upward crossings of 0 mV in the report ({len(wt)})")
t2, n2 = check_spikes("thr/spikes.h5", pop="olive_io")
wt, wn = crossings(h5py.File("dbl/v_axon.h5")["report/io/data"][:], -20.0)
check(np.array_equal(n2, wn) and np.allclose(t2, wt, rtol=0, atol=1e-9),
      "--spike-threshold -20: spikes != crossings of -20 mV in the report")
check(len(t2) > 0 and t2[0] < t[0], "threshold -20 should fire earlier than 0")
t3, n3 = check_spikes("none/spikes.h5")
check(list(n3) == [5, 6, 7, 8, 9, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 0, 1, 2]
      and len(set(t3[:15])) == 1 and len(set(t3[15:])) == 1 and t3[15] > t3[0],
      f"ties not sorted by node id (or wrong spikes): {list(zip(t3, n3))}")

print("== provenance")
for v in VARS:
    check_prov(f"dbl/{v}.h5", 405, "sgj")
check_prov("dbl/spikes.h5", 405, "sgj")
check_prov("dbl/state.h5", 405, "sgj")
check_prov("sub/v_axon.h5", 405, "sgj")
with h5py.File("sub3/v_axon.h5") as f:
    check(int(f.attrs.get("world_size", 0)) == 3, f"sub3: world_size = {f.attrs.get('world_size')}")
check_prov("none/spikes.h5", 300, "rgj", net="iso.h5")
check_prov("none/state.h5", 300, "rgj", net="iso.h5")

if errors:
    raise SystemExit(f"{len(errors)} layout errors")
print("layout ok")
EOF

# --stimulus FILE gives exactly the result of the equivalent --pulse options
"$PY" - <<'EOF'
import h5py, numpy as np
def stim(path, rows, ranges=True):
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "olive-stimulus"
        f.attrs["format_version"] = np.int64(1)
        g = f.create_group("pulses")
        r = np.array(rows, dtype=np.float64).reshape(-1, 5)
        g["start_ms"], g["stop_ms"], g["amplitude"] = r[:, 0], r[:, 1], r[:, 2]
        if ranges:
            g["first_cell"] = r[:, 3].astype(np.int64)
            g["last_cell"] = r[:, 4].astype(np.int64)
stim("stim.h5", [(1, 11, 6, 0, 25), (3, 4, -2, 30, 40), (12, 13.5, 3.5, 0, 40)])
stim("stim-all.h5", [(1, 11, 6, 0, 0), (14, 15.25, -1.5, 0, 0)], ranges=False)
EOF
run net.h5 -o by-pulse --steps 405 "${PULSES[@]}" --pulse 12:13.5:3.5 --record v_axon,v_dend --record-precision double
run net.h5 -o by-file --steps 405 --stimulus stim.h5 --record v_axon,v_dend --record-precision double
run net.h5 -o by-pulse2 --steps 405 --pulse 1:11:6 --pulse 14:15.25:-1.5 --record v_axon --record-precision double
run net.h5 -o by-file2 --steps 405 --stimulus stim-all.h5 --record v_axon --record-precision double
"$PY" - <<'EOF'
import h5py, numpy as np
for a, b, vs in (("by-pulse", "by-file", ("v_axon", "v_dend")), ("by-pulse2", "by-file2", ("v_axon",))):
    for v in vs:
        x = h5py.File(f"{a}/{v}.h5")["report/io/data"][:]
        y = h5py.File(f"{b}/{v}.h5")["report/io/data"][:]
        assert x.shape == y.shape == (405, 40) and np.array_equal(x, y), f"{b}/{v}: --stimulus differs from --pulse"
    x = h5py.File(f"{a}/spikes.h5")["spikes/io"]; y = h5py.File(f"{b}/spikes.h5")["spikes/io"]
    assert np.array_equal(x["timestamps"][:], y["timestamps"][:]) and np.array_equal(x["node_ids"][:], y["node_ids"][:])
    assert len(x["timestamps"]) > 0, f"{a}: no spikes, weak comparison"
EOF
run net.h5 -o no-third --steps 405 "${PULSES[@]}" --record v_dend --record-precision double
"$PY" -c "
import h5py, numpy as np
a = h5py.File('by-file/v_dend.h5')['report/io/data'][:]; b = h5py.File('no-third/v_dend.h5')['report/io/data'][:]
assert np.array_equal(a[:240], b[:240]), 'a pulse starting at step 240 changed frames before 240'
assert np.abs(a[240:] - b[240:]).max() > 0.1, 'the third stimulus pulse had no effect'
print('stimulus file = --pulse options')
"

# --no-spikes: no spikes.h5, everything else as without it (the report and
# state.h5 bit for bit); a replaced OUTDIR keeps no older spikes.h5; refused
# with --checkpoint-every (its directory would keep an older spikes.h5)
run net.h5 -o withsp --steps 405 --gj sgj "${PULSES[@]}" --record v_axon
run net.h5 -o nosp --steps 405 --gj sgj "${PULSES[@]}" --record v_axon --no-spikes
"$PY" - <<'EOF'
import os, h5py, numpy as np
assert sorted(os.listdir("nosp")) == ["state.h5", "v_axon.h5"], f"--no-spikes: {sorted(os.listdir('nosp'))}"
a, b = h5py.File("withsp/state.h5"), h5py.File("nosp/state.h5")
for k in a["state"]:
    assert np.array_equal(a["state"][k][:], b["state"][k][:]), f"--no-spikes: state {k} differs"
assert len(a["state"]) == 19
x, y = h5py.File("withsp/v_axon.h5")["report/io/data"][:], h5py.File("nosp/v_axon.h5")["report/io/data"][:]
assert np.array_equal(x, y), "--no-spikes: the v_axon report differs"
assert len(h5py.File("withsp/spikes.h5")["spikes/io/timestamps"]) > 0, "no spikes in the run: weak check"
print("--no-spikes: no spikes.h5, the report and state bit for bit")
EOF
run net.h5 -o withsp --steps 10 --no-spikes --force
[ ! -e withsp/spikes.h5 ] && [ ! -e withsp/v_axon.h5 ] && [ -f withsp/state.h5 ] || fail "--no-spikes --force: $(ls withsp)"
if "$S" net.h5 -o ckpt --steps 40 --checkpoint-every 10 --no-spikes >/dev/null 2>err.txt; then
  fail "--no-spikes with --checkpoint-every was accepted"; fi
grep -q -- "--no-spikes and --checkpoint-every" err.txt || { cat err.txt; fail "the refusal does not name both options"; }
[ ! -e ckpt ] || fail "the refused run made its OUTDIR"

# existing OUTDIR: refused without --force (untouched); with it, replaced only
# when it is an olive output directory (a user's file in it is never deleted)
mkdir keep && echo marker > keep/marker.txt
if "$S" iso.h5 -o keep --steps 10 >/dev/null 2>err.txt; then fail "an existing OUTDIR was overwritten without --force"; fi
grep -q keep err.txt || { cat err.txt; fail "the refusal does not name the OUTDIR"; }
[ -f keep/marker.txt ] && [ ! -e keep/spikes.h5 ] || fail "the refused run touched the existing OUTDIR"
if "$S" iso.h5 -o keep --steps 10 --force >/dev/null 2>err.txt; then fail "--force replaced a directory holding a user's file"; fi
grep -q "marker.txt" err.txt || { cat err.txt; fail "the --force refusal does not name the user's file"; }
[ -f keep/marker.txt ] && [ ! -e keep/spikes.h5 ] || fail "the refused --force run touched the existing OUTDIR"
rm -r keep
run iso.h5 -o keep --steps 10
cp keep/spikes.h5 keep/previous.h5   # an .h5 file: still an olive output directory
run iso.h5 -o keep --steps 10 --force
[ ! -e keep/previous.h5 ] && [ -f keep/spikes.h5 ] && [ -f keep/state.h5 ] && [ ! -e keep/v_axon.h5 ] \
  || fail "--force did not replace OUTDIR: $(ls keep)"
! ls -d ./*.tmp-* 2>/dev/null || fail "temporary output left behind"
echo "output layout ok"

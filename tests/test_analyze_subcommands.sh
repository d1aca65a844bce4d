#!/usr/bin/env bash
# olive-analyze spikes, rates, isi, sync, compare and plot: on a real
# olive-simulate run (64 coupled cells, the classic pulse) and on h5py-made
# files with known answers. Exit statuses: 0 success / equal, 1 different
# (compare), 2 error.
set -euo pipefail
A="$BIN/olive-analyze"

fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -Eq -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "no line matching /$2/ in $1"; }; }
csv_is() { grep -Fxq -- "$2,$3" "$1" || { echo "--- $1:"; cat "$1"; fail "expected '$2,$3' in $1"; }; }
# status N CMD...: CMD exits with status N (output in out.txt, err.txt).
status() {
  local want=$1 rc=0; shift
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq "$want" ] || { cat out.txt err.txt; fail "exit status $rc, expected $want: $*"; }
}
# fails_with REGEX CMD...: exit 2, stderr matches, nothing on stdout.
fails_with() {
  local re=$1; shift
  status 2 "$@"
  grep -Eq -- "$re" err.txt || { cat err.txt; fail "stderr of '$*' does not match /$re/"; }
  [ ! -s out.txt ] || { cat out.txt; fail "'$*' printed to stdout on error"; }
}

# ---------------------------------------------------------------- a real run
"$BIN/olive-genconn" -o net.h5 --dims 8x8 --generator gaussian --density 4 --sigma 2 --gcal 0.5:1.1 --seed 3 >/dev/null
sim() { "$BIN/olive-simulate" net.h5 --time 1100 "$@" >/dev/null; }
sim -o run5 --pulse 1000:1024.95:6 --record v_axon,v_dend --record-every 5
sim -o run1 --pulse 1000:1024.95:6 --record v_axon --record-every 1 --record-precision double
sim -o runp --pulse 1000:1024.95:5 --record v_axon,v_dend --record-every 5
nspk=$("$PY" -c "import h5py; print(len(h5py.File('run1/spikes.h5')['spikes/io/timestamps']))")
[ "$nspk" -gt 0 ] || fail "the test run has no spikes"

# --- spikes: threshold 0 on an every-step, double-precision report is exactly
#     olive-simulate's own detection ---
"$A" spikes run1 --threshold 0 -o re0.h5 >msg.txt
has msg.txt "^$nspk spikes \(threshold 0 mV, run1/v_axon\.h5\) written to re0\.h5$"
status 0 "$A" compare run1/spikes.h5 re0.h5
"$A" summary re0.h5 --csv >re0.csv
csv_is re0.csv cells 64
csv_is re0.csv duration_ms 1100
csv_is re0.csv sorting by_time
# the table (and CSV) lists the same spikes
"$A" spikes run1 --csv >re0.txt
[ "$(sed 1d re0.txt | wc -l)" -eq "$nspk" ] || fail "spikes --csv printed the wrong number of spikes"
head -n 1 re0.txt | grep -Fxq 'time_ms,node_id' || fail "spikes --csv header"
# other thresholds: exactly the rule's crossings (numpy), fewer at +20 mV and
# none above every peak; every +20 mV spike lies 0..2 ms after a 0 mV spike
"$A" spikes run1 --threshold 20 -o re20.h5 >/dev/null
"$A" spikes run1 --threshold -20 -o rem20.h5 >/dev/null
"$A" spikes run1 --threshold 1000 --csv >none.csv
[ "$(wc -l <none.csv)" -eq 1 ] || fail "spikes above every peak"
"$PY" - <<'EOF'
import h5py, numpy as np
with h5py.File("run1/v_axon.h5") as f:
    v = f["report/io/data"][:]
    start, stop, step = f["report/io/mapping/time"][:]
def expect(thr):
    k, c = np.nonzero((v[:-1] < thr) & (v[1:] >= thr))
    t = (k + 2) * step            # frame k+1 is at (k+2)*step (start = step)
    o = np.lexsort((c, t))
    return t[o], c[o]
def read(p):
    with h5py.File(p) as f:
        return f["spikes/io/timestamps"][:], f["spikes/io/node_ids"][:]
for thr, p in ((20, "re20.h5"), (-20, "rem20.h5"), (0, "re0.h5")):
    t, c = read(p)
    et, ec = expect(thr)
    assert np.array_equal(t, et) and np.array_equal(c, ec), (thr, len(t), len(et))
t0, c0 = read("re0.h5")
t20, c20 = read("re20.h5")
assert 0 < len(t20) < len(t0), (len(t20), len(t0))
for t, c in zip(t20, c20):
    d = t - t0[c0 == c]
    assert ((d >= 0) & (d <= 2)).any(), (t, c)
print("spikes: re-detection matches numpy;", len(t0), "at 0 mV,", len(t20), "at +20 mV")
EOF
# coarse recording: frame times (multiples of 0.25 ms); every frame crossing
# has a real spike of the cell less than one frame before it (a fast doublet
# may fall between two frames and count once)
"$A" spikes run5 --csv >re5.csv
"$PY" - <<'EOF'
import csv, h5py, numpy as np
rows = list(csv.DictReader(open("re5.csv")))
t = np.array([float(r["time_ms"]) for r in rows]); c = np.array([int(r["node_id"]) for r in rows])
with h5py.File("run5/spikes.h5") as f:
    st, sc = f["spikes/io/timestamps"][:], f["spikes/io/node_ids"][:]
assert np.allclose(t / 0.25, np.round(t / 0.25))
assert 0 < len(t) <= len(st)
for ti, ci in zip(t, c):
    d = ti - st[sc == ci]
    assert ((d >= 0) & (d < 0.25)).any(), (ti, ci)
EOF
fails_with 're0\.h5 exists; use --force' "$A" spikes run1 -o re0.h5
"$A" spikes run1 --threshold 20 -o re0.h5 --force >/dev/null
status 1 "$A" compare run1/spikes.h5 re0.h5
fails_with 'run1/v_dend\.h5: no such file \(no report of .v_dend. in run1' "$A" spikes run1 --variable v_dend
ls | grep -q '\.tmp-' && fail "temporary files left behind"

# --- sync on the real run: the cells start alike, so the oscillation before
#     the pulse is nearly in phase ---
"$A" sync run5 --t1 990 --csv >sync5.csv
csv_is sync5.csv cells 64
csv_is sync5.csv oscillating 64
"$PY" -c "
import csv; d = dict(csv.reader(open('sync5.csv')))
assert 0.9 < float(d['R_mean']) <= 1 and 6 < float(d['frequency_hz']) < 12, d"
"$A" sync run5 >sync5.txt
has sync5.txt '^spike coincidence +1 '

# --- compare ---
status 0 "$A" compare run5 run5
has out.txt '^equal \(tolerance 0\)$'
has out.txt '^equal +v_axon\.h5: 7 datasets'
status 1 "$A" compare run5 runp
has out.txt '^  different spikes\.h5 /spikes/io/timestamps: shapes differ: \[[0-9]+\] in A, \[[0-9]+\] in B'
has out.txt '^different spikes\.h5: 2 datasets'
has out.txt '^different: '
status 0 "$A" compare run5 runp --tolerance 1e9 --variables v_axon,v_dend
status 1 "$A" compare run5 runp --variables v_dend
status 0 "$A" compare -q run5 run5
[ ! -s out.txt ] || fail "--quiet printed something"
# one value changed with h5py: found, with its frame, time and cell
cp -r run5 mod
"$PY" - <<'EOF'
import h5py
with h5py.File("mod/v_axon.h5", "r+") as f:
    d = f["report/io/data"]
    d[123, 45] = d[123, 45] + 0.5
with h5py.File("mod/spikes.h5", "r+") as f:
    t = f["spikes/io/timestamps"]
    t[7] = t[7] + 0.25
EOF
cell7=$("$PY" -c "import h5py; print(h5py.File('run5/spikes.h5')['spikes/io/node_ids'][7])")
status 1 "$A" compare run5 mod
has out.txt '^  different v_axon\.h5 /report/io/data: 1 of 281600 values differ, max \|diff\| 0\.5 at frame 123 \(t = 31 ms\), cell 45 '
has out.txt "^  different spikes\.h5 /spikes/io/timestamps: 1 of $nspk values differ, max \|diff\| 0\.25 at spike 7 \(t = [0-9.]+ ms in A\), cell $cell7 "
has out.txt '^equal +v_dend\.h5'
status 0 "$A" compare run5 mod --tolerance 0.6
has out.txt 'largest absolute difference 0\.5 in v_axon\.h5 /report/io/data at frame 123'
status 1 "$A" compare run5 mod --tolerance 0.4
status 0 "$A" compare run5 mod --variables v_dend,state
status 1 "$A" compare run5/v_axon.h5 mod/v_axon.h5
status 1 "$A" compare run5 mod --csv
head -n 1 out.txt | grep -Fxq 'file,dataset,values,differing,max_abs_diff,where,a,b,status' || fail "compare --csv header"
has out.txt '^v_axon\.h5,/report/io/data,281600,1,0\.5,"frame 123 \(t = 31 ms\), cell 45",.*,different$'
# a run recorded differently: reports of another shape are different (1)
status 1 "$A" compare run5 run1
has out.txt 'only in A: run5/v_dend\.h5'
has out.txt '/report/io/data: shapes differ: \[4400x64\] in A, \[22000x64\] in B'
# cannot compare: 2
fails_with 'nowhere: no such file or directory' "$A" compare run5 nowhere
fails_with 'cannot compare run5 \(a directory\) with run5/v_axon\.h5 \(a file\)' "$A" compare run5 run5/v_axon.h5
mkdir empty
fails_with 'empty/spikes\.h5: no such file' "$A" compare run5 empty
fails_with 'run1/v_dend\.h5: no such file \(--variables v_dend\)' "$A" compare run5 run1 --variables v_dend
echo junk >junk.h5
fails_with 'junk\.h5: not an HDF5 file' "$A" compare run5/v_axon.h5 junk.h5
fails_with 'need two runs' "$A" compare run5
fails_with '--tolerance: -1 is out of range' "$A" compare run5 run5 --tolerance -1

# --- plot: each kind, a PNG of the requested size that decodes ---
"$A" plot run5 -o raster.png --kind raster >/dev/null
"$A" plot run5 -o trace.png --kind trace --cells 3:6 --t0 900 --t1 1100 --width 640 --height 480 >/dev/null
"$A" plot run5 -o dend.png --kind trace --variable v_dend >/dev/null
"$A" plot run5 -o rate.png --kind rate --bin 10 --width 800 --height 300 --title "rate" >/dev/null
"$PY" - <<'EOF'
import struct, zlib
def check(path, w, h):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0], (path, kind)
        if kind == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
        if kind == b"IDAT": idat += body
        pos += 12 + n
    W, H, depth, ctype = ihdr[:4]
    assert (W, H) == (w, h), (path, W, H)
    bpp = {2: 3, 6: 4, 0: 1, 4: 2}[ctype] * depth // 8
    raw = zlib.decompress(idat)
    assert len(raw) == H * (1 + W * bpp), path
    # not blank: several distinct pixel rows
    rows = {raw[i * (1 + W * bpp) + 1:(i + 1) * (1 + W * bpp)] for i in range(H)}
    assert len(rows) > 10, path
for p, w, h in (("raster.png", 1000, 600), ("trace.png", 640, 480), ("dend.png", 1000, 600), ("rate.png", 800, 300)):
    check(p, w, h)
print("plot: 4 PNGs decode with the requested sizes")
EOF
cp rate.png rate.orig
fails_with 'rate\.png exists; use --force' "$A" plot run5 -o rate.png --kind rate
cmp -s rate.png rate.orig || fail "an existing plot was changed without --force"
"$A" plot run5 -o rate.png --kind raster --force >/dev/null
fails_with 'missing -o FIG\.png' "$A" plot run5 --kind raster
fails_with 'missing --kind' "$A" plot run5 -o x.png
fails_with "--kind: 'pie' is not raster, trace, rate, heatmap or compartments" "$A" plot run5 -o x.png --kind pie
fails_with '--width: 50 is out of range \[200, 10000\]' "$A" plot run5 -o x.png --kind raster --width 50
fails_with '--t0 5 must be below --t1 1' "$A" plot run5 -o x.png --kind rate --t0 5 --t1 1
fails_with 'a trace plot shows at most 16' "$A" plot run5 -o x.png --kind trace --cells 0:20
fails_with "--cells: empty range '5:5'" "$A" plot run5 -o x.png --kind raster --cells 5:5
fails_with 'the run has 64 cells' "$A" plot run5 -o x.png --kind raster --cells 64:70
fails_with 'run5/v_soma\.h5: no such file' "$A" plot run5 -o x.png --kind trace --variable v_soma
fails_with 'nowhere: no such file or directory' "$A" plot nowhere -o x.png --kind raster
[ ! -e x.png ] || fail "a failed plot left x.png"
ls | grep -q '\.tmp-' && fail "temporary files left behind"

# ------------------------------------------------- h5py files, known answers
"$PY" - <<'EOF'
import h5py, numpy as np, os
def spikes(path, t, n, attrs=None):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with h5py.File(path, "w") as f:
        for k, v in (attrs or {}).items():
            f.attrs[k] = v
        g = f.create_group("spikes/io")
        g.create_dataset("timestamps", data=np.asarray(t, np.float64)).attrs["units"] = "ms"
        g.create_dataset("node_ids", data=np.asarray(n, np.uint64))
def report(path, data, start, step, nodes=None, units="mV"):
    data = np.asarray(data)
    with h5py.File(path, "w") as f:
        g = f.create_group("report/io")
        g.create_dataset("data", data=data).attrs["units"] = units
        m = g.create_group("mapping")
        m.create_dataset("node_ids", data=np.arange(data.shape[1], dtype=np.uint64) if nodes is None else nodes)
        m.create_dataset("time", data=np.array([start, start + step * data.shape[0], step]))

# rates: 4 cells, 100 ms. cell 0: 3 spikes, 1: none, 2: one, 3: five
att = dict(cells=np.int64(4), steps=np.int64(2000), dt=0.05)
spikes("rates/spikes.h5", [5, 30, 99, 45, 1, 2, 59.999, 60, 100],
                          [0, 0, 0, 2, 3, 3, 3, 3, 3], att)
# isi: cell 0 at 10, 20, 40; cell 1 at 5, 35; cell 2 once (stored unsorted)
spikes("isi.h5", [40, 35, 50, 10, 5, 20], [0, 1, 2, 0, 1, 0])

# sync: 2000 frames of 1 ms (start = step = 1), 8 Hz sinusoids
t = np.arange(1, 2001, dtype=np.float64)
rng = np.random.default_rng(5)
w = 2 * np.pi * 8 / 1000
os.makedirs("same", exist_ok=True)
report("same/v_dend.h5", np.tile(-60 + 5 * np.sin(w * t)[:, None], (1, 50)).astype(np.float32), 1.0, 1.0)
spikes("same/spikes.h5", [100, 100.5, 300, 500, 503], [0, 1, 2, 0, 0])   # 2 of 5 coincident within 2 ms
phase = rng.uniform(0, 2 * np.pi, 400)
report("random.h5", -60 + 5 * np.sin(w * t[:, None] + phase[None, :]), 1.0, 1.0)
anti = np.where(np.arange(40) % 2 == 0, 0.0, np.pi)
report("anti.h5", -60 + 5 * np.sin(w * t[:, None] + anti[None, :]), 1.0, 1.0)
flat = np.full((2000, 3), -60.0); flat[:, 0] = -60 + 5 * np.sin(w * t)
report("flat.h5", flat, 1.0, 1.0)
# a foreign report (start 0, node ids 10..12, int16 values) for spikes re-detection
report("foreign.h5", np.array([[0, 0, 5], [10, 0, 5], [-5, 1, 5], [10, 1, -5], [0, 2, 5]], np.int16), 0.0, 0.5,
       nodes=np.array([12, 10, 11], np.uint64))
# malformed reports
with h5py.File("bad_ids.h5", "w") as f:
    f["report/io/data"] = np.zeros((3, 4)); f["report/io/mapping/node_ids"] = np.arange(3, dtype=np.uint64)
    f["report/io/mapping/time"] = np.array([0.0, 3.0, 1.0])
with h5py.File("bad_time.h5", "w") as f:
    f["report/io/data"] = np.zeros((3, 4)); f["report/io/mapping/node_ids"] = np.arange(4, dtype=np.uint64)
with h5py.File("bad_1d.h5", "w") as f:
    f["report/io/data"] = np.zeros(3)
EOF

# --- rates: exact numbers ---
"$A" rates rates --csv >r.csv
head -n 1 r.csv | grep -Fxq 'cell,spikes,rate_hz' || fail "rates --csv header"
csv_is r.csv 0,3 30
csv_is r.csv 1,0 0
csv_is r.csv 2,1 10
csv_is r.csv 3,5 50
[ "$(wc -l <r.csv)" -eq 5 ] || fail "rates: 4 cells expected"
"$A" rates rates >r.txt
has r.txt '^# rates/spikes\.h5: 4 cells, 100 ms, 9 spikes, mean rate 22\.5 Hz$'
has r.txt '^ +3 +5 +50$'
"$A" rates rates --cells 2:4 --csv >r24.csv
[ "$(sed 1d r24.csv | cut -d, -f1 | tr '\n' ' ')" = "2 3 " ] || fail "rates --cells 2:4"
# population: 30 ms bins over [0, 100]: [0,30) [30,60) [60,90) [90,100]
"$A" rates rates --bin 30 --csv >rb.csv
head -n 1 rb.csv | grep -Fxq 'bin_start_ms,bin_stop_ms,spikes,rate_hz' || fail "rates --bin header"
csv_is rb.csv 0,30,3 25                      # 5, 1, 2: 3 / 4 cells / 0.03 s
csv_is rb.csv 30,60,3 25                     # 30, 45, 59.999
csv_is rb.csv 60,90,1 8.33333                # 60
csv_is rb.csv 90,100,2 50                    # 99, 100 (the last bin is closed): 2 / 4 / 0.01 s
"$A" rates rates --bin 50 --cells 3 --csv >rb3.csv
csv_is rb3.csv 0,50,2 40                     # cell 3 alone: 1, 2
csv_is rb3.csv 50,100,3 60
fails_with '--bin: 0 is out of range' "$A" rates rates --bin 0
fails_with "--cells: empty range '3:1'" "$A" rates rates --cells 3:1
fails_with 'the run has 4 cells' "$A" rates rates --cells 4:8

# --- isi: exact histogram and statistics ---
"$A" isi isi.h5 --bins 3 --csv >i.csv
csv_is i.csv intervals 3
csv_is i.csv cells_with_isi 2
csv_is i.csv mean_ms 20
csv_is i.csv sd_ms 8.164965809               # population SD of 10, 20, 30
csv_is i.csv cv 0.408248
csv_is i.csv min_ms 10
csv_is i.csv max_ms 30
csv_is i.csv bin_1_count 0                   # [0, 10)
csv_is i.csv bin_2_count 1                   # [10, 20): 10
csv_is i.csv bin_3_count 2                   # [20, 30]: 20, 30
csv_is i.csv bin_3_stop_ms 30
csv_is i.csv above_max 0
"$A" isi isi.h5 --bins 2 --max 25 --csv >i25.csv
csv_is i25.csv bin_1_count 1                 # [0, 12.5): 10
csv_is i25.csv bin_2_count 1                 # [12.5, 25]: 20
csv_is i25.csv above_max 1                   # 30
"$A" isi isi.h5 --bins 3 >i.txt
has i.txt '^CV +0\.408248  \(SD / mean\)$'
has i.txt '^ +20 - +30 ms +2  #{40}$'
"$A" isi rates --csv >ir.csv                 # cell 3: 1, 2, 59.999, 60, 100
csv_is ir.csv intervals 6
fails_with "--bins: 'x'" "$A" isi isi.h5 --bins x

# --- sync: R = 1 in phase, low for random phases, ~0 in anti-phase ---
"$A" sync same --csv >s.csv
csv_is s.csv oscillating 50
csv_is s.csv R_mean 1.000000
csv_is s.csv R_min 1.000000
csv_is s.csv spikes 5
csv_is s.csv spike_sync 0.4
"$A" sync same --window 3 --csv >s3.csv
csv_is s3.csv spike_sync 0.4                 # 500 and 503 are one cell's: not coincident
"$A" sync same --window 0.4 --csv >s04.csv
csv_is s04.csv spike_sync 0                  # 100 and 100.5 are 0.5 ms apart
"$PY" - <<'EOF'
import csv, subprocess, os
A = os.environ["BIN"] + "/olive-analyze"
def run(*args):
    out = subprocess.run([A, "sync", *args, "--csv"], check=True, capture_output=True, text=True).stdout
    return dict(csv.reader(out.splitlines()))
r = run("random.h5")
assert r["oscillating"] == "400" and float(r["R_mean"]) < 0.15, r
assert abs(float(r["frequency_hz"]) - 8) < 0.01, r
a = run("anti.h5")
assert float(a["R_mean"]) < 1e-6, a
f = run("flat.h5")
assert f["cells"] == "3" and f["oscillating"] == "1" and float(f["R_mean"]) > 0.999999, f
s = run("same/v_dend.h5", "--cells", "10:20", "--t0", "500", "--t1", "1500")
assert s["cells"] == "10" and s["t0_ms"] == "500" and s["t1_ms"] == "1500", s
print("sync: random", r["R_mean"], "anti", a["R_mean"])
EOF
"$A" sync same --series --every 100 --csv >series.csv
head -n 1 series.csv | grep -Fxq 'time_ms,R' || fail "sync --series header"
[ "$(sed 1d series.csv | grep -vc ',1.000000$' || true)" -eq 0 ] || fail "sync --series: R(t) = 1 expected"
fails_with 'same/v_axon\.h5: no such file' "$A" sync same --variable v_axon
fails_with '--t0 5 must be below --t1 5' "$A" sync same --t0 5 --t1 5

# --- spikes on a foreign report: start 0, unsorted node ids, integers ---
"$A" spikes foreign.h5 --threshold 3 --csv >f.csv
# column node 12: 0,10,-5,10,0 -> up at frames 1 and 3 (t 0.5, 1.5); node 10:
# never reaches 3; node 11: 5,5,5,-5,5 -> up at frame 4 (t 2)
[ "$(sed 1d f.csv | tr '\n' ' ')" = "0.5,12 1.5,12 2,11 " ] || { cat f.csv; fail "foreign report"; }

# --- malformed reports: exit 2, file and dataset named ---
fails_with 'bad_ids\.h5: /report/io/mapping/node_ids has 3 entries but /report/io/data has 4 columns' "$A" spikes bad_ids.h5
fails_with 'bad_time\.h5: dataset /report/io/mapping/time is missing' "$A" sync bad_time.h5
fails_with 'bad_1d\.h5: dataset /report/io/data must be 2-D' "$A" spikes bad_1d.h5
fails_with 'isi\.h5: group /report is missing' "$A" spikes isi.h5
fails_with 'rates/spikes\.h5: group /report is missing' "$A" plot rates/spikes.h5 -o x.png --kind trace

# --- help ---
for sub in spikes rates isi sync compare plot; do
  "$A" $sub --help | grep -q "^Usage: olive-analyze $sub" || fail "$sub --help"
done
"$A" --help | grep -q '(planned)' && fail "--help still lists planned subcommands"
echo "analyze subcommands: all checks passed"

#!/usr/bin/env bash
# olive-analyze plot --kind raster of a two-population network (exc 0-79,
# inh 80-99): each population's spikes in its own colour at the rows of its
# cells, a legend with those colours and the stimulus's, the --pulse windows
# as bands over their time and cells, the --rates panel under the raster;
# the same picture from a spike file with one SONATA population per network
# population (node ids from 0 in each); --population of a network population;
# a missing or bad network file.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
A="$BIN/olive-analyze"
"$BIN/olive-genconn" -q -o lif.h5 --model lif_cuba --population exc:80 --population inh:20 \
    --projection 'from=exc,to=all,p=0.1,weight=2,delay=1,receptor=ge'
"$BIN/olive-simulate" -q lif.h5 -o run --time 200 --pulse 50:100:30:0:40 --pulse 150:160:30
"$A" plot run -o r.png --kind raster --title T >/dev/null
"$A" plot run -o rr.png --kind raster --rates --title T >/dev/null
"$PY" - <<'PYEOF' || fail "raster colours"
import os, sys, h5py, numpy as np
sys.path.insert(0, os.environ["TESTS"])
from png_rgb import png_rgb
# plotaxes.c, 1000 x 600: font 15 px; plot area x 97.5..970, y 45..540; palette 0 and 1; plotraster.c's band
font, left, right, top, bottom = 15.0, 97.5, 970.0, 45.0, 540.0
EXC, INH, STIM = (31, 120, 181), (255, 128, 13), (255, 222, 179)
def mask(img, rgb):
    return (np.abs(img - np.array(rgb)) <= 3).all(axis=2)
def x_of(t): return left + t / 200 * (right - left)
def rows(a, b):                      # the pixel rows of cells a..b-1 (row c at y(c); 100 rows)
    y = lambda c: bottom - (c + 0.5) / 100 * (bottom - top)
    return int(np.ceil(y(b - 0.5))) + 1, int(y(a - 0.5)) - 1
img = png_rgb("r.png")
assert img.shape == (600, 1000, 3), img.shape
# the legend: a row in the margin above the plot area (never over the spikes), right to left
legend = np.zeros(img.shape[:2], bool); legend[int(top - 1.7 * font):int(top), int(right - 24.5 * font):int(right)] = True
exc, inh, stim = mask(img, EXC) & ~legend, mask(img, INH) & ~legend, mask(img, STIM) & ~legend
ie0, ie1 = rows(0, 80)          # exc rows: pixel y range
ii0, ii1 = rows(80, 100)
assert exc[ie0:ie1].sum() > 500 and inh[ii0:ii1].sum() > 100, (exc[ie0:ie1].sum(), inh[ii0:ii1].sum())
assert exc[ii0:ii1].sum() == 0 and inh[ie0:ie1].sum() == 0, "a population's colour in the other's rows"
# the legend: both populations and the stimulus, in their colours
for name, rgb in (("exc", EXC), ("inh", INH), ("stimulus", STIM)):
    assert (mask(img, rgb) & legend).sum() >= 10, f"legend entry {name} missing"
# pulse 1: 50-100 ms on cells 0-39; pulse 2: 150-160 ms on every cell
s0, s1 = rows(0, 40)
x0, x1 = int(x_of(50)) + 2, int(x_of(100)) - 1
band = stim[s0:s1, x0:x1]
assert band.mean() > 0.3, f"pulse 1 band covers {band.mean():.2f} of its window"
a0, a1 = rows(40, 80)
above = stim[a0:a1, x0:x1]
assert above.sum() == 0, "pulse 1 band over cells 40-79 (it stimulates 0-39)"
assert stim[s0:s1, int(x_of(110)):int(x_of(140))].sum() == 0, "a band outside the pulse windows"
assert stim[ii0:ii1, int(x_of(150)) + 2:int(x_of(160)) - 1].mean() > 0.3, "pulse 2 (every cell) band"
# --rates: the raster above 0.68 of the plot area, the rate panel below with both colours and the bands
rr = png_rgb("rr.png")
split = top + 0.68 * (bottom - top)
r_top = int(split + font) + 2
panel = rr[r_top:int(bottom)]
assert mask(panel, EXC).sum() > 50 and mask(panel, INH).sum() > 50, "rate lines of both populations"
assert mask(panel[:, int(x_of(150)) + 2:int(x_of(160)) - 1], STIM).mean() > 0.3, "stimulus band in the rate panel"
assert mask(rr[int(split):r_top], EXC).sum() == 0, "spikes drawn between raster and rate panel"
print("raster: populations, legend, stimulus bands, rate panel ok")
# the same spikes as another writer would store them: one SONATA population
# per network population without olive's first_cell/cells (placed by the
# network file), and as one population of global ids 'io' (olive before 0.3)
os.makedirs("pops")
os.makedirs("io")
with h5py.File("run/spikes.h5") as f, h5py.File("pops/spikes.h5", "w") as g, h5py.File("io/spikes.h5", "w") as h:
    for k, v in f.attrs.items():
        g.attrs[k] = v
        h.attrs[k] = v
    t, ids = [], []
    for name, lo in (("exc", 0), ("inh", 80)):
        p = g.create_group(f"spikes/{name}")
        p["timestamps"] = f[f"spikes/{name}/timestamps"][:]; p["timestamps"].attrs["units"] = "ms"
        p["node_ids"] = f[f"spikes/{name}/node_ids"][:]
        t.append(p["timestamps"][:]); ids.append(p["node_ids"][:] + lo)
    t, ids = np.concatenate(t), np.concatenate(ids)
    o = np.lexsort((ids, t))
    q = h.create_group("spikes/io")
    q["timestamps"] = t[o]; q["timestamps"].attrs["units"] = "ms"
    q["node_ids"] = ids[o].astype(np.uint64)
PYEOF
"$A" plot io -o i.png --kind raster --title T >/dev/null
cmp -s r.png i.png || fail "a spike file with one population io of global ids drew another raster than populations exc, inh"
"$A" plot pops -o p.png --kind raster --title T >/dev/null
cmp -s r.png p.png || fail "a spike file with populations exc, inh placed by the network file drew another raster"
# --population of a network population: its rows only
out=$("$A" plot run -o inh.png --kind raster --population inh)
grep -q "spikes of cells 80-99" <<< "$out" || fail "--population inh: $out"
# a missing --network; a network found by no path (a warning, one colour); populations that do not tile
rc=0; "$A" plot run -o x.png --kind raster --network nosuch.h5 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "nosuch.h5" err.txt && [ ! -e x.png ] || { cat err.txt; fail "--network nosuch.h5 (rc $rc)"; }
mkdir moved && cp pops/spikes.h5 moved/   # (olive-simulate's own groups say where they lie: no network needed)
"$PY" -c "import h5py; h5py.File('moved/spikes.h5', 'r+').attrs['network'] = 'gone.h5'"
"$A" plot moved -o m.png --kind raster 2>err.txt >/dev/null
grep -q "network file 'gone.h5' (root attribute network) is not found; populations are not shown" err.txt \
    || { cat err.txt; fail "no warning for a network not found"; }
cp lif.h5 bad.h5
"$PY" -c "import h5py; h5py.File('bad.h5', 'r+')['cells/populations/inh'].attrs['first'] = 85"
rc=0; "$A" plot run -o x.png --kind raster --network bad.h5 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "bad.h5: /cells/populations/inh starts at cell 85, expected 80" err.txt && [ ! -e x.png ] \
    || { cat err.txt; fail "populations that do not tile (rc $rc)"; }
rc=0; "$A" plot run -o x.png --kind rate --rates 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "rates applies to --kind raster only" err.txt || fail "--rates with --kind rate"
echo "plot raster: ok"

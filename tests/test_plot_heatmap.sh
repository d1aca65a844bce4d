#!/usr/bin/env bash
# olive-analyze plot --kind heatmap: the colour of every cell's
# row is viridis((value - min) / (max - min)) of its value, read back from
# the PNG's pixels: a g_cal report (each cell's own constant, known from the
# network file). Also: SVG and PDF of it are valid, --cells/--t0/--t1 narrow
# it; trace --offset and the coarse --record-every warning; bad options.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
A="$BIN/olive-analyze"
"$BIN/olive-genconn" -q -o net.h5 --cells 64 --generator uniform --density 4 --seed 2 --gcal 0.6:1.2
"$BIN/olive-simulate" -q net.h5 -o run --steps 400 --record g_cal,v_axon --record-every 4
"$A" plot run -o heat.png --kind heatmap --variable g_cal >/dev/null
# a compartment report: 4 hh_cable cells of 6 compartments, 200 frames
"$BIN/olive-genconn" -q -o cab.h5 --model hh_cable --population c:4
"$BIN/olive-simulate" -q cab.h5 -o crun --time 50 --pulse 5:40:0.5 --record-compartments v --record-every 10
"$A" plot crun -o comp.png --kind compartments --cells 1:3 >/dev/null
"$PY" - <<'PYEOF' || fail "heat map colours"
import os, sys, h5py, numpy as np
sys.path.insert(0, os.environ["TESTS"])
from png_rgb import png_rgb
img = png_rgb("heat.png")
g = h5py.File("net.h5")["cells/g_CaL"][:]
# the plot area of a 1000 x 600 figure (plotaxes.c: font = 15 px; heat map: 6 fonts for the bar)
font = 15.0
left, right, top, bottom = 6.5 * font, 1000 - 2 * font - 6 * font, 3 * font, 600 - 4 * font
stops = np.array([[0.267, 0.005, 0.329], [0.229, 0.322, 0.546], [0.128, 0.567, 0.551],
                  [0.369, 0.789, 0.383], [0.993, 0.906, 0.144]])
def viridis(u):
    x = min(max(u, 0), 1) * 4; i = min(int(x), 3); f = x - i
    return np.floor((stops[i] + f * (stops[i + 1] - stops[i])) * 255 + 0.5)
lo, hi = np.float64(np.float32(g.min())), np.float64(np.float32(g.max()))   # the report is float32
xs = np.linspace(left + 20, right - 20, 9).astype(int)
bad = 0
for c in range(64):
    y = int(bottom - (c + 0.5) * (bottom - top) / 64)
    got = np.median(img[y, xs], axis=0)      # the median skips a grid line
    want = viridis((np.float64(np.float32(g[c])) - lo) / (hi - lo))
    if np.abs(got - want).max() > 1:
        print(f"cell {c}: pixel {got} expected {want}"); bad += 1
assert not bad, f"{bad} cells with the wrong colour"
print("heat map: 64 cell rows coloured by their g_CaL")
# the colour bar (x 895..913): tick marks right of it (x 914..919), each with a label further right
bar_right = right + font + 1.2 * font
ink = (img.sum(axis=2) < 300)
ticks = np.flatnonzero(ink[int(top) + 1:int(bottom), int(bar_right) + 2:int(bar_right) + 5].all(axis=1)) + int(top) + 1
ticks = [y for i, y in enumerate(ticks) if i == 0 or y != ticks[i - 1] + 1]
assert len(ticks) >= 3, f"{len(ticks)} colour-bar ticks"
for y in ticks:
    assert (img[y - 4:y + 5, int(bar_right) + 9:].sum(axis=2) < 600).sum() >= 8, f"no label at the tick at y {y}"
print(f"colour bar: {len(ticks)} ticks with labels")
# compartments: columns 6..17 (cells 1 and 2) x 200 frames, each grid cell viridis of its value
with h5py.File("crun/v_compartments.h5") as f:
    v = f["report/c/data"][:, 6:18].astype(np.float64)
img = png_rgb("comp.png")
lo, hi = v.min(), v.max()
checked = bad = 0
for k in range(0, 200, 7):
    for j in range(12):
        x, y = int(left + (k + 0.5) * (right - left) / 200), int(bottom - (j + 0.5) * (bottom - top) / 12)
        got = img[y, x].astype(float)
        if abs(got[0] - got[1]) < 8 and abs(got[1] - got[2]) < 8:
            continue                          # a grid line
        checked += 1
        bad += np.abs(got - viridis((v[k, j] - lo) / (hi - lo))).max() > 2
assert checked > 250 and not bad, (checked, bad)
print(f"compartments: {checked} frame x compartment pixels coloured by v")
PYEOF
for ext in svg pdf; do "$A" plot run -o heat.$ext --kind heatmap --variable g_cal --cells 10:30 --t0 5 --t1 15 >/dev/null; done
grep -q "<svg" heat.svg && head -c 8 heat.pdf | grep -q "%PDF-1." || fail "heat map SVG/PDF"
# trace: --offset, and the warning for frames 0.2 ms apart (none) / 1 ms apart
"$A" plot run -o t.png --kind trace --cells 0:3 --offset 20 2>t.err >/dev/null
if grep -q "frames are" t.err; then fail "a warning for frames 0.2 ms apart"; fi
"$BIN/olive-simulate" -q net.h5 -o coarse --steps 400 --record v_axon --record-every 20
"$A" plot coarse -o c.png --kind trace 2>c.err >/dev/null
grep -q "frames are 1 ms apart (--record-every 20)" c.err || { cat c.err; fail "no warning for frames 1 ms apart"; }
rc=0; "$A" plot run -o x.png --kind raster --offset 5 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "offset applies to --kind trace only" err.txt && [ ! -e x.png ] || fail "--offset with raster"
rc=0; "$A" plot run -o x.png --kind heatmap --variable nosuch 2>err.txt || rc=$?
[ $rc = 2 ] && [ ! -e x.png ] || fail "heatmap of a missing report"
echo "plot heatmap: ok"

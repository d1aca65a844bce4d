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
"$PY" - <<'PYEOF' || fail "heat map colours"
import h5py, numpy as np, struct, zlib
def png_rgb(path):
    """A plain PNG decoder (8-bit RGB, any filter), so the test needs no imaging library."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    img, prev = np.zeros((h, stride), np.int64), np.zeros(stride, np.int64)
    for y in range(h):
        f, line = raw[y * (stride + 1)], np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        out = np.zeros(stride, np.int64)
        for i in range(stride):
            a = out[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 0: p = 0
            elif f == 1: p = a
            elif f == 2: p = b
            elif f == 3: p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[i] = (line[i] + p) & 255
        img[y], prev = out, out
    return img.reshape(h, w, bpp)[:, :, :3]
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

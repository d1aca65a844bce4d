#!/usr/bin/env bash
# olive-analyze plot writes PNG, SVG or PDF by the output's extension and
# refuses any other; the SVG is well-formed XML with an <svg> root holding
# drawing, the PDF has a PDF header, page and trailer; a bad input leaves no
# file behind in any format.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
A="$BIN/olive-analyze"
"$BIN/olive-genconn" -q -o net.h5 --cells 40 --generator uniform --density 4 --seed 2
"$BIN/olive-simulate" -q net.h5 -o run --steps 600 --pulse 1:25:6 --record v_axon
for k in raster trace rate; do
  for ext in png svg pdf; do
    "$A" plot run -o "$k.$ext" --kind "$k" >/dev/null || fail "plot --kind $k -o $k.$ext"
  done
done
"$PY" - <<'PYEOF'
import xml.etree.ElementTree as ET
for k in ("raster", "trace", "rate"):
    png = open(f"{k}.png", "rb").read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n", k
    root = ET.parse(f"{k}.svg").getroot()
    assert root.tag.endswith("svg"), root.tag
    drawn = [e for e in root.iter() if e.tag.split("}")[-1] in ("path", "rect", "use", "g")]
    assert len(drawn) > 10, (k, len(drawn))
    pdf = open(f"{k}.pdf", "rb").read()
    assert pdf.startswith(b"%PDF-1.") and pdf.rstrip().endswith(b"%%EOF") and b"/Type /Page" in pdf, k
    print("ok", k, len(png), len(drawn), len(pdf))
PYEOF
rc=0; "$A" plot run -o fig.jpg --kind raster 2>err.txt || rc=$?
[ "$rc" -eq 2 ] && grep -q "fig.jpg: unknown figure format '.jpg'" err.txt || { cat err.txt; fail "a .jpg accepted (rc $rc)"; }
[ ! -e fig.jpg ] || fail "fig.jpg written"
for ext in svg pdf; do
  rc=0; "$A" plot nosuch -o "bad.$ext" --kind raster 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] || fail "a missing run gave rc $rc for .$ext"
  [ ! -e "bad.$ext" ] && ! compgen -G "bad.$ext.tmp-*" >/dev/null || fail "bad.$ext left behind"
done
echo "plot formats ok"

#!/usr/bin/env bash
# The command-line conventions every program shares: --opt=value means
# --opt value (the same results), and -q prints nothing but errors (an error
# still prints, with a non-zero exit).
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" D="$BIN/olive-disperse" S="$BIN/olive-simulate" A="$BIN/olive-analyze"
"$G" -o a.h5 --cells 40 --generator uniform --density 5 --seed 3 --conductance 0.02:0.06 --conductance-bits 8 >/dev/null 2>&1
"$G" --output=b.h5 --cells=40 --generator=uniform --density=5 --seed=3 --conductance=0.02:0.06 --conductance-bits=8 >/dev/null 2>&1
for d in /gap_junctions/row_ptr /gap_junctions/col /gap_junctions/conductance; do
  h5diff a.h5 b.h5 "$d" >/dev/null || fail "genconn --opt=value: $d differs"
done
"$D" a.h5 --ranks 2 -o ma.h5 >/dev/null
"$D" a.h5 --ranks=2 --output=mb.h5 --balance=cells >/dev/null
h5diff ma.h5 mb.h5 /rows/lcol >/dev/null && h5diff ma.h5 mb.h5 /send/local >/dev/null || fail "disperse --opt=value differs"
"$S" a.h5 -o ra --steps 200 --pulse 1:5:6 --record v_axon --record-every 2 >/dev/null
"$S" a.h5 --output=rb --steps=200 --pulse=1:5:6 --record=v_axon --record-every=2 >/dev/null
"$A" compare ra rb >/dev/null || fail "simulate --opt=value gives another run"
"$A" rates ra --bin 10 --csv > r1.csv
"$A" rates ra --bin=10 --csv > r2.csv
cmp -s r1.csv r2.csv || fail "analyze --opt=value differs"
# -q: silent on success, an error still said
( "$G" -q -o q.h5 --cells 40 --generator uniform --density 5 --conductance 0.02:0.06 --conductance-bits 8 --seed 3
  "$D" -q q.h5 --ranks 2 -o qm.h5
  "$S" -q q.h5 --map qm.h5 -o qr --steps 20 2>&1 || true   # the map is for 2 ranks: an error, shown
) > q.out 2>&1
grep -q "the map was made for 2 ranks" q.out || { cat q.out; fail "-q swallowed an error"; }
[ "$(grep -vc 'the map was made for 2 ranks' q.out)" -eq 0 ] || { cat q.out; fail "-q printed more than the error"; }
"$S" -q q.h5 -o qr2 --steps 20 > q2.out 2>&1
[ ! -s q2.out ] || { cat q2.out; fail "olive-simulate -q printed something"; }
"$A" -q plot ra -o qa.png --kind raster > q3.out 2>&1 && "$A" spikes ra --threshold -20 -o qs.h5 --quiet > q4.out 2>&1
[ ! -s q3.out ] && [ ! -s q4.out ] && [ -s qa.png ] && [ -s qs.h5 ] || { cat q3.out q4.out; fail "olive-analyze -q printed or wrote nothing"; }
"$A" -q summary ra --csv | grep -q '^spikes,' || fail "olive-analyze -q swallowed the summary asked for"
echo "--opt=value and -q ok"

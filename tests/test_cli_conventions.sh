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

# Each program's option list (the pre-pass's: --list-options) is its --help's
# options, no more, no fewer: the lists cannot drift from the help.
help_opts() {  # the options named at the start of --help's option lines
  sed -n 's/^ \{1,4\}\(-[^ ].*\)$/\1/p' | sed 's/  .*//' | grep -oE '(^|[ ,|/])--?[a-zA-Z][-a-zA-Z0-9]*' |
    sed 's/^[ ,|/]//' | sort -u
}
list_opts() { tr ' ' '\n' | grep -E '^-' | sort -u; }
same_options() {  # NAME, then the command without --help / --list-options
  local name=$1; shift
  diff <("$@" --help | help_opts) <("$@" --list-options | list_opts) >opts.diff ||
    { cat opts.diff; fail "$name: --help and the option list differ (< help, > list)"; }
}
same_options olive-genconn "$G"
same_options "olive-genconn --model" "$G" --model lif_cuba
same_options olive-disperse "$D"
same_options olive-simulate "$S"
for sub in summary spikes rates isi sync compare plot; do same_options "olive-analyze $sub" "$A" "$sub"; done

# "did you mean", and options given twice refused (repeatable ones kept)
said() {  # REGEX CMD...: refused (exit 2) with REGEX on stderr
  local re=$1 rc=0; shift
  "$@" >/dev/null 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -Eq -- "$re" err.txt || { cat err.txt; fail "exit $rc, wanted /$re/: $*"; }
}
said "unknown option '--recrod' \(did you mean '--record'\?\)" "$S" a.h5 -o x --steps 5 --recrod v
said "did you mean 'lif_coba'" "$G" -o x.h5 --model lif_cobaa --cells 4
said "did you mean 'summary'" "$A" sumary ra
said "did you mean '--population'" "$A" summary --popluation io ra
said "did you mean '--ranks'" "$D" a.h5 --rank 2 -o x.h5
said "did you mean 'v_axon'" "$S" a.h5 -o x --steps 5 --record v_axn
said "did you mean 'rgj'" "$S" a.h5 -o x --steps 5 --gj rjg
said "did you mean 'cuda'" "$S" a.h5 -o x --steps 5 --backend cdua
said "^olive-simulate: error: --steps given twice" "$S" a.h5 -o x --steps 5 --steps 6
said "^olive-simulate: error: --record given twice" "$S" a.h5 -o x --steps 5 --record v_axon --record=v_dend
said "^olive-simulate: error: -o given twice" "$S" a.h5 -o x -o y --steps 5
said "^olive-genconn: error: --seed given twice" "$G" -o x.h5 --cells 4 --generator uniform --seed 1 --seed 2
said "^olive-genconn: error: --dt given twice" "$G" -o x.h5 --model lif_cuba --cells 4 --dt 0.1 --dt 0.2
said "^olive-disperse: error: --ranks given twice" "$D" a.h5 --ranks 2 --ranks 3 -o x.h5
said "error: --bin given twice" "$A" rates ra --bin 10 --bin 20
[ ! -e x ] && [ ! -e x.h5 ] && [ ! -e y ] || fail "a refused command line left an output"
"$S" a.h5 -o rp --steps 200 --pulse 1:5:3 --pulse 1:5:3 --record v_axon >/dev/null   # repeatable: both pulses
"$S" a.h5 -o rp6 --steps 200 --pulse 1:5:6 --record v_axon >/dev/null
"$A" compare rp rp6 >/dev/null || fail "two --pulse options did not add up"
echo "option lists, did you mean and repeated options ok"

# Amplitudes with units: converted exactly to the model's unit (175pA is the
# double 0.175 in an nA model, not 0.175 + 1 ulp as a product by 1e-3 gives), the same run as the bare
# number; a unit of another kind is refused naming the model and its unit.
"$G" -o coba.h5 --model lif_coba --cells 8 --seed 2 >/dev/null
"$G" -o cab.h5 --model hh_cable --cells 2 --seed 2 >/dev/null
grep -q 'AMP 0.17499999999999999 nA$' <<< "$("$S" cab.h5 -o u1 --steps 5 --pulse 0:1:175pA -v 2>&1)" ||
  fail "175pA is not the double 0.175 nA (175 * 1e-3 is 0.17500000000000002)"
"$S" coba.h5 -o u2 --time 30 --pulse 1:20:0.5nA --poisson rate=800,weight=0.003uS,receptor=ge >/dev/null
"$S" coba.h5 -o u3 --time 30 --pulse 1:20:500 --poisson rate=800,weight=3,receptor=ge >/dev/null
"$A" compare u2 u3 >/dev/null || fail "0.5nA / 0.003uS give another run than 500 / 3 on lif_coba (pA, nS)"
"$S" a.h5 -o u4 --steps 200 --pulse 1:5:6uA/cm^2 --noise 0.1uA/cm2,0,5 >/dev/null
"$S" a.h5 -o u5 --steps 200 --pulse 1:5:6 --noise 0.1,0,5 >/dev/null
"$A" compare u4 u5 >/dev/null || fail "uA/cm2 on InfOli is not its bare unit"
said "--pulse AMP: '6uA/cm2' is a current density; model lif_coba takes a current in pA" "$S" coba.h5 -o x --steps 5 --pulse 0:1:6uA/cm2
said "--pulse AMP: '2mV' is a voltage; model hh_cable takes a current in nA" "$S" cab.h5 -o x --steps 5 --pulse 0:1:2mV
said "--poisson weight: '1mV' is a voltage; model lif_coba takes a conductance in nS" "$S" coba.h5 -o x --steps 5 --poisson rate=5,weight=1mV,receptor=ge
said "unknown unit 'pF'" "$S" coba.h5 -o x --steps 5 --pulse 0:1:2pF
[ ! -e x ] || fail "a refused amplitude left an output"
echo "amplitudes with units ok"

#!/usr/bin/env bash
# olive-genconn: the laws of the generators (degree distributions, partner
# uniformity, the gaussian distance law with boundary truncation, exact grid
# neighbourhoods), --symmetric, conductance packing at every bit width,
# g_CaL, reproducibility (same seed => identical datasets and h5dump output,
# whatever the thread count or block size) and argument validation (exit
# status, message, no file left behind). Numbers are checked by
# tests/check_network.py (h5py + numpy, independent of the C code).
set -u
G="$BIN/olive-genconn"
CHK="$TESTS/check_network.py"
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
gen() {  # olive-genconn ARGS..., must succeed
  local rc=0; "$G" "$@" >gen.out 2>gen.err || rc=$?
  if [ $rc -ne 0 ]; then fail "olive-genconn $* (exit $rc): $(cat gen.err)"; return 1; fi
}
check() { "$PY" "$CHK" "$@" || fail "check_network.py $*"; }

echo "== uniform"
gen -o u.h5 --cells 20000 --generator uniform --density 10 --seed 3 &&
  grep -q "20000 cells, .* junctions, mean degree .* junctions/s" gen.out || fail "summary line: $(cat gen.out)"
check uniform u.h5 10
check attrs u.h5 generator=uniform seed=3 density=10 sigma=0 symmetric=0 "command=--generator uniform"
gen -o uf.h5 --cells 20000 --generator uniform --fixed-degree --density 10 && check fixed uf.h5 10
# K > (N-1)/2: Floyd's algorithm draws the excluded cells instead.
gen -o ud.h5 --cells 2000 --generator uniform --fixed-degree --density 1500 && check fixed ud.h5 1500
# p = 1: the complete graph; K = 0: no junctions at all.
gen -o uc.h5 --cells 50 --generator uniform --density 49 && check fixed uc.h5 49
gen -o u0.h5 --cells 100 --generator uniform --density 0 && check fixed u0.h5 0
gen -o u1.h5 --cells 1 --generator uniform --density 0 && check valid u1.h5

echo "== gaussian"
# K = 1 on a lattice smaller than the gaussian's reach: exact expectation
# with boundary truncation, and the whole x-offset law by chi-square.
gen -o g1.h5 --dims 30x30x30 --generator gaussian --density 1 --sigma 4 && check gaussian1 g1.h5 4
# K = 20 with many duplicate rejections: against an independent sampler.
gen -o g20.h5 --dims 60x60 --generator gaussian --density 20 --sigma 3 && check gaussian g20.h5 20 3
check attrs g20.h5 generator=gaussian seed=1 density=20 sigma=3 symmetric=0
gen -o gl.h5 --cells 3000 --generator gaussian --density 6 --sigma 2.5 --seed 11 && check gaussian gl.h5 6 2.5

echo "== grid"
gen -o gr.h5 --dims 7x5 --generator grid && check grid gr.h5 7 5
gen -o gr2.h5 --dims 2x2 --generator grid && check grid gr2.h5 2 2
gen -o grl.h5 --cells 6 --generator grid && check grid grl.h5 6 1

echo "== symmetric"
gen -o sb.h5 --cells 3000 --generator uniform --density 8 --conductance 0.01:0.05 --conductance-bits 16 --seed 5 &&
  gen -o s.h5 --cells 3000 --generator uniform --density 8 --conductance 0.01:0.05 --conductance-bits 16 --seed 5 --symmetric &&
  { check symmetric s.h5 sb.h5; check conductance s.h5 0.01 0.05 16 5 1; check attrs s.h5 symmetric=1; }
gen -o gsb.h5 --dims 20x20x5 --generator gaussian --density 12 --sigma 2 --conductance 0.02:0.06 --conductance-bits 4 &&
  gen -o gs.h5 --dims 20x20x5 --generator gaussian --density 12 --sigma 2 --conductance 0.02:0.06 --conductance-bits 4 --symmetric &&
  { check symmetric gs.h5 gsb.h5; check conductance gs.h5 0.02 0.06 4 1 1; }

echo "== conductance"
for bits in 4 8 16 32 64; do
  gen -o c$bits.h5 --cells 2001 --generator uniform --density 7 --conductance 0.01:0.05 --conductance-bits $bits --seed 77 &&
    check conductance c$bits.h5 0.01 0.05 $bits 77 0
  # The reported largest quantisation error is at most scale/2.
  "$PY" - c$bits.h5 gen.err <<'EOF' || fail "quantisation error report for bits $bits: $(cat gen.err)"
import re, sys, h5py
g = h5py.File(sys.argv[1], "r")["gap_junctions"]
m = re.search(r"largest quantisation error ([0-9.e+-]+)", open(sys.argv[2]).read())
bits, scale = int(g.attrs["bits"]), float(g.attrs["scale"])
limit = {32: 0.05 * 2.0 ** -24, 64: 0.0}.get(bits, scale / 2)
assert m and float(m.group(1)) <= limit * (1 + 1e-6), (m and m.group(1), limit)
EOF
done
gen -o c0.h5 --cells 2001 --generator uniform --conductance 0.03 && check conductance c0.h5 0.03 0.03 0 1 0
gen -o cd.h5 --cells 500 --generator uniform --conductance 0.01:0.05 && check conductance cd.h5 0.01 0.05 8 1 0
# Odd junction count at 4 bits: the last byte's high nibble stays unused.
gen -o c4odd.h5 --cells 5 --generator uniform --fixed-degree --density 1 --conductance 0:1 --conductance-bits 4 &&
  check conductance c4odd.h5 0 1 4 1 0

echo "== g_CaL"
check gcal u.h5 0.68 0.68 3
gen -o gk.h5 --cells 300 --generator uniform --gcal 0.5 && check gcal gk.h5 0.5 0.5 1
gen -o gv.h5 --cells 300 --generator uniform --gcal 0.5:0.9 --seed 9 && check gcal gv.h5 0.5 0.9 9

echo "== reproducibility"
same_file() {  # dir1 dir2: identical datasets, and identical h5dump output
  check same "$1/net.h5" "$2/net.h5"
  (cd "$1" && h5dump net.h5) >"$1.dump" && (cd "$2" && h5dump net.h5) >"$2.dump" &&
    cmp "$1.dump" "$2.dump" || fail "h5dump of $1/net.h5 and $2/net.h5 differ"
}
while read -r name args; do
  mkdir -p "r1$name" "r2$name" "r3$name" "r4$name" "r5$name"
  (cd "r1$name" && "$G" -o net.h5 $args >/dev/null 2>&1) || fail "reproducibility run $name"
  (cd "r2$name" && "$G" -o net.h5 $args >/dev/null 2>&1) || fail "reproducibility run $name"
  (cd "r3$name" && OMP_NUM_THREADS=1 "$G" -o net.h5 $args >/dev/null 2>&1) || fail "one-thread run $name"
  (cd "r4$name" && "$G" -o net.h5 $args --block-rows 7 >/dev/null 2>&1) || fail "block-rows run $name"
  (cd "r5$name" && "$G" -o net.h5 ${args/--seed 21/--seed 22} >/dev/null 2>&1) || fail "other-seed run $name"
  same_file "r1$name" "r2$name"
  same_file "r1$name" "r3$name"
  check same "r1$name/net.h5" "r4$name/net.h5"
  check differ "r1$name/net.h5" "r5$name/net.h5"
done <<'EOF'
uni --cells 5000 --generator uniform --density 9 --seed 21 --conductance 0.01:0.05 --gcal 0.6:0.8
fix --cells 5000 --generator uniform --fixed-degree --density 9 --seed 21 --conductance-bits 4 --conductance 0:1
gau --dims 20x15x10 --generator gaussian --density 15 --sigma 3 --seed 21 --symmetric --conductance 0.01:0.05 --conductance-bits 32
EOF

echo "== argument validation"
mkdir -p bad && cd bad
nbad=0
expect_fail() {  # STATUS ARGS...: exits STATUS with an error message, writes nothing
  local want=$1; shift
  nbad=$((nbad + 1))
  "$G" "$@" >out.txt 2>err.txt
  local st=$?
  [ $st -eq "$want" ] || fail "olive-genconn $* exited $st, expected $want"
  grep -q "error" err.txt || fail "olive-genconn $*: no error message (stderr: $(cat err.txt))"
  local left
  left=$(ls | grep -v -e '^out.txt$' -e '^err.txt$' -e '^keep.h5$')
  [ -z "$left" ] || { fail "olive-genconn $* left files: $left"; rm -rf $left; }
}
expect_fail 2 --cells 100 --generator uniform                       # no -o
expect_fail 2 -o n.h5 --cells abc --generator uniform
expect_fail 2 -o n.h5 --cells 0 --generator uniform
expect_fail 2 -o n.h5 --cells 10x --generator uniform
expect_fail 2 -o n.h5 --generator uniform                           # no size
expect_fail 2 -o n.h5 --cells 10 --dims 2x5 --generator uniform
expect_fail 2 -o n.h5 --dims 3x0 --generator uniform
expect_fail 2 -o n.h5 --dims 2x2x2x2 --generator uniform
expect_fail 2 -o n.h5 --dims 100000x100000 --generator uniform
expect_fail 2 -o n.h5 --cells 100                                   # no generator
expect_fail 2 -o n.h5 --cells 100 --generator random
expect_fail 2 -o n.h5 --cells 50 --generator uniform --density 50  # > N-1
expect_fail 2 -o n.h5 --cells 5 --generator uniform                 # default K = 10 > N-1
expect_fail 2 -o n.h5 --cells 50 --generator uniform --density -1
expect_fail 2 -o n.h5 --cells 50 --generator uniform --density 2.5 --fixed-degree
expect_fail 2 -o n.h5 --cells 50 --generator gaussian --density 2.5
expect_fail 2 -o n.h5 --cells 50 --generator gaussian --sigma 0
expect_fail 2 -o n.h5 --cells 50 --generator gaussian --sigma nan
expect_fail 2 -o n.h5 --cells 50 --generator uniform --sigma 2
expect_fail 2 -o n.h5 --dims 4x4 --generator grid --density 4
expect_fail 2 -o n.h5 --dims 4x4x2 --generator grid
expect_fail 2 -o n.h5 --dims 4x4 --generator grid --fixed-degree
expect_fail 2 -o n.h5 --cells 50 --generator uniform --seed -5
expect_fail 2 -o n.h5 --cells 50 --generator uniform --seed 1.5
expect_fail 2 -o n.h5 --cells 50 --generator uniform --conductance 0.05:0.01
expect_fail 2 -o n.h5 --cells 50 --generator uniform --conductance -0.1
expect_fail 2 -o n.h5 --cells 50 --generator uniform --conductance 0.01:0.05 --conductance-bits 0
expect_fail 2 -o n.h5 --cells 50 --generator uniform --conductance-bits 7
expect_fail 2 -o n.h5 --cells 50 --generator uniform --gcal x
expect_fail 2 -o n.h5 --cells 50 --generator uniform --gcal -1
expect_fail 2 -o n.h5 --cells 50 --generator uniform --bogus
expect_fail 2 -o n.h5 --cells 50 --generator uniform extra
expect_fail 2 -o n.h5 --cells 50 --generator uniform --cells          # missing value
expect_fail 1 -o nodir/n.h5 --cells 50 --generator uniform
# A gaussian that cannot find its partners fails cleanly and suggests a larger sigma.
expect_fail 1 -o n.h5 --dims 3x3 --generator gaussian --density 8 --sigma 0.2
grep -q -- "--sigma" err.txt || fail "impossible gaussian: message does not suggest --sigma: $(cat err.txt)"
# An existing output is kept unless --force.
"$G" -o keep.h5 --cells 100 --generator uniform --seed 1 >/dev/null 2>&1 || fail "keep.h5"
sum1=$(md5sum keep.h5)
expect_fail 2 -o keep.h5 --cells 100 --generator uniform --seed 2
[ "$(md5sum keep.h5)" = "$sum1" ] || fail "keep.h5 was changed without --force"
"$G" -o keep.h5 --cells 100 --generator uniform --seed 2 --force >/dev/null 2>&1 || fail "--force did not overwrite"
[ "$(md5sum keep.h5)" != "$sum1" ] || fail "--force left keep.h5 unchanged"
"$G" --help | grep -q -- "--generator" || fail "--help"
"$G" --version | grep -q "olive-genconn" || fail "--version"
echo "checked $nbad invalid command lines"
cd ..

echo
if [ $nfail -ne 0 ]; then echo "$nfail check(s) failed"; exit 1; fi
echo "all genconn checks passed"

#!/usr/bin/env bash
# The predicted host memory is checked before the big allocations: with less
# available than needed (OLIVE_MEMAVAILABLE fakes what /proc/meminfo says) the
# run is refused, saying how much it needs and how much there is, and leaves
# no output; with enough it runs. Also under mpirun -np 2 (both ranks of the
# node counted together).
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$BIN/olive-genconn" -o net.h5 --cells 3000 --generator uniform --density 50 --seed 1 >/dev/null
no_output() { [ ! -e "$1" ] && ! compgen -G "$1.tmp-*" >/dev/null || fail "$1 left behind"; }
re='not enough memory: net\.h5 with 3000 cells and [0-9]+ junctions needs about [0-9.]+ MiB on this node \(1 rank\(s\)\), but only 1 KiB is available \(OLIVE_MEMAVAILABLE\)'
rc=0; OLIVE_MEMAVAILABLE=1K "$S" net.h5 -o out --steps 5 --checkpoint-every 2 2>err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -Eq "$re" err.txt || { cat err.txt; fail "1 rank: rc $rc"; }
no_output out
echo "ok: $(cat err.txt)"
rc=0; OLIVE_MEMAVAILABLE=1K mpirun -np 2 --oversubscribe -x OLIVE_MEMAVAILABLE "$S" net.h5 -o out --steps 5 2>err.txt || rc=$?
[ "$rc" -ne 0 ] && grep -q "needs about .* MiB on this node (2 rank(s)), but only 1 KiB" err.txt || { cat err.txt; fail "2 ranks"; }
no_output out
rc=0; OLIVE_MEMAVAILABLE=lots "$S" net.h5 -o out --steps 5 2>err.txt || rc=$?
[ "$rc" -ne 0 ] && grep -q "OLIVE_MEMAVAILABLE=lots" err.txt || { cat err.txt; fail "a malformed OLIVE_MEMAVAILABLE accepted"; }
no_output out
# the prediction is in the right range: -v prints it; a few MiB for this network
OLIVE_MEMAVAILABLE=1G "$S" net.h5 -o ok --steps 5 -v 2>err.txt >/dev/null || { cat err.txt; fail "1 GiB refused"; }
mib=$(sed -n 's/.*predicted host memory \([0-9.e+-]*\) MiB.*/\1/p' err.txt)
"$PY" -c "import sys; g = float(sys.argv[1]); assert 1 < g < 50, g" "$mib" || fail "predicted $mib MiB"
[ -f ok/state.h5 ] || fail "no output with enough memory"
# the real measurement lets a small run through
"$S" net.h5 -o real --steps 5 >/dev/null
echo "memory check: refused with the need and the availability named, on 1 and 2 ranks; predicted $mib MiB"

#!/usr/bin/env bash
# OpenMP's wait in olive-simulate: with more than one thread its idle threads
# spin briefly (GOMP_SPINCOUNT=10000), set before libgomp starts; nothing is
# set for one thread, and a user's GOMP_SPINCOUNT or OMP_WAIT_POLICY wins.
# Where the compiler has libgomp.a, olive-simulate links it in statically and
# sets it from an early constructor: one process, libgomp starting once;
# otherwise (a shared libgomp) the program starts itself again with it.
# libgomp's own OMP_DISPLAY_ENV says, each time it starts, what it read.
set -euo pipefail
unset OMP_WAIT_POLICY GOMP_SPINCOUNT OLIVE_NO_REEXEC OMP_NUM_THREADS
fail() { echo "FAIL: $*" >&2; exit 1; }
"$BIN/olive-genconn" -q -o net.h5 --cells 64 --generator uniform --density 0 --seed 1
# spins THREADS [VAR=VALUE ...]: the GOMP_SPINCOUNT values libgomp read, one a start
spins() {
  local t=$1; shift
  env OMP_DISPLAY_ENV=VERBOSE "$@" "$BIN/olive-simulate" net.h5 -o "out$t" --force --steps 5 --threads "$t" -q 2>&1 |
    sed -n "s/^ *GOMP_SPINCOUNT = '\([0-9]*\)'.*/\1/p" | tr '\n' ' '
}
static=0
p=$(${CC:-cc} -print-file-name=libgomp.a 2>/dev/null || true)
[ -f "$p" ] && static=1
if readelf -d "$BIN/olive-simulate" | grep -q 'NEEDED.*libgomp'; then
  [ $static = 0 ] || fail "the compiler has libgomp.a ($p) but olive-simulate loads the shared libgomp"
  want2="300000 10000 "   # (libgomp started, then the second start with the setting)
else
  want2="10000 "
fi
got=$(spins 2)
[ "$got" = "$want2" ] || fail "2 threads: libgomp read GOMP_SPINCOUNT '$got', expected '$want2'"
got=$(spins 1)
[ "$got" = "300000 " ] || fail "1 thread: libgomp read GOMP_SPINCOUNT '$got', expected its default once"
got=$(spins 2 GOMP_SPINCOUNT=7)
[ "$got" = "7 " ] || fail "2 threads, the user's GOMP_SPINCOUNT=7: libgomp read '$got'"
got=$(spins 2 OMP_WAIT_POLICY=active)
case "$got" in 10000*) fail "2 threads, the user's OMP_WAIT_POLICY=active: olive set GOMP_SPINCOUNT ('$got')";; esac
[ "$(echo "$got" | wc -w)" = 1 ] || fail "the user's OMP_WAIT_POLICY: libgomp started more than once ('$got')"
# the same results whichever way the threads wait
"$BIN/olive-simulate" net.h5 -o a --steps 200 --threads 2 -q
OMP_WAIT_POLICY=passive "$BIN/olive-simulate" net.h5 -o b --steps 200 --threads 2 -q
"$BIN/olive-analyze" compare -q a b || fail "the wait policy changed the results"
echo "omp wait: ok (libgomp $([ $static = 1 ] && echo static || echo shared), 2 threads read '$want2')"

#!/usr/bin/env bash
# Progress: with stderr in a file, no progress unless --progress;
# with --progress every program's long phase ends on a 100% line giving the
# time taken (simulate adds the simulated time and its rate); -q silences it;
# the results are the same bits with and without it.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
"$BIN/olive-genconn" -o net.h5 --cells 2000 --generator uniform --density 10 --progress 2>gen.err >/dev/null
grep -Eq '^olive-genconn: generating 100\.0% \([0-9]+ s\)$' gen.err || { cat gen.err; fail "genconn --progress: no 100% line"; }
"$BIN/olive-disperse" net.h5 --ranks 3 -o map.h5 --progress 2>dis.err >/dev/null
grep -Eq '^olive-disperse: building plans 100\.0% \(' dis.err || { cat dis.err; fail "disperse --progress: no 100% line"; }
"$BIN/olive-simulate" net.h5 -o a --steps 400 --progress 2>sim.err >/dev/null
grep -Eq '^olive-simulate: simulating 100\.0% \([0-9]+ s, t = 20\.0 ms, [0-9.e+]+ ms simulated per s\)$' sim.err ||
  { cat sim.err; fail "simulate --progress: no 100% line with the simulated time and rate"; }
"$BIN/olive-simulate" net.h5 -o b --steps 400 2>plain.err >/dev/null
if grep -q "simulating" plain.err; then fail "progress shown without --progress on a non-terminal stderr"; fi
"$BIN/olive-simulate" net.h5 -o c --steps 400 --progress -q 2>quiet.err >/dev/null
[ ! -s quiet.err ] || { cat quiet.err; fail "-q --progress printed something"; }
"$BIN/olive-analyze" compare -q a b || fail "--progress changed the results"
echo "progress: ok"
# Threads on fewer cores than they number (mpirun's default binding of 1-2
# ranks): a warning naming the fix; none when the cores suffice.
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  "$BIN/olive-simulate" net.h5 -o d --steps 10 --threads 2 2>bound.err >/dev/null < /dev/null &&
    [ ! -s bound.err ] || { cat bound.err; fail "a warning with enough cores for the threads"; }
  taskset -c 0 "$BIN/olive-simulate" net.h5 -o e --steps 10 --threads 2 2>bound.err >/dev/null
  grep -q "warning: 2 OpenMP thread(s) per rank, but rank 0 may run on only 1 core(s).*--bind-to none" bound.err ||
    { cat bound.err; fail "no warning for 2 threads bound to one core"; }
fi

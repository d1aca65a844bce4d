#!/usr/bin/env bash
# make install (issue 15): programs, man pages (help2man), docs and examples
# under PREFIX (DESTDIR honoured); each man page renders and names the
# program's options; the installed programs run a pipeline from PREFIX/bin.
# olive-analyze does not link libcairo: with the library missing
# (OLIVE_CAIRO_LIB names a file that is not there) every subcommand but plot
# runs, and plot fails with a clear message and leaves no file.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then
  # The sanitizer pass checks memory; installing is checked by the normal pass
  # (help2man would run the sanitized programs, whose exit-time leak reports
  # of MPI's plugins are not the programs' output).
  echo "install: checked in the normal build only"; exit 0
fi
ldd "$BIN/olive-analyze" | grep -q cairo && fail "olive-analyze is linked against libcairo"
make -s -C "$TOP" install BUILD="$BUILD" PREFIX=/opt/olive DESTDIR="$PWD/stage" >make.log 2>&1 || { cat make.log; fail "make install"; }
P="$PWD/stage/opt/olive"
for t in genconn disperse simulate analyze; do
  [ -x "$P/bin/olive-$t" ] || fail "bin/olive-$t not installed"
  page="$P/share/man/man1/olive-$t.1"
  [ -f "$page" ] || fail "man page olive-$t.1 not installed"
  man -l "$page" 2>/dev/null >page.txt || groff -man -Tutf8 "$page" >page.txt 2>/dev/null || fail "olive-$t.1 does not render"
  grep -q "olive-$t" page.txt || fail "olive-$t.1 does not name the program"
done
grep -q -- "--noise" <(man -l "$P/share/man/man1/olive-simulate.1" 2>/dev/null) || fail "olive-simulate.1 lacks --noise"
grep -q -- "--generator" <(man -l "$P/share/man/man1/olive-genconn.1" 2>/dev/null) || fail "olive-genconn.1 lacks --generator"
for f in README.md LICENSE CITATION.cff MODEL.md FORMAT.md examples/demo.sh examples/slurm/03-simulate.sbatch; do
  [ -f "$P/share/doc/olive/$f" ] || fail "share/doc/olive/$f not installed"
done
# the installed programs, from PATH, in a pipeline
export PATH="$P/bin:$PATH"
olive-genconn -q -o net.h5 --cells 50 --generator uniform --density 4
olive-disperse -q net.h5 --ranks 2 -o map.h5
olive-simulate -q net.h5 -o run --steps 200 --pulse 0:5:6
olive-analyze summary run >summary.txt || fail "installed olive-analyze summary"
grep -q "cells *50" summary.txt || { cat summary.txt; fail "summary of the installed pipeline"; }
# no libcairo: summary works, plot refuses cleanly
OLIVE_CAIRO_LIB=/nonexistent/libcairo.so.2 olive-analyze summary run >/dev/null || fail "summary without libcairo"
rc=0; OLIVE_CAIRO_LIB=/nonexistent/libcairo.so.2 olive-analyze plot run -o r.png --kind raster 2>err.txt || rc=$?
[ $rc = 2 ] || fail "plot without libcairo exited $rc"
grep -q "plot needs the cairo library, and /nonexistent/libcairo.so.2 cannot be loaded" err.txt || { cat err.txt; fail "plot without libcairo: message"; }
[ ! -e r.png ] && ! compgen -G "r.png.tmp*" >/dev/null || fail "plot without libcairo left a file"
olive-analyze plot run -o r.png --kind raster >/dev/null || fail "plot with libcairo"
echo "install: ok"

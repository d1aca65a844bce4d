#!/usr/bin/env bash
# make install: programs, plugin headers (a plugin builds against them), man pages (help2man), docs and examples
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
export LC_ALL=C.UTF-8   # the pages rendered as UTF-8 text
# Every long option that a program's --help names (olive-analyze: its
# subcommands' too) is in its rendered man page; the page names the program
# and keeps its non-ASCII symbols.
for t in genconn disperse simulate analyze; do
  [ -x "$P/bin/olive-$t" ] || fail "bin/olive-$t not installed"
  page="$P/share/man/man1/olive-$t.1"
  [ -f "$page" ] || fail "man page olive-$t.1 not installed"
  MANWIDTH=1000 man -l "$page" 2>/dev/null >page.txt || groff -man -Tutf8 -rLL=1000n "$page" >page.txt 2>/dev/null \
    || fail "olive-$t.1 does not render"
  grep -q "^ *olive-$t - " page.txt || fail "olive-$t.1 has no NAME line"
  "$BIN/olive-$t" --help >help.txt
  # help2man makes the SYNOPSIS from a first line "Usage: olive-TOOL ..."
  grep -q "^Usage: olive-$t " help.txt || fail "olive-$t --help: no 'Usage:' line"
  grep -q "^SYNOPSIS" page.txt || fail "olive-$t.1 has no SYNOPSIS"
  # non-ASCII symbols of the help (genconn's ∝, ²) survive (help2man -L C.UTF-8)
  if grep -q '??' "$page" && ! grep -q '??' help.txt; then fail "olive-$t.1 lost the help's non-ASCII symbols"; fi
  if [ $t = analyze ]; then
    for s in summary spikes rates isi sync compare plot; do "$BIN/olive-analyze" $s --help >>help.txt; done
  fi
  opts=$(grep -o -- '--[a-z][a-z0-9-]*' help.txt | sort -u)
  [ "$(echo "$opts" | wc -l)" -ge 5 ] || fail "olive-$t --help names too few options: $opts"
  for o in $opts; do grep -q -e "$o\([^a-z0-9-]\|$\)" page.txt || fail "olive-$t.1 does not name $o"; done
done
grep -q "OLIVE_CAIRO_LIB" <(MANWIDTH=1000 man -l "$P/share/man/man1/olive-analyze.1" 2>/dev/null) || fail "olive-analyze.1 lacks OLIVE_CAIRO_LIB"
# MAN=0 (no help2man on the machine): the same without man pages
make -s -C "$TOP" install BUILD="$BUILD" PREFIX=/opt/olive DESTDIR="$PWD/stage0" MAN=0 >make0.log 2>&1 || { cat make0.log; fail "make install MAN=0"; }
[ -x stage0/opt/olive/bin/olive-simulate ] && [ -f stage0/opt/olive/share/doc/olive/README.md ] && [ ! -e stage0/opt/olive/share/man ] \
  || fail "make install MAN=0"
for f in README.md LICENSE CITATION.cff MODEL.md FORMAT.md examples/demo.sh examples/slurm/03-simulate.sbatch; do
  [ -f "$P/share/doc/olive/$f" ] || fail "share/doc/olive/$f not installed"
done
# a cell-model plugin builds against the installed headers alone
for h in model_plugin.h cellmodel.h plugin_cell.h lif.h hostdev.h fastexp.h fastlog.h; do
  [ -f "$P/include/olive/$h" ] || fail "include/olive/$h not installed"
done
cc -O2 -ffp-contract=off -fPIC -shared -I"$P/include/olive" "$TOP/tests/plugins/lif_cuba_plugin.c" -o plugin.so -lm \
  || fail "the test plugin does not build against include/olive"
# the installed programs, from PATH, in a pipeline
export PATH="$P/bin:$PATH"
olive-genconn -q -o net.h5 --cells 50 --generator uniform --density 4
olive-disperse -q net.h5 --ranks 2 -o map.h5
olive-simulate -q net.h5 -o run --steps 200 --pulse 0:5:6
# libolive from C against the installed header and library: the same run in two pieces gives run's spikes
[ -f "$P/lib/libolive.so" ] && [ -f "$P/include/olive/olive_session.h" ] || fail "libolive.so or olive_session.h not installed"
cat > session.c <<'CEOF'
#include <olive_session.h>
#include <stdio.h>
int main(void)
{
    const char *argv[] = {"session", "net.h5", "-o", "run-pieces", "--steps", "200", "--pulse", "0:5:6", "-q"};
    olive_session *s = olive_session_open(9, argv);
    if (!s || olive_session_run(s, 120) || olive_session_run(s, 80) || olive_session_step(s) != 200) {
        fprintf(stderr, "session: %s\n", olive_session_error());
        return 1;
    }
    printf("%lld spikes\n", (long long)olive_session_spikes(s, NULL, NULL, 0));
    return olive_session_close(s) != 0;
}
CEOF
cc -std=c11 -Wall -Wextra -Werror -I"$P/include/olive" session.c -o session -L"$P/lib" -lolive -Wl,-rpath,"$P/lib" \
  || fail "a C program does not build against the installed libolive"
./session > session.txt || fail "a C program on libolive"
cmp <(h5dump -d /spikes/io/timestamps run/spikes.h5 | tail -n +3) <(h5dump -d /spikes/io/timestamps run-pieces/spikes.h5 | tail -n +3) \
  || fail "libolive's run in two pieces differs from olive-simulate's"
echo "ok libolive from C: $(cat session.txt), as olive-simulate's"
olive-analyze summary run >summary.txt || fail "installed olive-analyze summary"
grep -q "cells *50" summary.txt || { cat summary.txt; fail "summary of the installed pipeline"; }
# no libcairo: summary works, plot refuses cleanly
OLIVE_CAIRO_LIB=/nonexistent/libcairo.so.2 olive-analyze summary run >/dev/null || fail "summary without libcairo"
rc=0; OLIVE_CAIRO_LIB=/nonexistent/libcairo.so.2 olive-analyze plot run -o r.png --kind raster 2>err.txt || rc=$?
[ $rc = 2 ] || fail "plot without libcairo exited $rc"
grep -q "^olive-analyze: error: plot: /nonexistent/libcairo.so.2 not found (apt-get install libcairo2): .*No such file" err.txt || { cat err.txt; fail "plot without libcairo: message"; }
[ ! -e r.png ] && ! compgen -G "r.png.tmp*" >/dev/null || fail "plot without libcairo left a file"
OLIVE_CAIRO_LIB=/nonexistent/libcairo.so.2 olive-analyze plot --help | grep -q -- "--kind" || fail "plot --help without libcairo"
# a library that is not cairo: the first missing function is named (every dlsym checked)
rc=0; OLIVE_CAIRO_LIB=libz.so.1 olive-analyze plot run -o r.png --kind raster 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "plot: libz.so.1 has no function cairo_" err.txt && [ ! -e r.png ] || { cat err.txt; fail "plot with a non-cairo library"; }
olive-analyze plot run -o r.png --kind raster >/dev/null || fail "plot with libcairo"
[ "$(head -c 8 r.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "plot with libcairo: not a PNG"
echo "install: ok"

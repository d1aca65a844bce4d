#!/usr/bin/env bash
# Replays tests/fuzz/regressions/*: inputs that crashed a fuzz harness
# (tests/fuzz/, `make fuzz`) before the bug was fixed, and hand-written edge
# cases. FORMAT-WHAT.EXT goes through the program that reads FORMAT:
# edges/matrix/sonata through olive-genconn --import, spksonata through
# olive-genconn --import-synapses, netfile and synfile through olive-simulate,
# swc through olive-genconn --model hh_swc --morphology (an swc file begins
# with '#', the harness's mode byte, so that it is an SWC file as it stands);
# FILE.args holds extra options. Each must end cleanly:
# exit 0 with a valid output, or exit 1 with stderr naming the file and no
# output left behind; never a signal, a sanitizer report or a usage error.
set -u
nfail=0 n=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
for f in "$TESTS"/fuzz/regressions/*; do
  [[ "$f" == *.args ]] && continue
  name=$(basename "$f")
  fmt=${name%%-*}
  args=()
  [ -f "$f.args" ] && read -r -a args < "$f.args"
  rm -rf out.h5 out
  case $fmt in
    edges|matrix|sonata) cmd=("$BIN/olive-genconn" -o out.h5 --import "$f" --import-format "$fmt" "${args[@]}"); result=out.h5 ;;
    netfile|synfile) cmd=("$BIN/olive-simulate" "$f" -o out --steps 2 "${args[@]}"); result=out ;;
    spksonata) cmd=("$BIN/olive-genconn" -o out.h5 --model lif_cuba --cells 500 --import-synapses "$f" "${args[@]}"); result=out.h5 ;;
    swc) cmd=("$BIN/olive-genconn" -o out.h5 --model hh_swc --cells 1 --morphology "$f" "${args[@]}"); result=out.h5 ;;
    *) fail "$name: unknown format '$fmt' (name files FORMAT-WHAT.EXT)"; continue ;;
  esac
  n=$((n + 1))
  rc=0
  OMP_NUM_THREADS=1 timeout 60 "${cmd[@]}" >out.txt 2>err.txt || rc=$?
  if grep -qE 'Sanitizer|runtime error' err.txt; then fail "$name: sanitizer report: $(head -n 5 err.txt)"; continue; fi
  case $rc in
    0) [ -e "$result" ] || fail "$name: accepted but no $result" ;;
    1) grep -qF -- "$f" err.txt || fail "$name: refused without naming the file: $(cat err.txt)"
       [ ! -e "$result" ] && ! compgen -G "$result.tmp-*" >/dev/null || fail "$name: output left behind" ;;
    *) fail "$name: exit status $rc: $(head -n 5 err.txt)"; continue ;;
  esac
  echo "ok $name: exit $rc $(head -n 1 err.txt)"
done
[ $n -gt 0 ] || fail "no regression inputs in $TESTS/fuzz/regressions"
[ $nfail -eq 0 ] || { echo "$nfail failure(s)"; exit 1; }
echo "$n regression inputs handled cleanly"

#!/usr/bin/env bash
# The spiking examples run as a user would run them (examples/tutorial_cuba.sh,
# brette_cuba.sh, brette_coba.sh; 300 ms here) and give active, asynchronous
# networks: every one spikes at a mean rate between 1 and 60 Hz.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
for e in tutorial_cuba brette_cuba brette_coba; do
  TIME=300 OUT=$e BIN="$BIN" bash "$TOP/examples/$e.sh" >$e.log 2>&1 || { cat $e.log >&2; fail "examples/$e.sh failed"; }
  rate=$(sed -n 's/^mean rate *\([0-9.]*\) Hz.*/\1/p' $e.log)
  # several populations: summary's one row per population (cells, duration, spikes, ...)
  [ -n "$rate" ] || rate=$(awk '$1 == "population" && $2 == "cells" { t = 1; next } t && NF == 6 { c += $2; s += $4; d = $3 }
                                t && NF != 6 { t = 0 } END { if (c > 0 && d > 0) print s / c / (d / 1000) }' $e.log)
  awk -v r="$rate" 'BEGIN { exit !(r > 1 && r < 60) }' || fail "$e: mean rate '$rate' Hz is not that of an active asynchronous network"
  echo "$e: $rate Hz"
done

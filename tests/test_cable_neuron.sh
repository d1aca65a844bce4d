#!/usr/bin/env bash
# Multi-compartment cells (issue 19) against NEURON 9 (PyPI neuron, pinned in
# tests/peer_venv.sh): a ball-and-stick (hh soma, passive dendrite of 21
# segments) and a branched cell (hh soma, an active dendrite splitting in two
# passive ones, an hh axon on the soma's 0 end; 16 C), each with an IClamp,
# 100 ms at dt 0.025 ms. olive's cell (common/cable.h through
# build/tests/test_cable trace) and NEURON's (scripts/neuron_cable_compare.py,
# hh.mod with usetable_hh = 0) must agree within 1e-6 mV at every probe and
# step, and the soma must fire. Then a 100-cell network (ball-and-stick cells,
# ExpSyn on the dendrite, 1000 connections with delays 1-5 ms, NetCon
# threshold 10 mV; `test_cable net`): the same spikes, cell by cell, at the
# same steps, and activity beyond the 10 driven cells.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then   # the traces under the sanitizers; NEURON in the normal build
  for cell in ball_stick branched; do "$TOP/$BUILD/tests/test_cable" trace $cell olive_$cell.txt || fail "trace $cell"; done
  exit 0
fi
source "$TESTS/peer_venv.sh"
for cell in ball_stick branched; do
  "$TOP/$BUILD/tests/test_cable" trace $cell olive_$cell.txt || fail "test_cable trace $cell"
  "$venv/bin/python" "$TOP/scripts/neuron_cable_compare.py" $cell olive_$cell.txt 2>&1 | grep -v "DISPLAY\|graphics" \
    | tee cmp_$cell.log
  grep -q '^PASS' cmp_$cell.log || fail "$cell: olive's voltages differ from NEURON's"
done
"$venv/bin/python" "$TOP/scripts/neuron_cable_compare.py" net "$TOP/$BUILD/tests/test_cable" 2>&1 \
  | grep -v "DISPLAY\|graphics" | tee cmp_net.log
grep -q '^PASS' cmp_net.log || fail "the network's spikes differ from NEURON's"

#!/usr/bin/env bash
# The NEURON, NEST and bmtk sketches of docs/IMPORT-EXPORT.md run as written
# on olive's SONATA export of a symmetric network with 64-bit conductances,
# with pip's neuron and nest-simulator (pinned, in a venv cached under the
# build directory), and build what the network file says
# (tests/peer_sketches.py: every half-gap's and gap junction's conductance,
# coupled cells following a current into one of them under NEURON).
# Needs PyPI the first time: without it this test fails, saying so.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then
  # The sketches run peers' code on olive's export; the sanitizer pass checks
  # olive's memory, and the export is read in test_sonata_readers there.
  echo "peer sketches: checked in the normal build only"; exit 0
fi
source "$TESTS/peer_venv.sh"
export PATH="$venv/bin:$PATH" OMP_NUM_THREADS=1
"$BIN/olive-genconn" -q -o net.h5 --cells 30 --generator uniform --density 4 --symmetric \
    --conductance 0.01:0.05 --conductance-bits 64 --export-sonata net
doc="$TOP/docs/IMPORT-EXPORT.md"
python "$TESTS/peer_sketches.py" "$doc" extract
nrnivmodl halfgap.mod >nrnivmodl.log 2>&1 || { tail -20 nrnivmodl.log; fail "nrnivmodl halfgap.mod (the doc's mechanism)"; }
python "$TESTS/peer_sketches.py" "$doc" neuron 2>&1 | grep -v "DISPLAY\|No graphics"
python "$TESTS/peer_sketches.py" "$doc" nest 2>&1 | grep -E "^nest |Error|error|assert" || fail "NEST sketch"
python "$TESTS/peer_sketches.py" "$doc" bmtk
echo "peer sketches: ok"

#!/usr/bin/env bash
# Multi-compartment cells (issue 19) against NEURON 9 (PyPI neuron, pinned in
# tests/peer_venv.sh): a ball-and-stick (hh soma, passive dendrite of 21
# segments) and a branched cell (hh soma, an active dendrite splitting in two
# passive ones, an hh axon on the soma's 0 end; 16 C), each with an IClamp,
# 100 ms at dt 0.025 ms. olive's cell (common/cable.h through
# build/tests/test_cable trace) and NEURON's (scripts/neuron_cable_compare.py)
# must agree within 1e-9 mV at every probe and step, and the soma must fire:
# with hh.mod's rate tables (NEURON's default usetable_hh = 1, olive's
# default) and with its formulas (usetable_hh = 0, olive's hh_tables = 0). Then a 100-cell network (ball-and-stick cells,
# ExpSyn on the dendrite, 1000 connections with delays 1-5 ms, NetCon
# threshold 10 mV; `test_cable net`): the same spikes, cell by cell, at the
# same steps, and activity beyond the 10 driven cells; again with an Exp2Syn; and the
# ExpSyn network as hh_cable cells through olive-genconn and olive-simulate on
# 1, 2 and 3 ranks (the same spikes again). And tests/data/cell.swc
# (3-point soma, tapering 3-d sections, forks) cut by common/swc.c and, the
# same way, by the script with pt3dadd: within 1e-6 mV, with segments of at
# most 20 um and with nseg by the d_lambda rule (NEURON's lambda_f there); and
# (swcbio) with non-default biophysics per section type (hh_swc's soma.Ra,
# dend.hh, axon.pas ...: cable_model.c; nseg by d_lambda from each type's Ra
# and cm), with tables and formulas. Bad SWC files are refused naming the
# file, line and fault.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
T="$TOP/$BUILD/tests/test_cable"
bad_swc() {  # name expected-message lines...
  local name=$1 want=$2; shift 2
  printf '%s\n' "$@" > $name.swc
  if "$T" trace swc:$name.swc out_$name.txt 2> $name.err; then fail "$name.swc was accepted"; fi
  grep -q "$name.swc.*$want" $name.err || fail "$name.swc: expected '$want', got: $(cat $name.err)"
  [ ! -s out_$name.txt ] || fail "$name.swc: a trace was written"
}
bad_swc noparent "parent 7 is not a point given before" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 7"
bad_swc twice "point id 2 is given twice" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1" "2 3 0 20 0 1 2"
bad_swc dendroot "the first point must be the root, a soma point" "1 3 0 0 0 5 -1" "2 3 0 10 0 1 1"
bad_swc columns ":2: expected 'id type x y z radius parent'" "1 1 0 0 0 5 -1" "2 3 0 10 0 1"
bad_swc radius "need a positive id and radius" "1 1 0 0 0 5 -1" "2 3 0 10 0 0 1"
bad_swc long "needs more than 32767 segments" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1" "3 3 0 1e9 0 1 2"   # (fuzz_swc)
bad_swc lone "has no length" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1"   # one point off the soma
if [ "$BUILD" = build-san ]; then   # the traces under the sanitizers; NEURON in the normal build
  for cell in ball_stick branched swc:$TESTS/data/cell.swc swcdl:$TESTS/data/cell.swc swcbio:$TESTS/data/cell.swc; do
    "$T" trace $cell olive.txt || fail "trace $cell"
  done
  "$T" trace swcbio:$TESTS/data/cell.swc olive.txt formula || fail "trace swcbio formula"
  exit 0
fi
source "$TESTS/peer_venv.sh"
compare_trace() {  # CELL [formula]: olive's trace against NEURON's (tables, or with formula hh's formulas)
  local cell=$1 mode=${2:-}
  local tag=${cell%%:*}${mode:+_$mode}
  "$T" trace $cell olive_$tag.txt $mode || fail "test_cable trace $cell $mode"
  "$venv/bin/python" "$TOP/scripts/neuron_cable_compare.py" $cell olive_$tag.txt ${mode:+--formula} 2>&1 \
    | grep -v "DISPLAY\|graphics" | tee cmp_$tag.log
  grep -q '^PASS' cmp_$tag.log || fail "$cell ${mode:-tables}: olive's voltages differ from NEURON's"
}
for cell in ball_stick branched swcbio:$TESTS/data/cell.swc; do
  compare_trace $cell
  compare_trace $cell formula
done
for cell in swc:$TESTS/data/cell.swc swcdl:$TESTS/data/cell.swc; do compare_trace $cell; done
for mode in net net2; do   # ExpSyn, Exp2Syn
  "$venv/bin/python" "$TOP/scripts/neuron_cable_compare.py" $mode "$T" 2>&1 | grep -v "DISPLAY\|graphics" | tee cmp_$mode.log
  grep -q '^PASS' cmp_$mode.log || fail "the $mode network's spikes differ from NEURON's"
done
# The ExpSyn network through the pipeline (hh_cable cells: olive-genconn
# --import-synapses of a SONATA edges file, olive-simulate on 1, 2, 3 ranks).
"$venv/bin/python" "$TOP/scripts/neuron_cable_compare.py" pipeline "$BIN" 2>&1 | grep -v "DISPLAY\|graphics" | tee cmp_pipeline.log
grep -q '^PASS' cmp_pipeline.log || fail "olive-simulate's hh_cable network differs from NEURON's, or between rank counts"
# 40 cells of tests/data/cell.swc (hh_swc, --morphology) with the ExpSyn on
# a dendrite: NEURON's spikes through olive-genconn and olive-simulate on 1 and 2 ranks.
"$venv/bin/python" "$TOP/scripts/neuron_cable_compare.py" pipeline_swc:$TESTS/data/cell.swc "$BIN" 2>&1 \
  | grep -v "DISPLAY\|graphics" | tee cmp_pipeline_swc.log
grep -q '^PASS' cmp_pipeline_swc.log || fail "olive-simulate's hh_swc network differs from NEURON's, or between rank counts"

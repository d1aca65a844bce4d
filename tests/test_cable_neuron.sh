#!/usr/bin/env bash
# Multi-compartment cells against NEURON 9 (PyPI neuron, pinned in
# tests/peer_venv.sh): a ball-and-stick (hh soma, passive dendrite of 21
# segments) and a branched cell (hh soma, an active dendrite splitting in two
# passive ones, an hh axon on the soma's 0 end; 16 C), each with an IClamp,
# 100 ms at dt 0.025 ms. olive's cell (common/models/cable.h through
# build/tests/test_cable trace) and NEURON's (scripts/neuron_cable_compare.py)
# must agree within 1e-9 mV at every probe and step, and the soma must fire:
# with hh.mod's rate tables (NEURON's default usetable_hh = 1, olive's
# default) and with its formulas (usetable_hh = 0, olive's hh_tables = 0). Then a 100-cell network (ball-and-stick cells,
# ExpSyn on the dendrite, 1000 connections with delays 1-5 ms, NetCon
# threshold 10 mV; `test_cable net`): the same spikes, cell by cell, at the
# same steps, and activity beyond the 10 driven cells; again with an Exp2Syn; and the
# ExpSyn network as hh_cable cells through olive-genconn and olive-simulate on
# 1, 2 and 3 ranks (the same spikes again). And SWC files as NEURON's users
# load them (scripts/neuron_swc_compare.py: Import3d_SWC_read and
# Import3d_GUI.instantiate) against common/models/swc.c's reading, every segment
# within 1e-9 mV over 100 ms of current clamp, with segments of at most 20 um,
# with nseg by the d_lambda rule, and (swcbio) with non-default biophysics per
# section type (hh_swc's soma.Ra, dend.hh, axon.pas, custom.* ...; nseg by
# d_lambda from each type's Ra and cm), all with NEURON's default hh tables,
# and some with hh's formulas: tests/data/cell.swc (a soma chain of three
# points, children on its first, middle and last), a part of a NeuroMorpho.Org
# cell (three-point soma), a part of a NeuroMorpho.Org Purkinje cell (a soma of
# 17 contour points), MorphIO's simple.swc (one-point soma; tests/data/README)
# and two files made here. Bad SWC files are refused naming the
# file, line and fault. Last (scripts/neuron_network_compare.py): a
# network of two populations of each NeuroMorpho.Org part, non-default
# biophysics per section type and population, synapses at sites drawn over
# the dendrites 20-300 um from the soma (sites=dend:20:300) and from a list
# (sites=@FILE), Exp2Syn at one population's sites, one projection without
# sites: NEURON's spikes, its network built from the network file alone
# through Import3d, from olive-genconn + olive-simulate on 1 and 3 ranks.
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
bad_swc order "point id 2 after id 3: ids must increase" "1 1 0 0 0 5 -1" "3 3 0 10 0 1 1" "2 3 0 20 0 1 1"
bad_swc bigid "ids above 16777216" "1 1 0 0 0 5 -1" "16777217 3 0 10 0 1 1"
bad_swc trees "2 roots" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 -1"
bad_swc dendroot "the first point must be the root, a soma point" "1 3 0 0 0 5 -1" "2 3 0 10 0 1 1"
bad_swc columns ":2: expected 'id type x y z radius parent'" "1 1 0 0 0 5 -1" "2 3 0 10 0 1"
bad_swc radius "need a positive id and radius" "1 1 0 0 0 5 -1" "2 3 0 10 0 0 1"
bad_swc long "needs more than 32767 segments" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1" "3 3 0 1e9 0 1 2"   # (fuzz_swc)
bad_swc flat "has no length" "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1" "3 3 0 10 0 1 2" "4 3 0 10 0 1 3"
# As NEURON's chk_valid: a section of two 3-d points at one place is removed
# (a warning), its children go where it attached (compared with NEURON below)
printf '%s\n' "1 1 0 0 0 5 -1" "2 3 0 10 0 1 1" "3 3 0 20 0 1 2" "4 3 0 20 0 1 3" "5 3 5 25 0 1 4" "6 3 -5 25 0 1 3" \
  "7 3 0 30 0 1 4" > zerolen.swc
"$T" trace swc:zerolen.swc out_zerolen.txt 2> zerolen.err || fail "zerolen.swc: $(cat zerolen.err)"
grep -q "zerolen.swc: the section ending at point 4 has two 3-d points at one place; removed" zerolen.err \
  || fail "zerolen.swc: no warning: $(cat zerolen.err)"
# Import3d's other rules, compared with NEURON below: a soma chain branching
# at point 3 (soma[2]), a custom type (dend_7) and the axon on the root's first
# point (0 end), a dendrite by a wire from an interior soma point (soma(0.5)),
# a one-point apic on the soma's last point
printf '%s\n' "1 1 0 0 0 4 -1" "2 1 0 4 0 5 1" "3 1 0 8 0 4 2" "4 1 0 12 0 3 3" "5 7 -3 0 0 1 1" "6 7 -8 0 0 0.8 5" \
  "7 3 5 4 0 1 2" "8 3 12 4 0 0.8 7" "9 3 18 5 0 0.6 8" "10 1 -4 8 0 3 3" "11 1 -8 9 0 2 10" "12 4 0 20 0 1 4" \
  "13 2 2 -4 0 0.5 1" "14 2 2 -20 0 0.4 13" "15 3 -12 10 0 0.5 11" "16 3 -20 12 0 0.4 15" > rules.swc
if [ "$BUILD" = build-san ]; then   # the traces under the sanitizers; NEURON in the normal build
  for cell in ball_stick branched swc:$TESTS/data/cell.swc swcdl:$TESTS/data/cell.swc swc:$TESTS/data/c91662_part.CNG.swc \
      swcdl:$TESTS/data/purkinje_part.CNG.swc swc:$TESTS/data/morphio_simple.swc swcbio:rules.swc; do
    "$T" trace $cell olive.txt || fail "trace $cell"
  done
  "$T" trace swcbio:$TESTS/data/cell.swc olive.txt formula || fail "trace swcbio formula"
  exit 0
fi
source "$TESTS/peer_venv.sh"
compare_trace() {  # CELL [formula]: olive's trace against NEURON's (tables, or with formula hh's formulas)
  local cell=$1 mode=${2:-} script=neuron_cable_compare.py
  local tag=${cell%%:*}_${cell##*/}${mode:+_$mode}
  case $cell in swc*) script=neuron_swc_compare.py;; esac
  "$T" trace $cell olive_$tag.txt $mode || fail "test_cable trace $cell $mode"
  "$venv/bin/python" "$TOP/scripts/$script" $cell olive_$tag.txt ${mode:+--formula} 2>&1 \
    | grep -v "DISPLAY\|graphics" | tee cmp_$tag.log
  grep -q '^PASS' cmp_$tag.log || fail "$cell ${mode:-tables}: olive's voltages differ from NEURON's"
}
for cell in ball_stick branched; do
  compare_trace $cell
  compare_trace $cell formula
done
for path in $TESTS/data/cell.swc $TESTS/data/c91662_part.CNG.swc $TESTS/data/purkinje_part.CNG.swc \
    $TESTS/data/morphio_simple.swc zerolen.swc rules.swc; do
  for mode in swc swcdl swcbio; do compare_trace $mode:$path; done
done
# hh's formulas (usetable_hh = 0); rules.swc's custom type 7 with custom.* biophysics
for cell in swcbio:$TESTS/data/cell.swc swcbio:rules.swc swc:$TESTS/data/purkinje_part.CNG.swc; do
  compare_trace $cell formula
done
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
# Two populations of a NeuroMorpho.Org part each, synapses at sites over their
# dendrites (Exp2Syn at one population's): NEURON's spikes on 1 and 3 ranks.
for swc in c91662_part.CNG.swc purkinje_part.CNG.swc; do
  "$venv/bin/python" "$TOP/scripts/neuron_network_compare.py" $TESTS/data/$swc "$BIN" 2>&1 \
    | grep -v "DISPLAY\|graphics" | tee cmp_network_$swc.log
  grep -q '^PASS' cmp_network_$swc.log || fail "the network of $swc with synapses at sites differs from NEURON's"
done

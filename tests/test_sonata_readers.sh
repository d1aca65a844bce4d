#!/usr/bin/env bash
# The SONATA files olive writes open in the readers users have: pip's
# libsonata and bmtk, pinned, installed into a venv cached under the build
# directory (pip's own cache under ~/.cache/pip makes a fresh clone's install
# fast). Every output is read with them and compared with olive's values
# (tests/sonata_readers.py). Needs PyPI the first time: without it this test
# fails, saying so, rather than pass unchecked.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then   # (the readers are the peers' code; olive's writers run under the sanitizers elsewhere)
  echo "SONATA readers: checked in the normal build only"; exit 0
fi
LIBSONATA=0.2.2 BMTK=1.2.0
source "$TESTS/venv_cached.sh"
venv="$TOP/$BUILD/venv-readers"
venv_cached "$venv" ".olive-libsonata-$LIBSONATA-bmtk-$BMTK" "libsonata==$LIBSONATA" "bmtk==$BMTK"
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
export OMP_NUM_THREADS=1
"$G" -o net.h5 --cells 60 --generator uniform --density 5 --seed 4 --symmetric --gcal 0.6:0.8 \
     --export-sonata circ >/dev/null
"$S" net.h5 -o run --steps 600 --record v_axon,v_dend --record-cells 7:31 --pulse 1:25:6 >/dev/null
"$venv/bin/python" "$TESTS/sonata_readers.py" run circ net.h5 2>&1 | grep -v '^HDF5-DIAG\|^  #\|^    '
# the same checks on a 2-rank run and a 2-rank export (parallel writers)
mpirun -np 2 --oversubscribe "$G" -o net2.h5 --cells 60 --generator uniform --density 5 --seed 4 --symmetric \
       --gcal 0.6:0.8 --export-sonata circ2 >/dev/null
mpirun -np 2 --oversubscribe "$S" net2.h5 -o run2 --steps 600 --record v_axon,v_dend --record-cells 7:31 --pulse 1:25:6 >/dev/null
"$venv/bin/python" "$TESTS/sonata_readers.py" run2 circ2 net2.h5 2>&1 | grep -v '^HDF5-DIAG\|^  #\|^    '
# a compartment report of ball-and-stick cells: libsonata's
# ElementReportReader and bmtk's CompartmentReport read its element ids and values
"$G" -q -o ball.h5 --model hh_cable --population a:6 --population b:4 --param dend_nseg=3@b \
     --projection from=all,to=all,p=0.3,weight=0.01,delay=1,receptor=ge
"$S" -q ball.h5 -o ballrun --time 30 --pulse 1:25:0.3:0:4 --record v --record-compartments v   # float32: libsonata reads no other
"$venv/bin/python" "$TESTS/element_report_check.py" ballrun 0:6:5,6:10:3 --readers 2>&1 | grep -v '^HDF5-DIAG\|^  #\|^    '

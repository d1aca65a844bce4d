#!/usr/bin/env bash
# Prepares, on a machine with nvcc, what scripts/gpu-nmodl-check.sh runs on the
# GPU host (issue 57): the Allen perisomatic mechanisms (bmtk 1.2.0's package)
# built by olive-model build with their GPU image into DIR/models, and network
# files of Allen cells with their SWC files beside them (relative paths):
#   cells_*.h5   one Allen cell each (4 cell types, one with NaV's KINETIC scheme), and
#                cells_hh.h5: NEURON's hh.mod (its rate TABLE) on soma and axon
#   net.h5       N cells of the four types (N/4 each) with synapses between them
#                (p = 0.05, ExpSyn at the soma, delays 1-3 ms) for spikes and state
#   big.h5       10,000 cells of the four types, no synapses, for the timing
#   bench.h5     the same at v0 -80 mV, 0.4 nA: scripts/gpu-nmodl-bench.sh's cells (NEURON builds
#                them from bmtk's own files, copied to bmtk/: Biophys1.hoc, cell_models.py, SWC, fit JSON)
#   bnet.h5      a bmtk BioNet network (scripts/bmtk_bionet_network.py) as olive-genconn imports it
#   bsyn.h5      the same with NEURON's exp2syn.mod as its synapses (--synapse-mechanism; library allensyn)
# Usage: scripts/gpu-nmodl-prepare.sh DIR   (BIN: olive-genconn's folder; PY: a
# Python with nmodl==0.5 and h5py; BIONET: bmtk's bionet folder)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd) BIN=${BIN:-$top/build/bin} PY=${PY:-$top/build/venv-nmodl/bin/python}
BIONET=${BIONET:-$top/build/venv-bionet/lib/python3.11/site-packages/bmtk/utils/scripts/bionet}
NRNMODS=${NRNMODS:-$top/build/venv-bionet/lib/python3.11/site-packages/neuron/.data/share/modfile}
rm -rf "$dir" && mkdir -p "$dir" && mkdir -m 700 "$dir/models"
cp -r "$BIONET/mechanisms/modfiles" "$dir/mods" && rm "$dir/mods/vecevent.mod"
PYTHONPATH="$top/python" OLIVE_MODEL_CACHE="$dir/models" "$PY" -m olive.model_cli build "$dir/mods" --name allen >/dev/null
# NEURON's own hh.mod (its rate TABLE) for one more cell
mkdir "$dir/hhmods" && cp "$NRNMODS/hh.mod" "$dir/hhmods/" && cp "$top/tests/data/hh_fit.json" "$dir/"
PYTHONPATH="$top/python" OLIVE_MODEL_CACHE="$dir/models" "$PY" -m olive.model_cli build "$dir/hhmods" --name nrnhh >/dev/null
# the Allen set with NEURON's exp2syn.mod and expsyn.mod: NMODL synapses
cp -r "$dir/mods" "$dir/synmods" && cp "$NRNMODS/exp2syn.mod" "$NRNMODS/expsyn.mod" "$dir/synmods/"
PYTHONPATH="$top/python" OLIVE_MODEL_CACHE="$dir/models" "$PY" -m olive.model_cli build "$dir/synmods" --name allensyn >/dev/null
cells="Scnn1a_473845048:472363762 Rorb_325404214:473863510 Nr5a1_471087815:473863035 Pvalb_470522102:472912177"
export OLIVE_MODEL_PATH="$dir/models"
all=(--model biophys_swc --mechanisms allen --param celsius=34 --param I_e=0.4 --seed 3)
big=("${all[@]}")
bench=(--model biophys_swc --mechanisms allen --param celsius=34 --param v0=-80 --param I_e=0.4)
mkdir -p "$dir/bmtk/morphologies" "$dir/bmtk/biophysical_neuron_models"
BMTK_PKG=$(cd "$BIONET/../../.." && pwd)
cp "$BMTK_PKG/simulator/bionet/default_templates/Biophys1.hoc" "$BMTK_PKG/simulator/bionet/default_setters/cell_models.py" \
   "$dir/bmtk/"
for c in $cells; do
  m=${c%%:*} p=${c%%_*}
  cp "$BIONET/morphologies/${m}_m.swc" "$BIONET/biophysical_neuron_models/${c##*:}_fit.json" "$dir/"
  (cd "$dir" && "$BIN/olive-genconn" -q -o "cells_$p.h5" --model biophys_swc --population cell:1 --morphology "${m}_m.swc" \
     --biophysics "${c##*:}_fit.json" --mechanisms allen --param celsius=34 --param v0=-80)
  all+=(--population "$p:${N:-400}" --morphology "${m}_m.swc@$p" --biophysics "${c##*:}_fit.json@$p")
  big+=(--population "$p:2500" --morphology "${m}_m.swc@$p" --biophysics "${c##*:}_fit.json@$p")
  bench+=(--population "$p:2500" --morphology "${m}_m.swc@$p" --biophysics "${c##*:}_fit.json@$p")
  cp "$BIONET/morphologies/${m}_m.swc" "$dir/bmtk/morphologies/"
  cp "$BIONET/biophysical_neuron_models/${c##*:}_fit.json" "$dir/bmtk/biophysical_neuron_models/"
done
(cd "$dir" && "$BIN/olive-genconn" -q -o cells_hh.h5 --model biophys_swc --population cell:1 \
   --morphology Scnn1a_473845048_m.swc --biophysics hh_fit.json --mechanisms nrnhh --param celsius=30 --param v0=-66)
(cd "$dir" && "$BIN/olive-genconn" -q -o net.h5 "${all[@]}" --v0 -85:-70 \
   --projection from=all,to=all,p=0.05,weight=0.002,delay=1:3,receptor=ge &&
 "$BIN/olive-genconn" -q -o big.h5 "${big[@]}" --v0 -85:-70 && "$BIN/olive-genconn" -q -o bench.h5 "${bench[@]}")
# a bmtk BioNet network (scripts/bmtk_bionet_network.py: 8 Allen cells, virtual lgn inputs, exp2syn at sites)
"${BMTK_PY:-$top/build/venv-bionet/bin/python}" "$top/scripts/bmtk_bionet_network.py" build "$dir/bnet" >/dev/null 2>&1
cp "$dir"/bnet/components/morphologies/*.swc "$dir/"
(cd "$dir" && "$BIN/olive-genconn" -q -o bnet.h5 --model biophys_swc --mechanisms allen --import-circuit bnet/config.json \
   --import-node-population v1 --import-spikes bnet/inputs/lgn_spikes.h5 --param celsius=34 --param v0=-80 &&
 "$BIN/olive-genconn" -q -o bsyn.h5 --model biophys_swc --mechanisms allensyn --synapse-mechanism ge=Exp2Syn \
   --synapse-mechanism gi=Exp2Syn --import-circuit bnet/config.json --import-node-population v1 \
   --import-spikes bnet/inputs/lgn_spikes.h5 --param celsius=34 --param v0=-80)
rm -rf "$dir/bnet"
# the SWC paths relative to the files (olive-genconn stores them absolute)
"$PY" - "$dir" <<'PY'
import glob, os, sys, h5py
for f in glob.glob(os.path.join(sys.argv[1], "*.h5")):
    with h5py.File(f, "r+") as h:
        for g in h["cells/populations"].values():
            if "morphology" in g.attrs:
                g.attrs["morphology"] = os.path.basename(g.attrs["morphology"])
PY
ls -la "$dir" "$dir/models"

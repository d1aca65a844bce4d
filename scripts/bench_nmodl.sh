#!/usr/bin/env bash
# Allen cells with NEURON's own mechanisms (issue 57): olive's CPU engine on
# the Allen perisomatic set compiled by olive-model build, against NEURON 9
# with the same .mod files compiled by its nrnivmodl and the cells built by
# bmtk BioNet's own code (scripts/bench_nmodl_neuron.py), same cells, on this
# machine: NEURON on one thread (NaV.mod is not thread safe), olive on one and
# on THREADS; the final soma potential of every cell must agree within 1e-6 mV.
# Prints a table. Needs the venvs of tests/test_nmodl.sh
# (build/venv-nmodl, build/venv-bionet). CELLS (64, a multiple of 4),
# STEPS (4000: 100 ms), THREADS (2).
#   bash scripts/bench_nmodl.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
BIN=$top/$BUILD/bin
NM=$top/build/venv-nmodl/bin/python BN=$top/build/venv-bionet/bin/python
for p in "$NM" "$BN"; do [ -x "$p" ] || { echo "bench_nmodl: $p missing (tests/test_nmodl.sh makes it)"; exit 1; }; done
T=${THREADS:-2} CELLS=${CELLS:-64} STEPS=${STEPS:-4000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bionet=$("$BN" -c 'import bmtk, os; print(os.path.dirname(bmtk.__file__))')/utils/scripts/bionet
mkdir "$work/mods" && cp "$bionet"/mechanisms/modfiles/*.mod "$work/mods/" && rm "$work/mods/vecevent.mod"
mkdir -m 700 "$work/cache"
export OLIVE_MODEL_CACHE=$work/cache
PYTHONPATH="$top/python" "$NM" -m olive.model_cli build "$work/mods" --name allen >/dev/null 2>&1
args=(--model biophys_swc --mechanisms allen --param celsius=34 --param v0=-80 --param I_e=0.4)
for c in Scnn1a_473845048:472363762 Rorb_325404214:473863510 Nr5a1_471087815:473863035 Pvalb_470522102:472912177; do
  p=${c%%_*}
  args+=(--population "$p:$((CELLS / 4))" --morphology "$bionet/morphologies/${c%%:*}_m.swc@$p"
         --biophysics "$bionet/biophysical_neuron_models/${c##*:}_fit.json@$p")
done
"$BIN/olive-genconn" -q -o "$work/cells.h5" "${args[@]}"
ms=$(echo "$STEPS" | awk '{ print $1 * 0.025 }')
olive_rate() {  # THREADS: the step loop's cell-steps/s
  "$BIN/olive-simulate" "$work/cells.h5" -o "$work/run$1" --time "$ms" --threads "$1" --record none 2>&1 \
    | sed -n 's/.* \([0-9.e+]*\) cell-steps\/s in the step loop.*/\1/p'
}
o1=$(OMP_NUM_THREADS=1 olive_rate 1) ot=$(olive_rate "$T")
(cd "$work/mods" && "$(dirname "$BN")/nrnivmodl" >/dev/null 2>&1)
# NEURON on one thread: NaV.mod is not thread safe (NEURON refuses ParallelContext.nthread > 1 with it; bmtk
# BioNet runs in parallel by MPI ranks)
n=$("$BN" "$top/scripts/bench_nmodl_neuron.py" --mech-dir "$work/mods" --cells "$CELLS" --steps "$STEPS" --threads 1 \
      --expect "$work/run1/state.h5" 2>&1 | grep -v "DISPLAY\|graphics\|ptr_update_callback") \
  || { echo "bench_nmodl: NEURON differs from olive: $n" >&2; exit 1; }
ncs=$(echo "$n" | awk '$1 == "neuron" { print $5 }')
echo "# Allen perisomatic cells (bmtk 1.2.0's 4 types, 16 NMODL mechanisms): $CELLS cells, $STEPS steps of 0.025 ms, $(nproc) cores, $(date -u +%F)"
echo "$n" | grep '^#' || true
printf '%-52s %14s %14s\n' program cell-steps/s "x NEURON"
row() { printf '%-52s %14s %14.2f\n' "$1" "$2" "$(echo "$2 $ncs" | awk '{ print $1 / $2 }')"; }
row "NEURON 9.0.2, 1 thread (bmtk BioNet's cells)" "$ncs"
row "olive CPU engine, 1 thread" "$o1"
row "olive CPU engine, $T threads" "$ot"

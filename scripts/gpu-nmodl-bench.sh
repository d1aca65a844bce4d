#!/usr/bin/env bash
# 10,000 Allen cells (bmtk 1.2.0's four perisomatic types, 2,500 each, the 16
# NMODL mechanisms; 0.4 nA from t = 0, v0 -80 mV, celsius 34, dt 0.025 ms)
# on the GPU host (issue 57), in one call: olive's CUDA engine, olive's CPU
# engine on every core, and NEURON 9.0.2 on every core, with a table.
# NEURON: nrnivmodl compiles the same .mod files here; NaV.mod is not thread
# safe, so NEURON runs the cells (they are not connected) as one process per
# core, each a share of the cells built by bmtk's own aibs_perisomatic from
# bmtk's files (scripts/bench_nmodl_neuron.py --bmtk-files --part): its time
# is the slowest process's step loop. Every NEURON cell's final soma
# potential must equal olive's GPU run within 1e-6 mV.
#   BIN=DIR DATA=DIR (scripts/gpu-nmodl-prepare.sh's) NRN_WHEELS=DIR (neuron 9.0.2's wheel for this
#   Python, find-libpython, packaging; numpy; h5dump on PATH) PY=python3
#   MS (1000: the GPU's and NEURON's time), CPU_MS (100: olive's CPU engine)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin} PY=${PY:-python3} DATA=${DATA:?} NRN_WHEELS=${NRN_WHEELS:?}
MS=${MS:-1000} CPU_MS=${CPU_MS:-100} P=$(nproc)
export OLIVE_MODEL_PATH=$DATA/models
work=$(mktemp -d)
site=$work/site
"$PY" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$NRN_WHEELS"/*.whl \
  || { echo "NEURON's wheels did not install"; exit 1; }
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
mkdir "$work/mods" && cp "$DATA"/mods/*.mod "$work/mods/"
(cd "$work/mods" && "$PY" -c 'import neuron' >/dev/null 2>&1; PATH=$site/bin:$PATH nrnivmodl > nrnivmodl.txt 2>&1) \
  || { echo "nrnivmodl failed:"; tail -20 "$work/mods/nrnivmodl.txt"; exit 1; }
rate() { sed -n 's/.* \([0-9.e+]*\) cell-steps\/s in the step loop.*/\1/p'; }
g=$("$BIN/olive-simulate" "$DATA/bench.h5" -o "$work/gpu" --time "$MS" --backend cuda --record none 2>&1 | tee "$work/gpu.txt" | rate)
c=$("$BIN/olive-simulate" "$DATA/bench.h5" -o "$work/cpu" --time "$CPU_MS" --backend cpu --threads "$P" --record none 2>&1 | rate)
steps=$(echo "$MS" | awk '{ printf "%d", $1 / 0.025 + 0.5 }')
h5dump -m %.17g -y -d /state/v -o "$work/v.txt" "$work/gpu/state.h5" > /dev/null || { echo "h5dump of state/v failed"; exit 1; }
t0=$(date +%s.%N)
for ((k = 0; k < P; k++)); do
  "$PY" "$top/scripts/bench_nmodl_neuron.py" --mech-dir "$work/mods" --cells 10000 --steps "$steps" --part "$k/$P" \
    --bmtk-files "$DATA/bmtk" --expect "$work/v.txt" > "$work/nrn$k.txt" 2>&1 &
done
wait
t1=$(date +%s.%N)
bad=0
for ((k = 0; k < P; k++)); do
  grep -q '^neuron ' "$work/nrn$k.txt" || { echo "NEURON process $k:"; tail -5 "$work/nrn$k.txt"; bad=1; }
done
[ $bad = 0 ] || exit 1
grep -h '^#' "$work"/nrn*.txt | sort | uniq -c | sed 's/^/# /'
if grep -h "differ from olive" "$work"/nrn*.txt; then echo "# NEURON's cells differ from olive's"; bad=1; fi
slow=$(cat "$work"/nrn*.txt | awk '$1 == "neuron" && $4 > m { m = $4 } END { print m }')
n=$(echo "$steps $slow" | awk '{ print 10000 * $1 / $2 }')
echo "# 10,000 Allen cells, ${MS} ms (olive CPU: ${CPU_MS} ms), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $P cores, $(date -u +%F)"
echo "# NEURON: $P processes of 1/$P of the cells; slowest step loop $slow s, all processes $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s wall"
printf '%-58s %14s %12s\n' program cell-steps/s "x NEURON"
row() { printf '%-58s %14s %12.2f\n' "$1" "$2" "$(echo "$2 $n" | awk '{ print $1 / $2 }')"; }
row "NEURON 9.0.2, $P processes (bmtk's aibs_perisomatic)" "$n"
row "olive CPU engine, $P threads" "$c"
row "olive CUDA engine, 1 GPU" "$g"
grep -h "step loop" "$work/gpu.txt" | sed 's/^/# olive GPU: /'
exit $bad

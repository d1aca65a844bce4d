#!/usr/bin/env bash
# NMODL mechanisms on the GPU against the CPU, on the GPU host (issue 57), from
# what scripts/gpu-nmodl-prepare.sh made (DATA):
# - each Allen cell (Scnn1a, Rorb, Nr5a1, Pvalb with NaV's KINETIC scheme), 100 ms
#   of a 0.4 nA clamp, and NEURON's hh.mod (its rate TABLE) at 1 nA: --backend cuda = --backend cpu bit for bit (the compartment
#   report of v, double; the spikes; the final state);
# - net.h5 (1600 cells with synapses), 200 ms: CUDA = CPU (spikes, state);
# - bnet.h5 (a bmtk BioNet network imported), 300 ms: CUDA = CPU (spikes, state); bsyn.h5 (the same with
#   NEURON's exp2syn.mod as its synapses): CUDA = CPU (every compartment's v, spikes, state);
# - timing: big.h5 (10,000 Allen cells) for BIG_GPU_MS (200) ms on the GPU and BIG_CPU_MS (50) on the
#   CPU with every core (olive's own engines; NEURON is not run here).
#   BIN=DIR (olive-simulate), PY=python3 (numpy, h5py), DATA=DIR; OUT=DIR for results;
#   CELLS_ONLY=1: the single cells only.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin} PY=${PY:-python3} DATA=${DATA:?} OUT=${OUT:-$PWD/gpu-nmodl-out}
export OLIVE_MODEL_PATH=$DATA/models
mkdir -p "$OUT"
work=$(mktemp -d)
bad=0
check() { local what=$1; shift; if "$@" > "$work/log.txt" 2>&1; then echo "PASS $what"; else echo "FAIL $what"; tail -n 15 "$work/log.txt"; bad=1; fi; }
same() { "$PY" "$top/tests/same_datasets.py" "$@"; }
for p in Scnn1a Rorb Nr5a1 Pvalb hh; do
  amp=0.4 rec=v,cai,ina && [ $p = hh ] && amp=1 rec=v,ina
  for b in cpu cuda; do
    "$BIN/olive-simulate" -q "$DATA/cells_$p.h5" -o "$work/$p-$b" --time 100 --param I_e=$amp --backend $b \
      --record-compartments $rec --record-precision double 2>&1 | tail -3
  done
  check "$p: CUDA = CPU (v, cai, ina of every compartment, spikes, state)" same "$work/$p-cpu" "$work/$p-cuda" v_compartments.h5 $([ $p = hh ] || echo cai_compartments.h5) ina_compartments.h5 spikes.h5 state.h5
  "$PY" -c "import h5py; print('$p spikes:', len(h5py.File('$work/$p-cpu/spikes.h5')['spikes/cell/timestamps']))"
done
if [ "${CELLS_ONLY:-0}" = 1 ]; then echo "checks: $([ $bad = 0 ] && echo all passed || echo FAILED)"; exit $bad; fi
for b in cpu cuda; do
  /usr/bin/time -f "net $b: %e s wall" "$BIN/olive-simulate" "$DATA/net.h5" -o "$work/net-$b" --time 200 --backend $b \
    $([ $b = cpu ] && echo --threads "$(nproc)") 2>&1 | tail -3
done
check "net.h5: CUDA = CPU (spikes, state)" same "$work/net-cpu" "$work/net-cuda" spikes.h5 state.h5
for b in cpu cuda; do
  "$BIN/olive-simulate" -q "$DATA/bnet.h5" -o "$work/bnet-$b" --time 300 --backend $b 2>&1 | tail -3
done
check "bnet.h5 (bmtk BioNet network, spike sources, Exp2Syn at sites): CUDA = CPU (spikes, state)" \
  same "$work/bnet-cpu" "$work/bnet-cuda" spikes.h5 state.h5
for b in cpu cuda; do
  "$BIN/olive-simulate" -q "$DATA/bsyn.h5" -o "$work/bsynv-$b" --time 300 --backend $b --record-compartments v \
    --record-precision double 2>&1 | tail -3
done
check "bsyn.h5 (NMODL Exp2Syn, NET_RECEIVE on the GPU): CUDA = CPU (v of every compartment, spikes, state)" \
  same "$work/bsynv-cpu" "$work/bsynv-cuda" v_compartments.h5 spikes.h5 state.h5

"$BIN/olive-simulate" "$DATA/big.h5" -o "$work/big-cuda" --time "${BIG_GPU_MS:-200}" --backend cuda 2>&1 | tail -3
"$BIN/olive-simulate" "$DATA/big.h5" -o "$work/big-cpu" --time "${BIG_CPU_MS:-50}" --backend cpu --threads "$(nproc)" 2>&1 | tail -3
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
echo "checks: $([ $bad = 0 ] && echo all passed || echo FAILED)"
exit $bad

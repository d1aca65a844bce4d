#!/usr/bin/env bash
# The scaling runs of docs/BENCHMARKS.md on the GPUs of one node, through
# scripts/bench-scaling.sh (one rank per GPU; strong runs check that every
# rank count gives bit-identical outputs). On the GPU host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-scaling.sh [PART...]
# PART: infoli-strong, infoli-weak, lif-strong, lif-weak (default: all).
# Networks (the issue's):
#   infoli-strong  4M cells x 1000 gaussian junctions (the original study's
#                  headline network), 2000 steps
#   infoli-weak    4M cells per GPU (2000 x 2000P lattice), 500 steps
#   lif-strong     1M lif_cuba cells x 1000 synapses (the Brian2CUDA
#                  comparison's network: p = 0.001, delay 0), 1 s
#   lif-weak       1M cells per GPU, in-degree 1000 (p = 0.001 / P), 1 s
# Results: $OUT/scaling-PART.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${OUT:-$PWD/gpu-scaling-out}
mkdir -p "$dest"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / $(nvidia-smi -L | wc -l) ))}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(infoli-strong infoli-weak lif-strong lif-weak)
gauss=(--generator gaussian --density 1000 --sigma 20 --conductance 0.01:0.05 --conductance-bits 8 --seed 1)
lif() {  # lif CELLS-EXC CELLS-INH P: lif_cuba, the CUBA law of scripts/gpu-bench-brian2cuda.sh
  echo --model lif_cuba --population "exc:$1" --population "inh:$2" --v0 -60:-50 --seed 1 \
    --projection "from=exc,to=all,p=$3,weight=0.1296,delay=0,receptor=ge" \
    --projection "from=inh,to=all,p=$3,weight=-0.72,delay=0,receptor=gi"
}
# Scratch in memory where it has room (the 8M-cell network's file is 40 GB;
# /dev/shm takes half the host's memory): reading and writing at memory speed
if [ -z "${TMPDIR:-}" ] && [ "$(df -k --output=avail /dev/shm 2>/dev/null | tail -1)" -gt 60000000 ] 2>/dev/null; then
  export TMPDIR=/dev/shm
fi
echo "# scratch: ${TMPDIR:-/tmp} ($(df -hT "${TMPDIR:-/tmp}" | tail -1))"
nfail=0
for part in "${parts[@]}"; do
  log="$dest/scaling-$part.txt"
  {
    echo "## $part on $(hostname), $(date -u +%FT%TZ), OMP_NUM_THREADS=$OMP_NUM_THREADS"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | sed 's/^/# GPU /'
  } >"$log"
  case $part in
    infoli-strong) bash "$top/scripts/bench-scaling.sh" g4M 2000 --dims 2000x2000 "${gauss[@]}" ;;
    infoli-weak) WEAK=1 bash "$top/scripts/bench-scaling.sh" g4M-per-GPU 500 --dims '2000x{2000}' "${gauss[@]}" ;;
    # shellcheck disable=SC2046
    lif-strong) bash "$top/scripts/bench-scaling.sh" c1m 10000 $(lif 800000 200000 0.001) ;;
    # shellcheck disable=SC2046
    lif-weak) WEAK=1 bash "$top/scripts/bench-scaling.sh" c1m-per-GPU 10000 $(lif '{800000}' '{200000}' '{/0.001}') ;;
    *) echo "gpu-scaling.sh: unknown part $part" ;;
  esac >>"$log" 2>&1 || { echo "FAILED: $part" >>"$log"; nfail=$((nfail + 1)); }
  cat "$log"
done
exit $((nfail > 0))

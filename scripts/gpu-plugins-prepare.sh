#!/usr/bin/env bash
# Build, here (nvcc found), the NESTML models scripts/gpu-validate-plugins.sh
# and gpu-validate-plasticity.sh run on the GPU host, into DIR (default
# build-cuda/plugins): each NAME.so with its GPU image; and pyNN.olive's own
# NESTML models (python/olive/pynn/nestml: PyNN's EIF and Izhikevich cells)
# into the model cache PYNN_DIR (default build-cuda/pynn-models), where
# scripts/gpu-validate-pynn.sh points pyNN.olive (the GPU host has no NESTML).
# Needs build/venv-nestml (tests/test_nestml_build.sh makes it).
#   bash scripts/gpu-plugins-prepare.sh [DIR [PYNN_DIR]]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-cuda/plugins}
pynn_dir=${2:-$top/build-cuda/pynn-models}
py=$top/build/venv-nestml/bin/python
lib=$top/build/venv-nestml/models/neurons
mkdir -p "$dir"
for f in "$top/examples/nestml/lif_cuba_nestml.nestml" "$lib"/{izhikevich,iaf_psc_exp,iaf_psc_alpha,iaf_cond_exp,iaf_cond_alpha,aeif_cond_exp,hh_psc_alpha}_neuron.nestml; do
  PYTHONPATH="$top/python" "$py" -m olive.nestml build "$f" -o "$dir" 2>&1 | grep -v '^olive-model: .*solver' || true
done
ls "$dir"/*.gpu >/dev/null || { echo "gpu-plugins-prepare: no GPU images (is nvcc found?)" >&2; exit 1; }
mkdir -p "$pynn_dir"
for f in "$top"/python/olive/pynn/nestml/*.nestml; do
  PYTHONPATH="$top/python" OLIVE_MODEL_CACHE="$pynn_dir" "$py" -m olive.nestml build "$f" 2>&1 | grep -v '^olive-model: .*solver' || true
done
ls "$pynn_dir"/*.gpu >/dev/null || { echo "gpu-plugins-prepare: no GPU images in $pynn_dir" >&2; exit 1; }

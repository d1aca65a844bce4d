#!/usr/bin/env bash
# Build, here (nvcc found), the NESTML models scripts/gpu-validate-plugins.sh
# runs on the GPU host, into DIR (default build-cuda/plugins): each NAME.so
# with its GPU image. Needs build/venv-nestml (tests/test_nestml_build.sh makes it).
#   bash scripts/gpu-plugins-prepare.sh [DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-cuda/plugins}
py=$top/build/venv-nestml/bin/python
lib=$top/build/venv-nestml/models/neurons
mkdir -p "$dir"
for f in "$top/examples/nestml/lif_cuba_nestml.nestml" "$lib"/{izhikevich,iaf_psc_exp,iaf_psc_alpha,iaf_cond_exp,iaf_cond_alpha,aeif_cond_exp,hh_psc_alpha}_neuron.nestml; do
  PYTHONPATH="$top/python" "$py" -m olive.nestml build "$f" -o "$dir" 2>&1 | grep -v '^olive-model: .*solver' || true
done
ls "$dir"/*.gpu >/dev/null || { echo "gpu-plugins-prepare: no GPU images (is nvcc found?)" >&2; exit 1; }

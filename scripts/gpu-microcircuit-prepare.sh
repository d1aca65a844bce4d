#!/usr/bin/env bash
# Prepare, here, what scripts/gpu-microcircuit.sh needs on the GPU host
# (which has no nvcc and no PyPI): into DIR (default build-cuda/mc)
#   iaf_psc_exp_v0_neuron.so  NESTML's iaf_psc_exp_neuron with v0 (examples/microcircuit),
#                             built with its GPU image (olive-model build, nvcc found);
#   wheels/                   NEST, numpy and h5py for CPython 3.12 (the host's Ubuntu 24.04),
#                             the pins of tests/peer_venv.sh; NEST's wheel without its
#                             documentation and C++ test binary (the carry limit is 64 MiB).
#   bash scripts/gpu-microcircuit-prepare.sh [DIR]
# NO_WHEELS=1: the model only (scripts/gpu-multiarea-prepare.sh's).
# Needs build/venv-nestml (tests/test_nestml_build.sh) and build/venv-peers (tests/peer_venv.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-cuda/mc}
eval "$(grep -m1 '^NEURON=' "$top/tests/peer_venv.sh")"   # NEST=, H5PY= (the pins, without making the venv)
source "$top/tests/python_pins.sh"
mkdir -p "$dir/wheels"
py=$top/build/venv-nestml/bin/python
"$py" "$top/examples/microcircuit/microcircuit.py" --make-model \
    "$top/build/venv-nestml/models/neurons/iaf_psc_exp_neuron.nestml" "$dir/iaf_psc_exp_v0_neuron.nestml"
PYTHONPATH="$top/python" "$py" -m olive.nestml build "$dir/iaf_psc_exp_v0_neuron.nestml" -o "$dir" >/dev/null
[ -e "$dir/iaf_psc_exp_v0_neuron.gpu" ] || { echo "gpu-microcircuit-prepare: no GPU image (is nvcc found?)" >&2; exit 1; }
if [ "${NO_WHEELS:-0}" = 1 ]; then rmdir "$dir/wheels"; du -sh "$dir"; exit 0; fi
pip=$top/build/venv-peers/bin/pip
dl=$(mktemp -d)
trap 'rm -rf "$dl"' EXIT
"$pip" download -q --no-deps --only-binary=:all: --python-version 3.12 -d "$dl" \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    "nest-simulator==$NEST" "numpy==$NUMPY" "h5py==$H5PY"
cp "$dl"/numpy-*.whl "$dl"/h5py-*.whl "$dir/wheels/"
# NEST without nest/doc (examples' figures, 13 MB) and bin/run_all_cpptests: unpacked, not pip-installed, on the host
"$top/build/venv-peers/bin/python" - "$dl"/nest_simulator-*.whl "$dir/wheels/nest_simulator-trimmed.zip" <<'PY'
import sys, zipfile
src, dst = sys.argv[1:3]
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
    for i in zi.infolist():
        if i.filename.startswith(("nest/doc/", "bin/")):
            continue
        zo.writestr(i, zi.read(i.filename))
PY
du -sh "$dir"

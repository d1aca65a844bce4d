#!/usr/bin/env bash
# The pinned Brian2CUDA of the GPU comparison in a venv under
# build/: prints its python. Brian2CUDA 1.0a6 is the newest that installs on
# Debian 12's Python 3.11 (1.0b1 needs brian2 2.10.1, which needs a newer one).
# Its brian2 2.7.1 needs numpy 1 (numpy 2 dropped ndarray.ptp).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BRIAN2CUDA=1.0a6 H5PY=3.12.1 NUMPY=1.26.4
venv="$top/${BUILD:-build}/venv-b2cuda"
stamp="$venv/.olive-brian2cuda-$BRIAN2CUDA-h5py-$H5PY-numpy-$NUMPY"
if [ ! -e "$stamp" ]; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "brian2cuda==$BRIAN2CUDA" "h5py==$H5PY" "numpy==$NUMPY" >&2 \
    || { echo "brian2cuda_venv.sh: pip could not install brian2cuda==$BRIAN2CUDA h5py==$H5PY" >&2; exit 1; }
  touch "$stamp"
fi
echo "$venv/bin/python"

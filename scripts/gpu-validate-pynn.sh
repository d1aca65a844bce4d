#!/usr/bin/env bash
# pyNN.olive on the GPU: the same PyNN scripts with backend="cuda" and "cpu"
# give the same spikes, and PyNN's scenarios pass on the GPU as on the CPU.
# For the lent GPU machine, which has python3 with numpy and h5py but no
# package index: PyNN and its pure-Python dependencies come as wheels in
# build/wheelhouse (made on the dev VM:
#   build/venv-python/bin/pip download --no-deps --only-binary :all: -d build/wheelhouse \
#       PyNN==0.13.0 lazyarray==0.6.0 neo==0.14.3 quantities==0.16.4 pytest==8.4.2 iniconfig pluggy packaging pygments)
# and PyNN's tests in build/pynn-0.13.0-tests (made by tests/test_pynn.sh).
#   OUT=DIR [PYNN_MODELS=DIR] bash scripts/gpu-validate-pynn.sh
set -uo pipefail
OUT=${OUT:-/tmp/olive-gpu-pynn}
TOP=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
site=$(mktemp -d)
for w in "$TOP"/build/wheelhouse/*.whl; do python3 -m zipfile -e "$w" "$site" || exit 1; done
# pyNN.olive's NESTML models (PyNN's EIF and Izhikevich cells) built with their GPU images where
# nvcc is (scripts/gpu-plugins-prepare.sh): the GPU host has no NESTML to build them
PYNN_MODELS=${PYNN_MODELS:-$TOP/build-cuda/pynn-models}
ls "$PYNN_MODELS"/pynn_eif_cond_exp_isfa_ista.gpu >/dev/null || { echo "no GPU builds of pyNN.olive's NESTML models in $PYNN_MODELS (scripts/gpu-plugins-prepare.sh)"; exit 1; }
export PYTHONPATH="$site:$TOP/python" OLIVE_BIN="$TOP/build/bin" OLIVE_MODEL_CACHE="$PYNN_MODELS"
python3 -c "import numpy, h5py, pyNN, neo; print('python', __import__('sys').version.split()[0], 'numpy', numpy.__version__, 'h5py', h5py.__version__)" || exit 1
python3 -m olive.pynn.install >/dev/null || exit 1
bad=0
work=$(mktemp -d)
cd "$work" || exit 1
for b in cuba coba; do
  for be in cpu cuda; do
    /usr/bin/time -f "%e s" python3 "$TOP/examples/pynn/brette.py" $b --backend $be --spikes "$b-$be.npz" 2>&1 | sed "s/^/$be: /"
  done
  python3 - "$b" <<'PYEOF' || bad=1
import sys, numpy as np
b = sys.argv[1]
x, y = np.load(f"{b}-cpu.npz"), np.load(f"{b}-cuda.npz")
same = np.array_equal(x["ids"], y["ids"]) and np.array_equal(x["times"], y["times"])
print(f"{b}: {len(x['ids'])} spikes on the CPU, {len(y['ids'])} on the GPU: {'identical' if same else 'DIFFERENT'}")
sys.exit(0 if same and len(x["ids"]) > 1000 else 1)
PYEOF
done
python3 "$TOP/examples/pynn/infoli.py" --side 32 --compare --backend cpu > infoli-cpu.txt
python3 "$TOP/examples/pynn/infoli.py" --side 32 --compare --backend cuda > infoli-cuda.txt
cat infoli-cuda.txt
cmp -s infoli-cpu.txt infoli-cuda.txt && echo "infoli 32x32: CPU and GPU print the same" || { echo "infoli: CPU and GPU differ"; cat infoli-cpu.txt; bad=1; }
# PyNN's scenarios with every run on the GPU (those that import scipy or matplotlib only where they are there)
cp -r "$TOP/build/pynn-0.13.0-tests/scenarios" "$TOP/tests/pynn/conftest.py" "$TOP/tests/pynn/expected.tsv" .
mods=$(cd scenarios && for f in test_*.py; do
  if grep -q "scipy\|matplotlib" "$f" && ! python3 -c "import scipy, matplotlib" 2>/dev/null; then continue; fi
  echo "scenarios/$f"; done)
OLIVE_PYNN_BACKEND=cuda python3 -m pytest -q -rfE -p no:cacheprovider -p no:warnings $mods > "$OUT/scenarios-cuda.txt" 2>&1 || bad=1
tail -n 3 "$OUT/scenarios-cuda.txt"
echo "scenario modules run: $(echo $mods | wc -w)"
[ $bad = 0 ] && echo "ALL PASSED" || echo "SOME FAILED"

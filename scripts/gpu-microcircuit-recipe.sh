#!/usr/bin/env bash
# The full microcircuit by its maintainers' benchmark recipe on the GPU host
# (scripts/microcircuit_recipe.py: SEEDS networks per drive, with and without
# spike recording, the simulation phase timed apart from set-up, NEST 3.10
# on the host's cores in the same call, and the accuracy check against
# NEST's statistics). Prepared here by scripts/gpu-microcircuit-prepare.sh
# DIR (the plugin with its GPU image, the wheels of NEST, numpy, h5py); on
# the host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && MC=DIR OUT=$OUT bash scripts/gpu-microcircuit-recipe.sh
# DRIVES (default "poisson,dc"), SEEDS (default 10), FIRST_SEED (default 1),
# TIME ms (default 10500: 500 transient + 10 s), NEST_SEEDS per drive
# (default 1; 0: olive alone), NEST_NO_RECORD=1 (NEST once more without
# spike recorders), THREADS (NEST's; default every core), BIN.
# Results: $OUT/recipe.txt and $OUT/recipe.json.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build-cuda/bin}
MC=${MC:-$top/build-cuda/mc}
dest=${OUT:-$PWD/gpu-microcircuit-recipe-out}
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/tmp}/olive-recipe.XXXXXX")
trap 'rm -rf "$work"' EXIT
py=$(command -v python3.12 || command -v python3)
{
  echo "microcircuit benchmark recipe on $(hostname) $(date -u +%FT%TZ): drives ${DRIVES:-poisson,dc}, ${SEEDS:-10} seeds from ${FIRST_SEED:-1}, ${TIME:-10500} ms, NEST ${NEST_SEEDS:-1} seed(s) a drive"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
  lscpu 2>/dev/null | grep -E '^Model name' | sed 's/  */ /g'
} | tee "$dest/recipe.txt"
"$py" - "$MC/wheels" "$work/site" <<'PY' || { echo "FAIL: cannot unpack the wheels" | tee -a "$dest/recipe.txt"; exit 1; }
import sys, os, zipfile
for w in sorted(os.listdir(sys.argv[1])):
    zipfile.ZipFile(os.path.join(sys.argv[1], w)).extractall(sys.argv[2])
PY
export PYTHONPATH=$work/site TMPDIR=$work
"$py" "$top/scripts/microcircuit_recipe.py" --bin "$BIN" --plugin "$MC/iaf_psc_exp_v0_neuron.so" \
    --drives "${DRIVES:-poisson,dc}" --seeds "${SEEDS:-10}" --first-seed "${FIRST_SEED:-1}" --time "${TIME:-10500}" \
    --nest-seeds "${NEST_SEEDS:-1}" --nest-threads "${THREADS:-$(nproc)}" $([ "${NEST_NO_RECORD:-0}" = 1 ] && echo --nest-no-record) \
    --json "$dest/recipe.json" 2>&1 | grep -v "predicted memory" | tee -a "$dest/recipe.txt"
exit "${PIPESTATUS[0]}"

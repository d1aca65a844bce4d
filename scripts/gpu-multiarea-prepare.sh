#!/usr/bin/env bash
# Prepare, here, what scripts/gpu-multiarea.sh needs on the GPU host (no
# nvcc, no PyPI, no checkout of the model there): into DIR
#   iaf_psc_exp_v0_neuron.*   the neuron with its GPU image (gpu-microcircuit-prepare.sh NO_WHEELS=1)
#   sSCALE/                   examples/multiarea/multiarea.py's files at N_scaling = K_scaling = SCALE
#                             (commands.txt, projections.txt, populations.json), --procedural
#   theory_rates.json         the model's own mean-field rates at scale 1 (multiarea.py --theory:
#                             its Theory.integrate_siegert), the reference of the full-scale run
#   fullscale_rates.json      the rates the model ships in tests/fullscale_rates.json (for its down-scaling;
#                             their parameters are not documented), shown beside
#   with NEST=1 also, for the comparison with NEST 3.10 on the host's cores in the same call
#   (scripts/multiarea_nest_compare.py, run by gpu-multiarea.sh):
#   wheels/                   NEST 3.10, numpy 2 and h5py as gpu-microcircuit-prepare.sh carries them
#                             for CPython 3.12, and model-pure.zip: the model's pure-Python requirements
#                             (nested_dict, dicthash, future) from build/venv-mam; scipy, pandas,
#                             matplotlib are the host's own (they need NumPy 2: multiarea.py gives the
#                             model's code the three names NumPy 2 removed)
#   checkout/                 the model's code and data from CHECKOUT (multiarea_model/, tests/
#                             fullscale_rates.json, the metastable state's K_prime_original.npy; no
#                             config.py: gpu-multiarea.sh writes the host's); CC BY-NC-SA, carried to
#                             the host for the run, never into olive's repository
#   bash scripts/gpu-multiarea-prepare.sh CHECKOUT DIR [STATE] [SCALES]   (STATE ground, SCALES "0.01 1")
# Needs build/venv-nestml and build/venv-mam (tests/multiarea_venv.sh); CHECKOUT: the user's
# checkout of INM-6/multi-area-model, with its config.py.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mam=$(cd "$1" && pwd) dir=$2 state=${3:-ground} scales=${4:-0.01 1}
mkdir -p "$dir"
NO_WHEELS=1 bash "$top/scripts/gpu-microcircuit-prepare.sh" "$dir" > /dev/null
for sc in $scales; do
  # (relative places: gpu-multiarea.sh runs the commands in a directory of its own)
  (cd "$dir" && "$top/build/venv-mam/bin/python" "$top/examples/multiarea/multiarea.py" --mam "$mam" --plugin PLUGIN \
      --scale "$sc" --state "$state" --out "s$sc" --bin BIN --procedural \
      $([ "$sc" = 1 ] && echo --theory theory_rates.json) > /dev/null 2> "s$sc.log") ||
    { tail "$dir/s$sc.log" >&2; exit 1; }
done
cp "$mam/tests/fullscale_rates.json" "$dir/"
if [ "${NEST:-0}" = 1 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  bash "$top/scripts/gpu-microcircuit-prepare.sh" "$tmp/mc" > /dev/null
  mkdir -p "$dir/wheels"
  site=$("$top/build/venv-mam/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # the microcircuit's NEST, numpy and h5py (numpy without its own tests: the carry limit); the model's
  # pure-Python requirements as they are in build/venv-mam
  "$top/build/venv-mam/bin/python" - "$tmp/mc/wheels" "$dir/wheels" "$site" <<'PY'
import os, sys, zipfile
src, dst, site = sys.argv[1:4]
for w in os.listdir(src):
    with zipfile.ZipFile(os.path.join(src, w)) as zi, zipfile.ZipFile(os.path.join(dst, w), "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if not (w.startswith("numpy") and "/tests/" in i.filename):
                zo.writestr(i, zi.read(i.filename))
with zipfile.ZipFile(os.path.join(dst, "model-pure.zip"), "w", zipfile.ZIP_DEFLATED) as zo:
    for pkg in ("nested_dict", "dicthash", "future", "past", "libfuturize", "libpasteurize"):
        for root, _, files in os.walk(os.path.join(site, pkg)):
            for f in files:
                if not f.endswith(".pyc"):
                    full = os.path.join(root, f)
                    zo.write(full, os.path.relpath(full, site))
PY
  rm -rf "$dir/checkout"
  # (config_files/ and simulations/ are in the model's repository, empty: its code writes there)
  mkdir -p "$dir/checkout/tests" "$dir/checkout/figures/SchueckerSchmidt2017" "$dir/checkout/config_files" \
      "$dir/checkout/simulations"
  (cd "$mam" && tar cf - --exclude='*.eps' --exclude='__pycache__' multiarea_model) | tar xf - -C "$dir/checkout"
  cp "$mam/tests/fullscale_rates.json" "$dir/checkout/tests/"
  cp "$mam/figures/SchueckerSchmidt2017/K_prime_original.npy" "$dir/checkout/figures/SchueckerSchmidt2017/"
fi
du -sh "$dir"

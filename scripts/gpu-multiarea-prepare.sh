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
du -sh "$dir"

#!/usr/bin/env bash
# The Potjans & Diesmann (2014) microcircuit at full scale on the GPU host:
# olive's CUDA engine (procedural projections: the ~3e8 synapses drawn at
# set-up) against NEST 3.10 on the host's CPU cores running NEST's own
# example, in the same call (scripts/microcircuit_nest_compare.py: timings,
# real-time factors, and per population rate, CV and correlation compared as
# samples). Prepared here by scripts/gpu-microcircuit-prepare.sh (the plugin
# with its GPU image, the wheels); on the host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-microcircuit.sh
# SCALE (default 1), SEED (default 55), SEEDS (networks a side, default 1), TIME ms (default 10500: 500 transient + 10 s measured),
# THREADS (default: every core), SKIP_NEST=1 (olive alone: timings only;
# then DC=1 gives the DC background instead of Poisson, microcircuit.py --dc),
# ORDER_FREE=0 (olive without --order-free-sums: the events summed in key
# order from per-target lists instead of added by atomics; default 1).
# Results: $OUT/microcircuit.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build-cuda/bin}
MC=${MC:-$top/build-cuda/mc}
dest=${OUT:-$PWD/gpu-microcircuit-out}
SCALE=${SCALE:-1} TIME=${TIME:-10500} THREADS=${THREADS:-$(nproc)} SEED=${SEED:-55}
OF=$([ "${ORDER_FREE:-1}" = 1 ] && echo " --order-free-sums")
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/tmp}/olive-mc.XXXXXX")
trap 'rm -rf "$work"' EXIT
results=$dest/microcircuit.txt
py=$(command -v python3.12 || command -v python3)
{
  echo "microcircuit on $(hostname) $(date -u +%FT%TZ): scale $SCALE, seed $SEED, $TIME ms, $THREADS threads, $($py --version 2>&1)${OF:+, olive$OF}"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
  lscpu 2>/dev/null | grep -E '^Model name' | sed 's/  */ /g'
} | tee "$results"
# the wheels unpacked (the host has no pip for its python): NEST, numpy, h5py
"$py" - "$MC/wheels" "$work/site" <<'PY' || { echo "FAIL: cannot unpack the wheels" | tee -a "$results"; exit 1; }
import sys, os, zipfile
for w in sorted(os.listdir(sys.argv[1])):
    zipfile.ZipFile(os.path.join(sys.argv[1], w)).extractall(sys.argv[2])
PY
export PYTHONPATH=$work/site
export OMP_NUM_THREADS=$THREADS
plugin=$MC/iaf_psc_exp_v0_neuron.so
args=(--bin "$BIN" --plugin "$plugin" --scale "$SCALE" --time "$TIME" --transient 500 --threads "$THREADS" --seed "$SEED"
      --seeds "${SEEDS:-1}"
      --procedural --olive-args "--backend cuda$OF")
if [ "${SKIP_NEST:-0}" = 1 ] || ! "$py" -c "import nest, numpy, h5py" >"$work/import.log" 2>&1; then
  [ "${SKIP_NEST:-0}" = 1 ] || { echo "NEST cannot be imported:"; tail -n 5 "$work/import.log"; } | tee -a "$results"
  # olive alone: genconn and olive-simulate -v
  "$py" "$top/examples/microcircuit/microcircuit.py" --plugin "$plugin" --scale "$SCALE" --time "$TIME" \
      --bin "$BIN" --out "$work/mc" --seed "$SEED" --procedural $([ "${DC:-0}" = 1 ] && echo --dc) $OF > "$work/cmds.txt"
  mkdir -p "$work/mc"
  /usr/bin/time -f "genconn %e s" bash -c "$(sed -n 1p "$work/cmds.txt")" 2>&1 | tee -a "$results"
  bash -c "$(sed -n 2p "$work/cmds.txt" | sed 's/ -q / /') --backend cuda -v" 2>&1 | grep -v "predicted memory" | tee -a "$results"
  exit 0
fi
"$py" "$top/scripts/microcircuit_nest_compare.py" "${args[@]}" 2>&1 | grep -v "predicted memory" | tee -a "$results"
exit "${PIPESTATUS[0]}"

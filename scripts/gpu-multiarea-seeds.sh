#!/usr/bin/env bash
# The multi-area model's step loop over several realizations: for each seed
# in SEEDS (default "1 2 3"), the network drawn by olive-genconn --seed S
# and the run made with olive-simulate --seed S, MS ms (default 3000) at
# SCALE (default 1), with EXTRA (default --order-free-sums) and --no-spikes;
# a row each of the spikes, the synaptic events, the set-up, event
# (exchange) and cell (compute) times, and the wall time a simulated second
# of the step loop (events + cells). A figure per simulated second is one
# realization's (the metastable state's spike count moves by a third
# between seeds), so the issue's bound is read off the worst row.
#   BIN=DIR MA=DIR OUT=... bash scripts/gpu-multiarea-seeds.sh
# (MA=DIR from scripts/gpu-multiarea-prepare.sh; BIN: a folder holding
# olive-genconn and olive-simulate.) BACKEND=cpu runs it on the CPU engine
# (a check of this script anywhere, at a small SCALE).
set -uo pipefail
MA=${MA:?MA=DIR from scripts/gpu-multiarea-prepare.sh} BIN=${BIN:?BIN=folder of olive-genconn and olive-simulate}
OUT=${OUT:-$PWD/gpu-multiarea-seeds-out} SCALE=${SCALE:-1} MS=${MS:-3000} SEEDS=${SEEDS:-1 2 3}
EXTRA=${EXTRA---order-free-sums} BACKEND=${BACKEND:-cuda}
BIN=$(cd "$BIN" && pwd) MA=$(cd "$MA" && pwd)
mkdir -p "$OUT"
res=$OUT/multiarea-seeds.txt
say() { echo "$*" | tee -a "$res"; }
so=$MA/iaf_psc_exp_v0_neuron.so
export OLIVE_MODEL_PATH=$MA
cmds=$MA/s$SCALE/commands.txt
[ -f "$cmds" ] || { echo "gpu-multiarea-seeds: $cmds: no such file (SCALE=$SCALE not prepared)" >&2; exit 2; }
for l in 1 2; do
  sed -n "${l}p" "$cmds" | grep -q -- '--seed 1 ' ||
    { echo "gpu-multiarea-seeds: $cmds line $l: no '--seed 1 ' to replace" >&2; exit 2; }
done
for seed in $SEEDS; do
  case $seed in *[!0-9]*) echo "gpu-multiarea-seeds: SEEDS: '$seed' is not a seed" >&2; exit 2 ;; esac
done
[ -n "${SEEDS// /}" ] || { echo "gpu-multiarea-seeds: SEEDS is empty" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p "s$SCALE"
cp "$MA/s$SCALE/projections.txt" "s$SCALE/"
say "olive gpu-multiarea-seeds on $(hostname) $(date -u +%FT%TZ): scale $SCALE, $MS ms, $BACKEND $EXTRA --no-spikes, BIN=$BIN"
say "$(printf '%-5s %11s %15s %8s %9s %9s %14s' seed spikes events set-up events-s cells-s per-sim-s)"
fail=0
for seed in $SEEDS; do
  # (the network and the run both take the seed: a realization is both)
  g=$(sed -n 1p "$cmds" | sed "s|BIN/|$BIN/|g; s|PLUGIN|$so|g; s|--seed 1 |--seed $seed |")
  if ! eval "$g" > "$OUT/genconn-s$seed.log" 2>&1; then
    say "FAIL genconn seed $seed: $(tail -2 "$OUT/genconn-s$seed.log")"; fail=1; continue
  fi
  c=$(sed -n 2p "$cmds" | sed "s|BIN/|$BIN/|g; s|PLUGIN|$so|g; s| -q | -v |; s| -o s$SCALE/run | -o run$seed |; s|--time [0-9.]*|--time $MS|; s|--seed 1 |--seed $seed |")
  if ! eval "$c --backend $BACKEND $EXTRA --no-spikes" > "$OUT/run-s$seed.log" 2>&1; then
    say "FAIL seed $seed: $(grep -v '^\s' "$OUT/run-s$seed.log" | tail -2)"; fail=1; continue
  fi
  awk -v seed="$seed" -v ms="$MS" '/timings/ { for (i = 1; i <= NF; i++) { if ($i == "setup") su = $(i+1); if ($i == "exchange") ex = $(i+1);
        if ($i == "compute") cp = $(i+1) } }
      / spikes, / { for (i = 1; i <= NF; i++) if ($(i+1) == "spikes,") sp = $i }
      / synaptic events / { ev = $2 }
      END { printf "%-5s %11s %15s %8.3f %9.3f %9.3f %14.3f\n", seed, sp, ev, su, ex, cp, (ex + cp) * 1000 / ms }' \
      "$OUT/run-s$seed.log" | tee -a "$res"
  rm -rf "run$seed" "s$SCALE/net.h5"
done
exit $fail

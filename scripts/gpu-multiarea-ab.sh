#!/usr/bin/env bash
# Two builds of olive-simulate against each other on the multi-area model
# (scripts/gpu-multiarea-prepare.sh's DIR, MA=DIR): the network drawn once
# by A's olive-genconn, then A and B alternated ROUNDS times (default 2) on
# it, MS ms (default 600) at SCALE (default 1), with EXTRA (default
# --order-free-sums); each run's set-up, event (exchange) and cell (compute)
# times from olive-simulate -v; the first round with spikes, whose spikes and
# state must be the same bit for bit (olive-analyze compare), the others
# with --no-spikes. A change of the engine is kept only with the same bits
# and a gain beyond the spread between rounds. On the GPU host:
#   A=DIR_A B=DIR_B MA=DIR OUT=... bash scripts/gpu-multiarea-ab.sh
# (A, B: folders holding olive-genconn, olive-simulate, olive-analyze.)
# A_MA=DIR: A's model (its iaf_psc_exp_v0_neuron.so, the same hash, built by
# A's olive-model), where the plugin interface changed between the builds.
# SEED=S (default 1): the realization, network and run (as gpu-multiarea-seeds.sh).
# BACKEND=cpu runs both on the CPU engine (a check of this script anywhere).
set -uo pipefail
MA=${MA:?MA=DIR from scripts/gpu-multiarea-prepare.sh} A=${A:?A=BIN folder} B=${B:?B=BIN folder}
OUT=${OUT:-$PWD/gpu-multiarea-ab-out} SCALE=${SCALE:-1} MS=${MS:-600} ROUNDS=${ROUNDS:-2}
EXTRA=${EXTRA---order-free-sums} BACKEND=${BACKEND:-cuda} SEED=${SEED:-1}
case $SEED in ''|*[!0-9]*) echo "gpu-multiarea-ab: SEED: '$SEED' is not a seed" >&2; exit 2 ;; esac
for l in 1 2; do
  sed -n "${l}p" "$MA/s$SCALE/commands.txt" | grep -q -- '--seed 1 ' ||
    { echo "gpu-multiarea-ab: $MA/s$SCALE/commands.txt line $l: no '--seed 1 ' to replace" >&2; exit 2; }
done
mkdir -p "$OUT"
res=$OUT/multiarea-ab.txt
say() { echo "$*" | tee -a "$res"; }
A_MA=${A_MA:-$MA}
so=$A_MA/iaf_psc_exp_v0_neuron.so
export OLIVE_MODEL_PATH=$A_MA
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p "s$SCALE"
cp "$MA/s$SCALE/projections.txt" "s$SCALE/"
say "olive gpu-multiarea-ab on $(hostname) $(date -u +%FT%TZ): scale $SCALE, seed $SEED, $MS ms, $BACKEND $EXTRA, A=$A, B=$B"
eval "$(sed -n 1p "$MA/s$SCALE/commands.txt" | sed "s|BIN/|$A/|g; s|PLUGIN|$so|g; s|--seed 1 |--seed $SEED |")" > "$OUT/genconn.log" 2>&1 ||
  { say "FAIL genconn: $(tail -3 "$OUT/genconn.log")"; exit 1; }
run() {  # NAME BIN MODELS [options]
  local name=$1 bin=$2 models=$3; shift 3
  local c
  c=$(sed -n 2p "$MA/s$SCALE/commands.txt" | sed "s|BIN/|$bin/|g; s|PLUGIN|$models/iaf_psc_exp_v0_neuron.so|g; s| -q | -v |; s| -o s$SCALE/run | -o $name |; s|--time [0-9.]*|--time $MS|; s|--seed 1 |--seed $SEED |")
  OLIVE_MODEL_PATH=$models eval "$c --backend $BACKEND $EXTRA $*" > "$OUT/$name.log" 2>&1 || { say "FAIL $name: $(grep -v '^\s' "$OUT/$name.log" | tail -2)"; return 1; }
  awk -v n="$name" '/timings/ { for (i = 1; i <= NF; i++) { if ($i == "setup") su = $(i+1); if ($i == "exchange") ex = $(i+1);
        if ($i == "compute") cp = $(i+1); if ($i == "io") io = $(i+1) } }
      / spikes, / { for (i = 1; i <= NF; i++) if ($(i+1) == "spikes,") sp = $i }
      END { printf "%-4s set-up %7.3f s  events %8.3f s  cells %7.3f s  io %6.3f s  spikes %s\n", n, su, ex, cp, io, sp }' \
      "$OUT/$name.log" | tee -a "$res"
}
fail=0
for r in $(seq 1 "$ROUNDS"); do
  opt=$([ "$r" = 1 ] || echo --no-spikes)
  first=a second=b
  [ $((r % 2)) = 0 ] && first=b second=a   # (alternated: neither always runs on a warmer machine)
  for side in $first $second; do
    bin=$([ $side = a ] && echo "$A" || echo "$B") models=$([ $side = a ] && echo "$A_MA" || echo "$MA")
    run "$side$r" "$bin" "$models" $opt || fail=1
  done
  if [ "$r" = 1 ]; then
    if "$A/olive-analyze" compare -q a1 b1 > "$OUT/compare.log" 2>&1; then say "PASS A = B: spikes and state identical"
    else say "FAIL A and B differ: $(head -3 "$OUT/compare.log")"; fail=1; fi
  fi
done
exit $fail

#!/usr/bin/env bash
# A model built once keeps running when olive's delivery changes (the plugin
# interface, common/models/plugin_cell.h: a model's GPU image holds its cell
# functions only; olive-simulate links them into its own kernels at load).
# On the GPU host, with:
#   $BIN           this build's programs (a CUDA build);
#   $VARIANT_BIN   an olive-simulate built from the same tree with a change of
#                  the delivery code that the plugin kernels compile
#                  (spike_tail.cuh: see the note its run writes);
#   $PLUGINS       lif_cuba_nestml.so, built ONCE by this tree's olive-model;
#   $OLD_PLUGIN    optional: a plugin built by an olive of the earlier
#                  interface (plugin ABI 2), which must be refused with a
#                  request to rebuild.
# The same .so runs under both builds on a delay-rich network (20000 cells,
# in-degree 1000, delays 0.1..5 ms): device push with static buckets (the
# model's tail-and-update pass), with OLIVE_GPU_SB_REGS=1 (every target of
# more than one event takes the lists' sorting path, the code changed), and
# --order-free-sums (the FREE pass); spikes and final state must be identical
# (olive-analyze compare, tolerance 0), and to the CPU engine's.
# Results: $OUT/plugin-interface.txt; exit 0 when all passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
VARIANT_BIN=${VARIANT_BIN:?VARIANT_BIN: the bin directory of the build with a delivery change}
PLUGINS=${PLUGINS:-$top/build-cuda/plugins}
dest=${OUT:-$PWD/gpu-plugin-interface-out}
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/dev/shm}/olive-pi.XXXXXX")
trap 'rm -rf "$work"' EXIT
results=$dest/plugin-interface.txt
: >"$results"
say() { echo "$*" | tee -a "$results"; }
nfail=0
so=$PLUGINS/lif_cuba_nestml.so
say "olive plugin interface on $(hostname) $(date -u +%FT%TZ): $so under $BIN and $VARIANT_BIN"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$results"
say "the model's files (built once, never rebuilt here): $(sha256sum "$so" | cut -c1-16) $(basename "$so")"
"$BIN/olive-genconn" -q -o "$work/net.h5" --model "$so" --population exc:16000 --population inh:4000 --seed 3 \
    --projection "from=exc,to=all,indegree=800,weight=1:2.5,delay=0.1:5,receptor=ge_in" \
    --projection "from=inh,to=all,indegree=200,weight=-12:-6,delay=0.1:5,receptor=gi_in" ||
  { say "FAIL olive-genconn"; exit 1; }
run() {  # NAME BINDIR ENV... -- ARGS...
  local name=$1 bin=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  if ! env "${envs[@]}" "$bin/olive-simulate" "$work/net.h5" -o "$work/$name" --force -v --model-path "$so" \
       --time 300 --record none "$@" >"$work/$name.log" 2>&1; then
    say "FAIL $name: $(tail -n 2 "$work/$name.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); return 1
  fi
}
same() {  # A B WHAT
  if "$BIN/olive-analyze" compare -q "$work/$1" "$work/$2" >"$work/cmp.log" 2>&1; then
    say "PASS $3: $1 = $2 ($(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$work/$2.log" | head -1) spikes; spikes and final state identical)"
  else
    say "FAIL $3: $1 != $2: $(head -n 3 "$work/cmp.log" | tr '\n' ' ')"; nfail=$((nfail + 1))
  fi
}
run cpu_static "$BIN" OLIVE_X=0 -- --backend cpu
ln -s cpu_static "$work/cpu_sbregs1"; ln -s cpu_static.log "$work/cpu_sbregs1.log"
run cpu_orderfree "$BIN" OLIVE_X=0 -- --backend cpu --order-free-sums   # (its own sums' order: the CPU's is the same)
for mode in static sbregs1 orderfree; do
  e=(OLIVE_X=0) a=()
  [ $mode = sbregs1 ] && e=(OLIVE_GPU_SB_REGS=1)
  [ $mode = orderfree ] && a=(--order-free-sums)
  run "new_$mode" "$BIN" "${e[@]}" -- --backend cuda "${a[@]}" &&
    run "variant_$mode" "$VARIANT_BIN" "${e[@]}" -- --backend cuda "${a[@]}" || continue
  grep -h "linked into\|delivery" "$work/variant_$mode.log" | head -3 | sed 's/^/  variant: /' | tee -a "$results"
  same "new_$mode" "variant_$mode" "one model file, two olive builds ($mode)"
  same "cpu_$mode" "variant_$mode" "the variant build against the CPU engine ($mode)"
done
if [ -n "${OLD_PLUGIN:-}" ]; then
  if "$BIN/olive-simulate" "$work/net.h5" -o "$work/old" --force --model-path "$OLD_PLUGIN" --time 1 --backend cuda \
       >"$work/old.log" 2>&1; then
    say "FAIL a plugin of the earlier interface ran"; nfail=$((nfail + 1))
  elif grep -q "plugin ABI 2, but this olive loads ABI 3 (rebuild the model" "$work/old.log"; then
    say "PASS a plugin of the earlier interface is refused: $(grep -m1 'plugin ABI' "$work/old.log" | cut -c1-160)"
  else
    say "FAIL a plugin of the earlier interface: $(tail -n 2 "$work/old.log" | tr '\n' ' ')"; nfail=$((nfail + 1))
  fi
fi
say "failures: $nfail"
exit $((nfail > 0))

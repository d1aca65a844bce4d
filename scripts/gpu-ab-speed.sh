#!/usr/bin/env bash
# Two builds of olive-simulate against each other on the GPU host, alternated
# in one call (a restructuring must lose no speed): A = $OLD_BIN (an earlier
# commit's build/bin), B = $BIN (this one). Each case runs A B A B ... REPS
# times (default 3) and keeps each build's best; both builds must give the
# same spikes and final state (olive-analyze compare, tolerance 0).
#   - the step loop of the delay-rich lif_cuba network (in-degree 1000,
#     delays 0.1..5 ms, t_ref 2 ms; gpu-validate-plugins' benchmark) with
#     100k and 1M cells, 1000 ms, --record none, on the GPU;
#   - the full-scale microcircuit (procedural, --order-free-sums, NESTML's
#     iaf_psc_exp with v0 from $MC: scripts/gpu-microcircuit-prepare.sh),
#     10.5 s, on the GPU (skipped without $MC's plugin or numpy; $MC/wheels
#     is unpacked first);
#   - the tutorial network (4000 lif_cuba cells, p 0.02, delay 0) on the CPU,
#     10 s, every core.
# Builds nothing. On the GPU host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh &&
#   OLD_BIN=old/bin OUT=$OUT bash scripts/gpu-ab-speed.sh
# ONLY=WORD runs the cases whose names hold WORD (delays, microcircuit, tutorial).
# OLD_MC=DIR: A's microcircuit model (its plugin built by A's olive-model, where
# the plugin interface changed between the builds; the same model hash).
# A_ENV / B_ENV: variables (NAME=VALUE ...) set for A's / B's olive-simulate
# only, e.g. one build against itself:
#   OLD_BIN=$BIN A_ENV=OLIVE_GPU_GRAPH=0 B_ENV=OLIVE_GPU_GRAPH=1 ...
# Results: $OUT/ab-speed.txt; exit 0 when every pair was identical.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
OLD_BIN=${OLD_BIN:?OLD_BIN: the bin directory of the earlier build}
MC=${MC:-$top/build-cuda/mc}
OLD_MC=${OLD_MC:-$MC}
REPS=${REPS:-3}
dest=${OUT:-$PWD/gpu-ab-speed-out}
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/dev/shm}/olive-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
results=$dest/ab-speed.txt
: >"$results"
say() { echo "$*" | tee -a "$results"; }
nfail=0
say "olive A/B speed on $(hostname) $(date -u +%FT%TZ): A = ${A_ENV:+$A_ENV }$OLD_BIN, B = ${B_ENV:+$B_ENV }$BIN, best of $REPS alternated"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$results"
say "$(printf '%-26s %10s %10s %8s  %s' case A-loop-s B-loop-s B/A spikes)"
# The step loop's seconds of a -v log (exchange + compute, as bench-spiking-paths).
loop_s() { sed -n 's/.*exchange \([0-9.]*\) s[^,]*, compute \([0-9.]*\) s.*/\1 \2/p' "$1" | awk '{ printf "%.3f", $1 + $2 }'; }
spikes() { sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$1" | head -1; }
# case NAME NET ARGS...: A and B alternated on NET
case_ab() {
  local name=$1 net=$2; shift 2
  local a=999999 b=999999 i t
  for i in $(seq "$REPS"); do
    for side in A B; do
      local bin=$BIN args=("$@") vars=(${B_ENV:-})
      [ $side = A ] && bin=$OLD_BIN && args=("${@//$MC\//$OLD_MC/}") && vars=(${A_ENV:-})
      local log=$work/$name.$side.$i.log
      if ! env "${vars[@]}" "$bin/olive-simulate" "$net" -o "$work/run_${name}_$side" --force -v "${args[@]}" >"$log" 2>&1; then
        say "FAIL $name ($side): $(tail -n 2 "$log" | tr '\n' ' ')"; nfail=$((nfail + 1)); return
      fi
      t=$(loop_s "$log")
      if [ $side = A ]; then a=$(awk -v x="$a" -v y="$t" 'BEGIN { print (y < x ? y : x) }')
      else b=$(awk -v x="$b" -v y="$t" 'BEGIN { print (y < x ? y : x) }'); fi
    done
  done
  say "$(printf '%-26s %10s %10s %8s  %s' "$name" "$a" "$b" "$(awk -v x="$a" -v y="$b" 'BEGIN { printf "%.3f", y / x }')" \
        "$(spikes "$work/$name.B.1.log")")"
  grep -h "delivery\|linked into\|as graphs\|registers" "$work/$name.B.1.log" | head -5 | sed 's/^/  B: /' | tee -a "$results"
  if "$BIN/olive-analyze" compare -q "$work/run_${name}_A" "$work/run_${name}_B" >"$work/cmp_$name.log" 2>&1; then
    say "  PASS A = B (spikes and final state identical)"
  else
    say "  FAIL A != B: $(head -n 3 "$work/cmp_$name.log" | tr '\n' ' ')"; nfail=$((nfail + 1))
  fi
}
want() { [ -z "${ONLY:-}" ] || [[ $1 == *"$ONLY"* ]]; }
G=$BIN/olive-genconn
for cells in 100000 1000000; do
  want delays || continue
  ne=$((cells * 4 / 5)) ni=$((cells / 5))
  "$G" -o "$work/d$cells.h5" -q --model lif_cuba --population exc:$ne --population inh:$ni --seed 2 --param t_ref=2 \
      --projection "from=exc,to=all,indegree=800,weight=1:2.5,delay=0.1:5,receptor=ge" \
      --projection "from=inh,to=all,indegree=200,weight=-12:-6,delay=0.1:5,receptor=gi" ||
    { say "FAIL olive-genconn $cells"; nfail=$((nfail + 1)); continue; }
  case_ab "delays_${cells}x1000_gpu" "$work/d$cells.h5" --time 1000 --record none --backend cuda
  rm -f "$work/d$cells.h5"
done
py=$(command -v python3.12 || command -v python3)
if [ -d "$MC/wheels" ]; then   # (the host has no pip: numpy for microcircuit.py's command lines)
  "$py" - "$MC/wheels" "$work/site" <<'PY' && export PYTHONPATH=$work/site
import sys, os, zipfile
for w in sorted(os.listdir(sys.argv[1])):
    zipfile.ZipFile(os.path.join(sys.argv[1], w)).extractall(sys.argv[2])
PY
fi
if ! want microcircuit; then
  :
elif [ -e "$MC/iaf_psc_exp_v0_neuron.so" ] && "$py" -c "import numpy" 2>/dev/null; then
  "$py" "$top/examples/microcircuit/microcircuit.py" --plugin "$MC/iaf_psc_exp_v0_neuron.so" --scale 1 --time 10500 \
      --bin "$BIN" --out "$work/mc" --seed 55 --procedural --order-free-sums >"$work/mc_cmds.txt" &&
    mkdir -p "$work/mc" && bash -c "$(sed -n 1p "$work/mc_cmds.txt")" >"$work/mc_gen.log" 2>&1 ||
    { say "FAIL microcircuit network: $(tail -n 2 "$work/mc_gen.log" 2>/dev/null | tr '\n' ' ')"; nfail=$((nfail + 1)); }
  # its olive-simulate command's arguments after the network file
  read -r -a mcargs <<<"$(sed -n 2p "$work/mc_cmds.txt" | sed 's/ -q / /; s/ --force//')"
  mcnet=$(printf '%s\n' "${mcargs[@]}" | grep -m1 '\.h5$')
  rest=(); skip=0
  for x in "${mcargs[@]:1}"; do
    if [ "$x" = "$mcnet" ]; then continue; fi
    if [ $skip = 1 ]; then skip=0; continue; fi
    if [ "$x" = -o ]; then skip=1; continue; fi
    rest+=("$x")
  done
  [ -e "$mcnet" ] && case_ab microcircuit_gpu "$mcnet" "${rest[@]}" --backend cuda
else
  say "microcircuit: skipped (no $MC/iaf_psc_exp_v0_neuron.so or no numpy)"
fi
want tutorial && "$G" -o "$work/tut.h5" -q --model lif_cuba --population exc:3200 --population inh:800 --seed 1 \
    --projection from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi &&
  case_ab tutorial_cpu_10s "$work/tut.h5" --time 10000 --record none --backend cpu
say "failures: $nfail"
exit $((nfail > 0))

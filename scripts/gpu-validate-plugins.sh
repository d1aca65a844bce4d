#!/usr/bin/env bash
# The CUDA engine on plugin models (NESTML models built by olive-model with
# nvcc: their GPU images) against the CPU engine, then a step-loop benchmark
# of a generated model against the built-in it restates. Builds nothing:
# $BIN (a CUDA build) and $PLUGINS (a directory of NAME.so made here by
# `olive-model build` where nvcc is found: scripts/gpu-plugins-prepare.sh). On the lent GPU host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-validate-plugins.sh
# Checks (spikes, float64 reports of every state variable of 500 cells every
# 10 steps, and the final state identical: olive-analyze compare, tolerance 0):
#   lif_cuba_nestml on the tutorial network (delay 0) and on a delay-rich
#     one (20000 cells, delays 0.1..5 ms): CPU 1 rank = GPU (fused where the
#     network is small enough, device push with static buckets, dynamic
#     buckets, host push) = 2 GPUs = 2 CPU ranks;
#     its spikes equal the built-in lif_cuba's on the GPU;
#   izhikevich_neuron (its input before its condition: steps 1, 3, 2, 4),
#   iaf_psc_alpha_neuron (a receptor factor from its parameters) with
#   Poisson inputs and a pulse, and with three overlapping Poisson inputs on
#   both ports (POISSON_ONLY=1: that check alone), iaf_cond_exp_neuron, aeif_cond_exp_neuron and
#   hh_psc_alpha_neuron (numeric solvers) with spike sources: the same set.
#   With --order-free-sums (ORDERFREE_ONLY=1: those checks alone), the
#   delay-rich lif_cuba_nestml network with a pulse and iaf_psc_alpha with
#   Poisson inputs: the same set, and the model's FREE pass was taken.
# Then (SKIP_BENCH=1 skips) cell-steps/s of the step loop, lif_cuba against
# lif_cuba_nestml, on the delay-rich network scaled to each of BENCH_CELLS
# (default "100000 1000000") with in-degree BENCH_K (default 1000), both on the GPU.
# Results: $OUT/plugin-results.txt (and logs); exit 0 when all passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
PLUGINS=${PLUGINS:-$top/build-cuda/plugins}
dest=${OUT:-$PWD/gpu-validate-plugins-out}
check=plugins results=plugin-results.txt logs=$dest/logs
source "$top/scripts/gpu-check-common.sh"
P() { echo "$PLUGINS/$1.so"; }
export OLIVE_MODEL_PATH="$PLUGINS"   # olive-simulate finds the networks' models there (NAME.so, NAME.hash)
for m in lif_cuba_nestml izhikevich_neuron iaf_psc_alpha_neuron iaf_cond_exp_neuron aeif_cond_exp_neuron hh_psc_alpha_neuron; do
  [ -f "$(P $m)" ] || { say "FAIL no plugin $(P $m)"; nfail=$((nfail + 1)); }
done
same() {  # run-a run-b what detail
  if "$A" compare -q "$1" "$2" >"$logs/cmp_$1_$2.log" 2>&1; then say "PASS $3 ($4)"
  else say "FAIL $3: $(head -n 5 "$logs/cmp_$1_$2.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); fi
}
check() {  # name net vars extra-args...: CPU 1 rank = every GPU path = 2 GPUs = 2 CPU ranks
  local name=$1 net=$2 vars=$3; shift 3
  local rec=(--record "$vars" --record-precision double --record-cells 0:500 --record-every 10)
  run ${name}_cpu1 "$S" $net.h5 -o ${name}_cpu1 --backend cpu "${rec[@]}" "$@" -v || return
  run ${name}_gpu1 "$S" $net.h5 -o ${name}_gpu1 --backend cuda "${rec[@]}" "$@" -v || return
  OLIVE_GPU_BUCKETS=dynamic run ${name}_gpu1devdyn "$S" $net.h5 -o ${name}_gpu1devdyn --backend cuda "${rec[@]}" "$@" -v || return
  OLIVE_GPU_DELIVERY=host run ${name}_gpu1host "$S" $net.h5 -o ${name}_gpu1host --backend cuda "${rec[@]}" "$@" -v || return
  local others="gpu1 gpu1devdyn gpu1host gpu2 cpu2"
  if grep -q "fused delivery" "$logs/${name}_gpu1.log"; then   # (small networks take fused: static buckets too)
    OLIVE_GPU_DELIVERY=device run ${name}_gpu1device "$S" $net.h5 -o ${name}_gpu1device --backend cuda "${rec[@]}" "$@" -v || return
    others="$others gpu1device"
  fi
  run ${name}_gpu2 mpirun -np 2 --oversubscribe "$S" $net.h5 -o ${name}_gpu2 --backend cuda "${rec[@]}" "$@" || return
  run ${name}_cpu2 mpirun -np 2 --oversubscribe "$S" $net.h5 -o ${name}_cpu2 --backend cpu "${rec[@]}" "$@" || return
  local spikes other
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/${name}_cpu1.log")
  [ "${spikes:-0}" -gt 0 ] || { say "FAIL $name: no spikes on the CPU (a check that cannot fail)"; nfail=$((nfail + 1)); }
  for other in $others; do
    same ${name}_cpu1 ${name}_$other "$name: CPU 1 rank = $other" "$spikes spikes; spikes, $vars reports, state identical"
  done
  grep -h "delivery\|synaptic events" "$logs/${name}_gpu1.log" | sed "s/^/  $name gpu1: /" | tee -a "$results"
}
tut() {  # NAME MODEL GE GI: the tutorial network (examples/tutorial_cuba.sh)
  run gen_$1 "$G" -o $1.h5 --model "$2" --population exc:3200 --population inh:800 --seed 1 \
      --projection "from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=$3" \
      --projection "from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=$4"
}
delays() {  # NAME MODEL GE GI CELLS K
  local ne=$(($5 * 4 / 5)) ni=$(($5 / 5)) ke=$(($6 * 4 / 5)) ki=$(($6 / 5))
  run gen_$1 "$G" -o $1.h5 --force --model "$2" --population exc:$ne --population inh:$ni --seed 2 --param t_ref=2 \
      --projection "from=exc,to=all,indegree=$ke,weight=1:2.5,delay=0.1:5,receptor=$3" \
      --projection "from=inh,to=all,indegree=$ki,weight=-12:-6,delay=0.1:5,receptor=$4"
}
# iaf_psc_alpha: alpha kernels (a receptor factor e / tau_syn from parameters), per-population tau
gen_alpha() {
  run gen_alpha "$G" -o alpha.h5 --model "$(P iaf_psc_alpha_neuron)" --population exc:800 --population inh:200 --seed 4 \
      --param inh.tau_syn_exc=3 \
      --projection "from=exc,to=all,p=0.1,weight=30,delay=0.5:2,receptor=exc_spikes" \
      --projection "from=inh,to=all,p=0.1,weight=60,delay=0.5:2,receptor=inh_spikes"
}
# overlapping Poisson inputs on both ports (the inhibitory one's receptor
# factor too), which the device push path draws ahead (spike_tail.cuh)
check_alpha2() {
  check alpha2 alpha V_m --time 300 --poisson rate=800,weight=40,receptor=exc_spikes,n=10 \
      --poisson rate=400,weight=30,receptor=inh_spikes,n=5,cells=100:700,time=20:300 \
      --poisson rate=200,weight=20,receptor=exc_spikes,n=3,cells=300:1000
}
# --order-free-sums: the events added by atomics beside the next step, and
# the model's pass in its FREE form (spk_plugin_kernels.cu: no lists, Poisson
# drawn ahead, no current) on the steps without the pulse, the general one
# on those with it
check_orderfree() {
  delays of_nestml "$(P lif_cuba_nestml)" ge_in gi_in 20000 100
  check of_nestml of_nestml v,ge,gi,ref --time 300 --pulse 50:150:5:0:2000 --order-free-sums
  [ -f alpha.h5 ] || gen_alpha   # (made already where the other checks ran)
  check of_alpha2 alpha V_m --time 300 --poisson rate=800,weight=40,receptor=exc_spikes,n=10 \
      --poisson rate=400,weight=30,receptor=inh_spikes,n=5,cells=100:700,time=20:300 --order-free-sums
  for n in of_nestml of_alpha2; do
    local f=$logs/${n}_gpu1device.log   # (device push's pass: where gpu1 took fused, its own run)
    [ -f "$f" ] || f=$logs/${n}_gpu1.log
    if grep -q "the model's pass without lists or draws" "$f"; then say "PASS $n: the FREE pass"
    else say "FAIL $n: not the FREE pass"; nfail=$((nfail + 1)); fi
  done
}
if [ "${ORDERFREE_ONLY:-0}" = 1 ]; then   # (ORDERFREE_ONLY=1: those checks alone)
  check_orderfree
  ONLY_BENCH=1 SKIP_BENCH=1
fi
if [ "${POISSON_ONLY:-0}" = 1 ]; then   # (POISSON_ONLY=1: that check alone)
  gen_alpha
  check_alpha2
  ONLY_BENCH=1 SKIP_BENCH=1
fi
if [ "${ONLY_BENCH:-0}" != 1 ]; then   # (ONLY_BENCH=1: the benchmark alone)
tut tut_builtin lif_cuba ge gi
tut tut_nestml "$(P lif_cuba_nestml)" ge_in gi_in
check tut_nestml tut_nestml v,ge,gi,ref --time 300
delays del_nestml "$(P lif_cuba_nestml)" ge_in gi_in 20000 100
check del_nestml del_nestml v,ge,gi,ref --time 300 --pulse 50:150:5:0:2000
# the built-in's spikes on the GPU (v within 1e-12: ode-toolbox's propagators are not lif.c's expressions)
run tut_builtin_gpu "$S" tut_builtin.h5 -o tut_builtin_gpu --backend cuda --time 300 -v
if "$A" compare tut_builtin_gpu/spikes.h5 tut_nestml_gpu1/spikes.h5 >"$logs/cmp_builtin.log" 2>&1; then
  say "PASS lif_cuba_nestml on the GPU: the built-in lif_cuba's spikes on the GPU"
else say "FAIL lif_cuba_nestml vs built-in on the GPU: $(head -n 3 "$logs/cmp_builtin.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); fi
# izhikevich: one port (spikes, mV), inputs before the condition; delays >= 1 step
run gen_izh "$G" -o izh.h5 --model "$(P izhikevich_neuron)" --population exc:800 --population inh:200 --seed 3 \
    --param exc.I_e=4 --param inh.I_e=4 \
    --projection "from=exc,to=all,p=0.1,weight=0.5,delay=1:3,receptor=spikes" \
    --projection "from=inh,to=all,p=0.1,weight=-1,delay=1:2,receptor=spikes"
check izh izh V_m,U_m --time 500 --poisson rate=50,weight=2,receptor=spikes,n=5
# iaf_psc_alpha with Poisson inputs and a pulse
gen_alpha
check alpha alpha V_m --time 500 --poisson rate=800,weight=40,receptor=exc_spikes,n=10 --pulse 100:200:200pA:0:300
check_alpha2
check_orderfree
# numeric models driven by Poisson spike sources
# (weights, in the models' units, that make the neurons fire: the onCondition body runs)
for m in iaf_cond_exp aeif_cond_exp hh_psc_alpha; do
  we=30 wi=30 ie=0
  case $m in aeif_cond_exp) we=60 ie=300 ;; hh_psc_alpha) we=100 wi=100 ;; esac
  run gen_$m "$G" -o $m.h5 --model "$(P ${m}_neuron)" --source-poisson se:400:20 --source-poisson si:100:20 \
      --population n:500 --seed 5 --param n.I_e=$ie \
      --projection "from=se,to=n,p=0.2,weight=$we,delay=1,receptor=exc_spikes" \
      --projection "from=si,to=n,p=0.2,weight=$wi,delay=1.5,receptor=inh_spikes"
  check $m $m V_m --time 500
  n=$("$A" summary --csv --population n ${m}_cpu1 2>/dev/null | sed -n 's/^spikes,//p')
  if [ "${n:-0}" -gt 0 ]; then say "  $m: $n spikes of its neurons (not only the sources')"
  else say "FAIL $m: its neurons did not fire (the check would miss the onCondition body)"; nfail=$((nfail + 1)); fi
done
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
 for cells in ${BENCH_CELLS:-100000 1000000}; do
  k=${BENCH_K:-1000}
  delays bench_builtin lif_cuba ge gi $cells $k
  delays bench_nestml "$(P lif_cuba_nestml)" ge_in gi_in $cells $k
  say "# step loop, $cells cells x $k synapses (delays 0.1..5 ms), 1000 ms, --record none, best of 3:"
  for m in builtin nestml; do
    best=0
    for i in 1 2 3; do
      r=$("$S" bench_$m.h5 -o bench_$m-run --time 1000 --record none --backend cuda --force -v 2>&1 | tee "$logs/bench_$m.$i.log" |
          sed -n 's/.* \([0-9.e+]*\) cell-steps\/s in the step loop.*/\1/p')
      best=$(awk -v a="$best" -v b="${r:-0}" 'BEGIN { print (b > a ? b : a) }')
    done
    eval "rate_$m=$best"
    say "  $m: $best cell-steps/s ($(grep -h 'spikes' "$logs/bench_$m.1.log" | head -1))"
  done
  say "  lif_cuba_nestml / lif_cuba: $(awk -v a="$rate_nestml" -v b="$rate_builtin" 'BEGIN { printf "%.3f", a / b }')"
 done
fi
say "$nfail failed"
[ "$nfail" = 0 ]

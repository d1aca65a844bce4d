#!/usr/bin/env bash
# The CUDA engine of spiking networks against the CPU engine, then
# (unless SKIP_BENCH=1) the benchmark. Builds nothing: $BIN (default
# build/bin, a CUDA build). On the lent GPU host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-validate-spiking.sh
# Networks: the tutorial CUBA (4000 cells, p 0.02, delay 0), Brette COBA
# (delay 0.1 ms, Poisson kick, exponential Euler), a delay-rich CUBA network
# (20000 cells, in-degree 100, delays 0.1..5 ms, uniform weights, t_ref 2 ms,
# a pulse), and one whose smallest delay is 5 steps (exchange windows of 5
# steps, 300.3 ms: the last window left open). Each runs on the CPU and the
# GPU, on 1 and 2 ranks; spikes and
# float64 reports of v, ge, gi, ref (1000 cells, every 10 steps) and the final
# state must be identical (olive-analyze compare, tolerance 0). On one GPU
# all three delivery paths run (OLIVE_GPU_DELIVERY=fused: the default for
# these sizes, device, host; chunks of 10 steps with these reports, 64
# without), device push with static and with dynamic buckets
# (OLIVE_GPU_BUCKETS=dynamic), and static buckets with one event in
# registers (OLIVE_GPU_SB_REGS=1: every list of 2 or more events sorted in the
# target's scratch; =4: lists of 5 to 8 too, the default takes 8 in registers),
# and static buckets whose events the tails add (OLIVE_GPU_SB_ADD=0; by
# default, with no delay of 0 steps, the next step's scatter kernel adds them)
# without reports (SBREGS_ONLY=1: those checks alone); with --order-free-sums
# (ORDERFREE_ONLY=1), the events added by atomics beside the next step and by
# the lists (OLIVE_GPU_SB_ATOMIC=0), procedural projections rounded on the
# device; and the lists turned around on the device
# (OLIVE_GPU_TURNAROUND=device: state.h5's synapse hash included); on 2 ranks
# the host path. A network
# without a refractory period (t_ref 0): cells fire on consecutive steps,
# bursts of tens of events a target and step. Poisson inputs that overlap, on both
# receptors, with their own windows (POISSON_ONLY=1: that check alone).
# Projections drawn at each spike (outdegree rules of a procedural file,
# spk_cuda_rules.cu): the CPU's spikes from the same file and from its stored
# form, the GPU's drawn on the fly, stored (OLIVE_GPU_SYNAPSES=stored) and on
# 2 GPUs, and total_out rules (120 of them, grouped by source, and with
# overlapping sources, also with --order-free-sums) (FLY_ONLY=1: those
# checks alone). Procedural projections of every
# rule drawn on the device at set-up (spk_cuda_draw.cu): the CPU's spikes
# from the procedural and the stored file, the GPU's drawn on the device and
# on the host (OLIVE_GPU_DRAW=host) (DRAW_ONLY=1: that check alone).
# Then cable cells: NEST's hh_coba network as hh_traub, a
# ball-and-stick (hh_cable) network and two of tests/data/cell.swc cells (hh_swc; the second with
# biophysics per section type, hh's rate table and its formulas) and a network of c91662 cells with synapses
# spread over their dendrites, CPU = GPU (device push, host push) =
# 2 GPUs = 2 CPU ranks, v/m/h/n/ge/gi reports and v/m compartment reports included. CABLE_ONLY=1: only
# those; CABLE_BENCH=0 skips the 200k-cell, 20M-synapse hh_cable benchmark.
# Results: $OUT/spiking-results.txt (and logs.tar.gz); exit 0 when all passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${OUT:-$PWD/gpu-validate-spiking-out}
check=spiking results=spiking-results.txt
source "$top/scripts/gpu-check-common.sh"

run gen_cuba "$G" -o cuba.h5 --model lif_cuba --population exc:3200 --population inh:800 --v0 -60:-50 \
    --projection from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi
run gen_coba "$G" -o coba.h5 --model lif_coba --population exc:3200 --population inh:800 --v0 -60:-50 \
    --projection from=exc,to=all,p=0.02,weight=6,delay=0.1,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=67,delay=0.1,receptor=gi
run gen_delays "$G" -o delays.h5 --model lif_cuba --population exc:16000 --population inh:4000 --v0 -60:-50 \
    --param t_ref=2 --projection from=exc,to=all,indegree=80,weight=1:2.5,delay=0.1:5,receptor=ge \
    --projection from=inh,to=all,indegree=20,weight=-12:-6,delay=0.1:5,receptor=gi
# the smallest delay 0.5 ms = 5 steps: exchange windows of 5 steps (events
# counted per window; the last window of the run left open)
run gen_window "$G" -o window.h5 --model lif_cuba --population exc:8000 --population inh:2000 --v0 -60:-50 \
    --param t_ref=2 --projection from=exc,to=all,indegree=80,weight=1:2.5,delay=0.5:3,receptor=ge \
    --projection from=inh,to=all,indegree=20,weight=-12:-6,delay=0.5:3,receptor=gi
REC=(--record v,ge,gi,ref --record-precision double --record-cells 0:1000 --record-every 10)
same() {  # run-a run-b what detail: olive-analyze compare, tolerance 0
  if "$A" compare -q "$1" "$2" >"$logs/cmp_$1_$2.log" 2>&1; then say "PASS $3 ($4)"
  else say "FAIL $3: $(head -n 5 "$logs/cmp_$1_$2.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); fi
}
check() {  # name net extra-args...
  local name=$1 net=$2; shift 2
  run ${name}_cpu1 "$S" $net.h5 -o ${name}_cpu1 --backend cpu "${REC[@]}" "$@" || return
  run ${name}_gpu1 "$S" $net.h5 -o ${name}_gpu1 --backend cuda "${REC[@]}" "$@" -v || return
  run ${name}_gpu2 mpirun -np 2 --oversubscribe "$S" $net.h5 -o ${name}_gpu2 --backend cuda "${REC[@]}" "$@" || return
  run ${name}_cpu2 mpirun -np 2 --oversubscribe "$S" $net.h5 -o ${name}_cpu2 --backend cpu "${REC[@]}" "$@" || return
  OLIVE_GPU_DELIVERY=host run ${name}_gpu1host "$S" $net.h5 -o ${name}_gpu1host --backend cuda "${REC[@]}" "$@" -v || return
  OLIVE_GPU_DELIVERY=device run ${name}_gpu1device "$S" $net.h5 -o ${name}_gpu1device --backend cuda "${REC[@]}" "$@" -v || return
  OLIVE_GPU_DELIVERY=device OLIVE_GPU_BUCKETS=dynamic run ${name}_gpu1devdyn "$S" $net.h5 -o ${name}_gpu1devdyn --backend cuda \
    "${REC[@]}" "$@" -v || return
  # the per-source lists made on the device from the rows (spk_cuda_turnaround.cu; default from 2^24 synapses)
  OLIVE_GPU_TURNAROUND=device run ${name}_gpu1ta "$S" $net.h5 -o ${name}_gpu1ta --backend cuda "${REC[@]}" "$@" -v || return
  run ${name}_cpu1norep "$S" $net.h5 -o ${name}_cpu1norep --backend cpu --record none "$@" || return
  local path
  local delivery buckets regs
  local add
  local paths="fused device devdyn devregs devregs4 devnoadd devnoaddregs" atomic
  case " $* " in *" --order-free-sums "*) paths+=" devlists" ;; esac   # (the static buckets' lists instead of atomics)
  for path in $paths; do
    delivery=$path buckets= regs= add= atomic=
    case $path in
      devdyn) delivery=device buckets=dynamic ;;
      devregs) delivery=device regs=1 ;;   # every list of 2 or more events through the scratch
      devregs4) delivery=device regs=4 ;;   # lists of 5 to 8 events through the scratch too
      devnoadd) delivery=device add=0 ;;   # static buckets' events added by the tails, not beside the next step
      devnoaddregs) delivery=device add=0 regs=1 ;;
      devlists) delivery=device atomic=0 ;;
    esac
    OLIVE_GPU_DELIVERY=$delivery OLIVE_GPU_BUCKETS=$buckets OLIVE_GPU_SB_REGS=$regs OLIVE_GPU_SB_ADD=$add OLIVE_GPU_SB_ATOMIC=$atomic \
      run ${name}_gpu1norep$path "$S" $net.h5 -o ${name}_gpu1norep$path --backend cuda --record none "$@" -v || return
    same ${name}_cpu1norep ${name}_gpu1norep$path "$name: CPU 1 rank = gpu1 $path without reports" \
      "256 steps a chunk; spikes and state identical"
  done
  local spikes
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/${name}_cpu1.log")
  for other in gpu1 gpu1host gpu1device gpu1devdyn gpu1ta gpu2 cpu2; do
    same ${name}_cpu1 ${name}_$other "$name: CPU 1 rank = $other" "$spikes spikes; spikes, v/ge/gi/ref reports and state identical"
  done
  for e in cpu1 gpu1 gpu1host gpu1device gpu1devdyn gpu2; do
    grep -h "synaptic events" "$logs/${name}_$e.log" | sed "s/^/  $name $e: /" | tee -a "$results"
  done
  local ev0 ev
  ev0=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*, \([0-9]*\) Poisson input events/\1 \2/p' "$logs/${name}_cpu1.log" | tr '\n' ' ')
  for e in gpu1 gpu1host gpu1device gpu1devdyn gpu1ta gpu2; do
    ev=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*, \([0-9]*\) Poisson input events/\1 \2/p' "$logs/${name}_$e.log" | tr '\n' ' ')
    if [ -n "$ev0" ] && [ "$ev" = "$ev0" ]; then say "PASS $name: $e counts the same synaptic and Poisson events ($ev0)"
    else say "FAIL $name: $e counts events '$ev', the CPU '$ev0'"; nfail=$((nfail + 1)); fi
  done
  grep -h "delivery" "$logs/${name}_gpu1.log" "$logs/${name}_gpu1device.log" | sed "s/^/  $name gpu1: /" | tee -a "$results"
}
# Cable cells (hh_traub, hh_cable): no fused path; the device
# push path on one GPU, the host push path on one and on 2 GPUs.
check_cable() {  # name net extra-args...
  local name=$1 net=$2; shift 2
  local rec=(--record v,m,h,n,ge,gi --record-precision double --record-cells 0:1000 --record-every 10
             --record-compartments v,m)
  [ "${LIF:-0}" = 1 ] && rec=(--record v,ge,gi,ref --record-precision double --record-cells 0:1000 --record-every 10)
  [ "${ALPHA:-0}" = 1 ] && rec=(--record v,ge,gi,ref,xe,xi --record-precision double --record-cells 0:1000 --record-every 10)
  run ${name}_cpu1 "$S" $net.h5 -o ${name}_cpu1 --backend cpu "${rec[@]}" "$@" || return
  run ${name}_gpu1 "$S" $net.h5 -o ${name}_gpu1 --backend cuda "${rec[@]}" "$@" -v || return
  OLIVE_GPU_DELIVERY=host run ${name}_gpu1host "$S" $net.h5 -o ${name}_gpu1host --backend cuda "${rec[@]}" "$@" -v || return
  OLIVE_GPU_BUCKETS=dynamic run ${name}_gpu1devdyn "$S" $net.h5 -o ${name}_gpu1devdyn --backend cuda "${rec[@]}" "$@" -v || return
  local others="gpu1 gpu1host gpu1devdyn gpu2 cpu2"
  if [ "${ALPHA:-0}" = 1 ]; then   # (point models take fused at this size: device push's static buckets too)
    OLIVE_GPU_DELIVERY=device run ${name}_gpu1device "$S" $net.h5 -o ${name}_gpu1device --backend cuda "${rec[@]}" "$@" -v || return
    others="$others gpu1device"
  fi
  run ${name}_gpu2 mpirun -np 2 --oversubscribe "$S" $net.h5 -o ${name}_gpu2 --backend cuda "${rec[@]}" "$@" || return
  run ${name}_cpu2 mpirun -np 2 --oversubscribe "$S" $net.h5 -o ${name}_cpu2 --backend cpu "${rec[@]}" "$@" || return
  local spikes other
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/${name}_cpu1.log")
  for other in $others; do
    same ${name}_cpu1 ${name}_$other "$name: CPU 1 rank = $other" "$spikes spikes; spikes, reports and state identical"
  done
  grep -h "synaptic events\|cell-steps" "$logs/${name}_cpu1.log" "$logs/${name}_gpu1.log" | sed "s/^/  $name: /" | tee -a "$results"
}
# alpha synapses (lif_cuba_alpha, lif_coba_alpha): fused (the default at this
# size), device push with static and dynamic buckets and host push on one
# GPU, host push on 2; ALPHA_ONLY=1: these checks only
check_alpha() {
  run gen_cuba_alpha "$G" -o cuba_alpha.h5 --model lif_cuba_alpha --population exc:3200 --population inh:800 \
      --v0 -60:-50 --param t_ref=5 --projection from=exc,to=all,p=0.02,weight=1.62,delay=0:1,receptor=ge \
      --projection from=inh,to=all,p=0.02,weight=-9,delay=0.1,receptor=gi &&
    ALPHA=1 check_cable cuba_alpha cuba_alpha --time 500
  run gen_coba_alpha "$G" -o coba_alpha.h5 --model lif_coba_alpha --population exc:3200 --population inh:800 \
      --v0 -60:-50 --projection from=exc,to=all,p=0.02,weight=4,delay=0.1:2,receptor=ge \
      --projection from=inh,to=all,p=0.02,weight=50,delay=0.1,receptor=gi &&
    ALPHA=1 check_cable coba_alpha coba_alpha --time 500 --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed 3
}
# Poisson inputs that overlap (a cell in up to three, in input order), on
# both receptors, with windows of their own: the device push path draws a
# chunk's inputs ahead and adds them per cell in input order (spike_tail.cuh)
check_poisson() {
  check poisson2 window --time 200 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:10000,time=0:150 \
      --poisson rate=40,weight=-3,receptor=gi,n=3,cells=2000:8000,time=20:200 \
      --poisson rate=30,weight=0.7,receptor=ge,n=2,cells=5000:10000
}
# A procedural network NAME (olive-genconn's arguments follow): its file and
# its stored form; the CPU runs both (NAME_cpu1, NAME_cpu1file), the GPU the
# procedural one (NAME_gpu1, -v), with the inputs IN.
IN=(--time 300 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:10000,time=0:250 "${REC[@]}")
proc_runs() {
  local name=$1; shift
  run gen_$name "$G" -o $name.h5 --procedural "$@" || return 1
  run gen_${name}stored "$G" -o ${name}stored.h5 "$@" || return 1
  run ${name}_cpu1 "$S" $name.h5 -o ${name}_cpu1 --backend cpu "${IN[@]}" || return 1
  run ${name}_cpu1file "$S" ${name}stored.h5 -o ${name}_cpu1file --backend cpu "${IN[@]}" || return 1
  run ${name}_gpu1 "$S" $name.h5 -o ${name}_gpu1 --backend cuda "${IN[@]}" -v
}
# Outdegree rules: uniform and normal weights, normal and constant delays,
# autapses=no, a fixed-delay inhibition; the CPU draws the rows (file or
# procedural), the GPU each spike's synapses.
check_fly() {
  local ODEG=(--model lif_cuba --population exc:8000 --population inh:2000 --v0 -60:-50 --param t_ref=2 --seed 9
      --projection from=exc,to=all,outdegree=80,weight=1:2.5,delay=normal:1.5:0.75:0.1:inf,receptor=ge
      --projection from=inh,to=all,outdegree=20,weight=normal:-9:2:-inf:0,delay=0.8,receptor=gi,autapses=no)
  proc_runs fly "${ODEG[@]}" || return
  OLIVE_GPU_SYNAPSES=stored run fly_gpu1stored "$S" fly.h5 -o fly_gpu1stored --backend cuda "${IN[@]}" -v || return
  run fly_gpu2 mpirun -np 2 --oversubscribe "$S" fly.h5 -o fly_gpu2 --backend cuda "${IN[@]}" -v || return
  if grep -q "drawn at each spike" "$logs/fly_gpu1.log" && ! grep -q "drawn at each spike" "$logs/fly_gpu1stored.log"; then
    say "PASS fly: the GPU draws the projections at each spike (stored with OLIVE_GPU_SYNAPSES=stored)"
  else say "FAIL fly: the GPU did not draw at each spike, or drew with OLIVE_GPU_SYNAPSES=stored"; nfail=$((nfail + 1)); fi
  local spikes e ev ev0
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/fly_cpu1.log")
  for e in cpu1file gpu1 gpu1stored gpu2; do
    same fly_cpu1 fly_$e "fly: CPU 1 rank = $e" "$spikes spikes; spikes, v/ge/gi/ref reports and state identical"
  done
  ev0=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*/\1/p' "$logs/fly_cpu1.log")
  for e in gpu1 gpu1stored gpu2; do
    ev=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*/\1/p' "$logs/fly_$e.log")
    if [ -n "$ev0" ] && [ "$ev" = "$ev0" ]; then say "PASS fly: $e counts the same synaptic events ($ev0)"
    else say "FAIL fly: $e counts events '$ev', the CPU '$ev0'"; nfail=$((nfail + 1)); fi
  done
}
# total_out rules drawn at each spike (each source's count made on the
# device at set-up): 120 rules from 12 populations (grouped by source), with
# an outdegree rule among them; then rules whose sources overlap (one group).
check_fly_total() {
  local TO=(--model lif_cuba --v0 -60:-50 --param t_ref=2 --seed 21) i j
  for i in $(seq 0 11); do TO+=(--population p$i:$((600 + 50 * i))); done
  for i in $(seq 0 11); do
    for j in $(seq 0 9); do
      if [ $((i % 4)) = 3 ]; then TO+=(--projection "from=p$i,to=p$(((i + j) % 12)),total_out=$((3000 + 100 * j)),weight=normal:-6:1:-inf:0,delay=normal:0.8:0.4:0.1:inf,receptor=gi")
      else TO+=(--projection "from=p$i,to=p$(((i + j) % 12)),total_out=$((8000 + 100 * j)),weight=normal:1.2:0.2:0:inf,delay=normal:$((1 + j)):$j.5:0.1:inf,receptor=ge"); fi
    done
  done
  TO+=(--projection "from=p1,to=p2,outdegree=15,weight=0.5:1,delay=1.5,receptor=ge,name=p1_p2_out")
  proc_runs flyt "${TO[@]}" || return
  run flyt_gpu2 mpirun -np 2 --oversubscribe "$S" flyt.h5 -o flyt_gpu2 --backend cuda "${IN[@]}" -v || return
  if grep -q "121 projection(s) drawn at each spike" "$logs/flyt_gpu1.log"; then say "PASS flyt: the GPU draws the 121 rules at each spike"
  else say "FAIL flyt: the GPU did not draw the rules at each spike"; nfail=$((nfail + 1)); fi
  local spikes e
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/flyt_cpu1.log")
  for e in cpu1file gpu1 gpu2; do same flyt_cpu1 flyt_$e "flyt: CPU 1 rank = $e" "$spikes spikes; reports and state identical"; done
  # --order-free-sums: the GPU adds each drawn event at once (atomics), the grid from its survey's maxima
  run flytof_cpu1 "$S" flyt.h5 -o flytof_cpu1 --backend cpu "${IN[@]}" --order-free-sums -v || return
  run flytof_gpu1 "$S" flyt.h5 -o flytof_gpu1 --backend cuda "${IN[@]}" --order-free-sums -v || return
  run flytof_gpu2 mpirun -np 2 --oversubscribe "$S" flyt.h5 -o flytof_gpu2 --backend cuda "${IN[@]}" --order-free-sums -v || return
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/flytof_cpu1.log")
  for e in gpu1 gpu2; do same flytof_cpu1 flytof_$e "flyt --order-free-sums: CPU 1 rank = $e" "$spikes spikes; identical"; done
  local gc gg
  gc=$(grep -o "weights rounded to multiples of .*" "$logs/flytof_cpu1.log") gg=$(grep -o "weights rounded to multiples of .*" "$logs/flytof_gpu1.log")
  if [ -n "$gc" ] && [ "$gc" = "$gg" ]; then say "PASS flyt --order-free-sums: the GPU's grid is the CPU's ($gc)"
  else say "FAIL flyt --order-free-sums: grids differ: CPU '$gc', GPU '$gg'"; nfail=$((nfail + 1)); fi
  local OV=(--model lif_cuba --population a:6000 --population b:4000 --v0 -60:-50 --param t_ref=2 --seed 22
      --projection from=all,to=a,total_out=150000,weight=normal:1:0.2:0:inf,delay=normal:1.5:0.75:0.1:inf,receptor=ge
      --projection from=a,to=all,total_out=100000,weight=0.8,delay=0.5:3,receptor=ge
      --projection from=b,to=b,total_out=40000,weight=normal:-5:1:-inf:0,delay=1,receptor=gi)
  proc_runs flyo "${OV[@]}" || return
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/flyo_cpu1.log")
  for e in cpu1file gpu1; do same flyo_cpu1 flyo_$e "flyo (overlapping sources): CPU 1 rank = $e" "$spikes spikes; identical"; done
  run flyoof_cpu1 "$S" flyo.h5 -o flyoof_cpu1 --backend cpu "${IN[@]}" --order-free-sums -v || return
  run flyoof_gpu1 "$S" flyo.h5 -o flyoof_gpu1 --backend cuda "${IN[@]}" --order-free-sums -v || return
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/flyoof_cpu1.log")
  same flyoof_cpu1 flyoof_gpu1 "flyo --order-free-sums: CPU 1 rank = gpu1" "$spikes spikes; identical"
}
# Every rule procedural (p, indegree, total, outdegree; uniform and normal
# values, autapses=no), drawn on the device at set-up.
check_draw() {
  local DR=(--model lif_cuba --population exc:8000 --population inh:2000 --v0 -60:-50 --param t_ref=2 --seed 13
      --projection from=exc,to=all,p=0.008,weight=1:2.5,delay=normal:1.5:0.75:0.1:inf,receptor=ge
      --projection from=inh,to=exc,indegree=20,weight=normal:-9:2:-inf:0,delay=0.5:3,receptor=gi,autapses=no
      --projection from=all,to=inh,total=200000,weight=0.5,delay=0.8,receptor=ge,autapses=no
      --projection from=exc,to=exc,outdegree=10,weight=0.5:1,delay=1,receptor=ge)
  proc_runs draw "${DR[@]}" || return
  OLIVE_GPU_DRAW=host run draw_gpu1host "$S" draw.h5 -o draw_gpu1host --backend cuda "${IN[@]}" -v || return
  if grep -q "drawn on the device" "$logs/draw_gpu1.log" && ! grep -q "drawn on the device" "$logs/draw_gpu1host.log"; then
    say "PASS draw: the GPU draws the procedural projections at set-up (the host with OLIVE_GPU_DRAW=host)"
  else say "FAIL draw: the GPU did not draw the projections, or drew with OLIVE_GPU_DRAW=host"; nfail=$((nfail + 1)); fi
  local spikes e
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/draw_cpu1.log")
  for e in cpu1file gpu1 gpu1host; do
    same draw_cpu1 draw_$e "draw: CPU 1 rank = $e" "$spikes spikes; spikes, v/ge/gi/ref reports and state identical"
  done
}
if [ "${DRAW_ONLY:-0}" = 1 ]; then
  check_draw
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${TA_ONLY:-0}" = 1 ]; then   # the checks of the lists turned around on the device (and the rest of check)
  check delays delays --time 500 --pulse 50:60:20:0:2000 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:20000,time=0:400
  check poisson2 window --time 200 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:10000,time=0:150 \
      --poisson rate=40,weight=-3,receptor=gi,n=3,cells=2000:8000,time=20:200
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${FLY_ONLY:-0}" = 1 ]; then
  check_fly
  check_fly_total
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${ALPHA_ONLY:-0}" = 1 ]; then
  check_alpha
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${POISSON_ONLY:-0}" = 1 ]; then
  check_poisson
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${SBREGS_ONLY:-0}" = 1 ]; then   # up to 8 events a target and step ordered in registers (spike_tail.cuh)
  check coba coba --time 1000 --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed 3
  check_poisson
  run gen_burst "$G" -o burst.h5 --model lif_cuba --population exc:2000 --v0 -60:-50 --param t_ref=0 \
      --projection from=all,to=all,indegree=200,weight=0.2:0.5,delay=0:0.3,receptor=ge &&
    check burst burst --time 200 --pulse 10:150:5000:0:100
  # the same without a delay of 0 steps: the events added beside the next
  # step (spk_sb.h's sb_add), cells firing on consecutive steps (both
  # parities' links in use at once)
  run gen_burst1 "$G" -o burst1.h5 --model lif_cuba --population exc:2000 --v0 -60:-50 --param t_ref=0 \
      --projection from=all,to=all,indegree=200,weight=0.2:0.5,delay=0.1:0.3,receptor=ge &&
    check burst1 burst1 --time 200 --pulse 10:150:5000:0:100
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
# device push's owned form (OLIVE_GPU_OWNED=1 and 2, spk_cuda_owned.cu): a chunk
# in one launch, each block summing its cells' events in shared memory;
# CPU 1 rank = the owned form = device push's atomics, with and without
# reports (chunks cut by the reports, or of 256 steps), a delay law past
# the window (far queues), cells firing on consecutive steps
check_owned() {  # name net extra-args...
  local name=$1 net=$2; shift 2
  run ${name}_cpu1 "$S" $net.h5 -o ${name}_cpu1 --backend cpu "${REC[@]}" "$@" || return
  run ${name}_cpu1norep "$S" $net.h5 -o ${name}_cpu1norep --backend cpu --record none "$@" || return
  OLIVE_GPU_DELIVERY=device OLIVE_GPU_OWNED=1 run ${name}_owned "$S" $net.h5 -o ${name}_owned --backend cuda "${REC[@]}" "$@" -v || return
  OLIVE_GPU_DELIVERY=device OLIVE_GPU_OWNED=1 run ${name}_ownednorep "$S" $net.h5 -o ${name}_ownednorep --backend cuda --record none "$@" -v || return
  OLIVE_GPU_DELIVERY=device OLIVE_GPU_OWNED=2 run ${name}_beside "$S" $net.h5 -o ${name}_beside --backend cuda --record none "$@" -v || return
  OLIVE_GPU_DELIVERY=device OLIVE_GPU_OWNED=0 run ${name}_atomicnorep "$S" $net.h5 -o ${name}_atomicnorep --backend cuda --record none "$@" -v || return
  if grep -q "device push's owned form:" "$logs/${name}_ownednorep.log"; then say "PASS $name: the owned form ran ($(grep -h "owned form:" "$logs/${name}_ownednorep.log" | sed 's/.*owned form: //'))"
  else say "FAIL $name: the owned form did not run: $(grep -h "owned form" "$logs/${name}_ownednorep.log")"; nfail=$((nfail + 1)); fi
  local spikes
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$logs/${name}_cpu1.log")
  same ${name}_cpu1 ${name}_owned "$name: CPU 1 rank = owned form" "$spikes spikes; spikes, v/ge/gi/ref reports and state identical"
  same ${name}_cpu1norep ${name}_ownednorep "$name: CPU 1 rank = owned form without reports" "spikes and state identical"
  same ${name}_atomicnorep ${name}_ownednorep "$name: device push's atomics = owned form" "spikes and state identical"
  same ${name}_cpu1norep ${name}_beside "$name: CPU 1 rank = owned form, steps beside the sends (OLIVE_GPU_OWNED=2)" "spikes and state identical"
  local ev0 ev
  ev0=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*, \([0-9]*\) Poisson input events/\1 \2/p' "$logs/${name}_cpu1norep.log" | tr '\n' ' ')
  ev=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*, \([0-9]*\) Poisson input events/\1 \2/p' "$logs/${name}_ownednorep.log" | tr '\n' ' ')
  if [ -n "$ev0" ] && [ "$ev" = "$ev0" ]; then say "PASS $name: the owned form counts the same synaptic and Poisson events ($ev0)"
  else say "FAIL $name: the owned form counts events '$ev', the CPU '$ev0'"; nfail=$((nfail + 1)); fi
}
if [ "${OWNED_ONLY:-0}" = 1 ]; then
  OF=--order-free-sums
  check_owned owcoba coba --time 1000 --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed 3 $OF
  check_owned owdelays delays --time 500 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:20000,time=0:400 $OF
  check_owned owpoisson2 window --time 200 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:10000,time=0:150 \
      --poisson rate=40,weight=-3,receptor=gi,n=3,cells=2000:8000,time=20:200 $OF
  run gen_burst1 "$G" -o burst1.h5 --model lif_cuba --population exc:2000 --v0 -60:-50 --param t_ref=0 \
      --projection from=all,to=all,indegree=200,weight=0.2:0.5,delay=0.1:0.3,receptor=ge &&
    check_owned owburst1 burst1 --time 200 --poisson rate=5000,weight=5,receptor=ge,n=40,cells=0:100,time=10:150 $OF
  # delays of 0.1-40 ms (400 steps): most events past the window, in the far queues
  run gen_far "$G" -o far.h5 --model lif_cuba --population exc:16000 --population inh:4000 --v0 -60:-50 \
      --param t_ref=2 --projection from=exc,to=all,indegree=80,weight=1:2.5,delay=0.1:40,receptor=ge \
      --projection from=inh,to=all,indegree=20,weight=-12:-6,delay=0.1:40,receptor=gi &&
    check_owned owfar far --time 500 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:20000,time=0:400 $OF
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${ORDERFREE_ONLY:-0}" = 1 ]; then   # --order-free-sums: the events added by atomics beside the next step (sb_atomic)
  OF=--order-free-sums
  check ofcoba coba --time 1000 --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed 3 $OF
  check ofdelays delays --time 500 --pulse 50:60:20:0:2000 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:20000,time=0:400 $OF
  check ofpoisson2 window --time 200 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:10000,time=0:150 \
      --poisson rate=40,weight=-3,receptor=gi,n=3,cells=2000:8000,time=20:200 $OF
  run gen_burst1 "$G" -o burst1.h5 --model lif_cuba --population exc:2000 --v0 -60:-50 --param t_ref=0 \
      --projection from=all,to=all,indegree=200,weight=0.2:0.5,delay=0.1:0.3,receptor=ge &&
    check ofburst1 burst1 --time 200 --pulse 10:150:5000:0:100 $OF
  for n in ofcoba ofdelays ofpoisson2 ofburst1; do
    if grep -q "order-free: events added by atomics" "$logs/${n}_gpu1device.log"; then say "PASS $n: the device path adds by atomics"
    else say "FAIL $n: the device path did not add by atomics"; nfail=$((nfail + 1)); fi
  done
  # procedural projections drawn on the device and rounded there (spk_cuda_quantum.cu)
  IN+=($OF)
  check_draw
  if grep -q "order-free: events added by atomics" "$logs/draw_gpu1.log"; then say "PASS draw: rounded on the device, added by atomics"
  else say "FAIL draw: not the atomic path"; nfail=$((nfail + 1)); fi
  SKIP_CHECKS=1 SKIP_BENCH=1
fi
if [ "${SKIP_CHECKS:-0}" != 1 ]; then   # SKIP_CHECKS=1: the benchmark only
if [ "${CABLE_ONLY:-0}" != 1 ]; then
check_alpha
check_fly
check_fly_total
check_draw
check cuba cuba --time 1000
check coba coba --time 1000 --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed 3
check delays delays --time 500 --pulse 50:60:20:0:2000 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:20000,time=0:400
check window window --time 300.3 --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:10000,time=0:250
check_poisson
# no refractory period: 100 cells driven to fire on every step
run gen_burst "$G" -o burst.h5 --model lif_cuba --population exc:2000 --v0 -60:-50 --param t_ref=0 \
    --projection from=all,to=all,indegree=200,weight=0.2:0.5,delay=0:0.3,receptor=ge &&
  check burst burst --time 200 --pulse 10:150:5000:0:100
fi
# NEST's hh_coba network (Brette et al. 2007 benchmark 3) at dt 0.01 ms, and
# 2000 ball-and-stick cells with delays 1-3 ms, a pulse and Poisson input
run gen_hhcoba "$G" -o hhcoba.h5 --model hh_traub --population exc:3200 --population inh:800 \
    --projection from=exc,to=all,indegree=64,weight=6,delay=0.1,receptor=ge \
    --projection from=inh,to=all,indegree=16,weight=67,delay=0.1,receptor=gi &&
  check_cable hhcoba hhcoba --time 200 --poisson rate=300,weight=6,receptor=ge,cells=0:50,time=1:51 --seed 3
run gen_ball "$G" -o ball.h5 --model hh_cable --population a:1500 --population b:500 --param dend_nseg=9@b --v0 -70:-60 \
    --projection from=all,to=all,indegree=20,weight=0.001:0.004,delay=1:3,receptor=ge \
    --projection from=b,to=a,indegree=5,weight=0.01,delay=1,receptor=gi &&
  check_cable ball ball --time 200 --pulse 1:150:0.3:0:50 --poisson rate=40,weight=0.004,receptor=ge,n=5,time=0:180
# spike sources (Poisson) driving a COBA network (device push and host push on
# the LIF engine) and a ball-and-stick network (the cable engine)
run gen_srccoba "$G" -o srccoba.h5 --model lif_coba --population exc:3200 --population inh:800 \
    --source-poisson kick:1000:40:0:200 --v0 -60:-50 \
    --projection from=kick,to=exc,indegree=10,weight=6,delay=0.5,receptor=ge \
    --projection from=exc,to=exc,indegree=64,weight=6,delay=0.1,receptor=ge \
    --projection from=exc,to=inh,indegree=64,weight=6,delay=0.1,receptor=ge \
    --projection from=inh,to=exc,indegree=16,weight=67,delay=0.1,receptor=gi &&
  LIF=1 check_cable srccoba srccoba --time 300 --seed 5
run gen_srcball "$G" -o srcball.h5 --model hh_cable --population a:1000 --source-poisson drive:500:60 \
    --projection from=drive,to=a,indegree=5,weight=0.01,delay=1:3,receptor=ge \
    --projection from=a,to=a,indegree=10,weight=0.003,delay=1,receptor=ge &&
  check_cable srcball srcball --time 150 --seed 5
run gen_swc "$G" -o swc.h5 --model hh_swc --cells 1000 --morphology "$top/tests/data/cell.swc" --param syn_sec=1 \
    --projection from=all,to=all,indegree=10,weight=0.002:0.006,delay=1:3,receptor=ge &&
  check_cable swc swc --time 100 --pulse 1:90:0.5:0:100
# hh_swc with biophysics per section type (hh on the dendrites, pas on the
# axon, nseg by d_lambda) and both hh rate paths: population t with hh.mod's
# table (the default; the table copied to the GPU), f with its formulas
run gen_swcbio "$G" -o swcbio.h5 --model hh_swc --population t:500 --population f:500 \
    --morphology "$top/tests/data/cell.swc" --param syn_sec=1 --param seg_length=0 --param hh_tables=0@f \
    --param dend.hh=1 --param dend.gnabar=0.02 --param axon.pas=1 --param soma.Ra=80 --param apic.cm=0.9 \
    --projection from=all,to=all,indegree=10,weight=0.002:0.006,delay=1:3,receptor=ge &&
  check_cable swcbio swcbio --time 100 --pulse 1:90:0.5:0:100
# synapses spread over the dendrites: sites drawn over the
# dendritic length 20-300 um from the soma (ExpSyn; Exp2Syn in population p,
# tau_rise_e) and from a list of (section, x); the GPU takes the host path
printf 'soma 0.5\ndend[0] 0.3\ndend[2] 1\n' > sites.txt
run gen_swcsites "$G" -o swcsites.h5 --model hh_swc --population p:700 --population q:300 \
    --morphology "$top/tests/data/c91662_part.CNG.swc" --param tau_rise_e=0.5@p --param dend.g_pas=5e-5 \
    --projection from=all,to=all,indegree=12,weight=0.004:0.012,delay=1:3,receptor=ge,sites=dend:20:300 \
    --projection from=q,to=all,indegree=3,weight=0.002,delay=0.5,receptor=gi,sites=@sites.txt &&
  check_cable swcsites swcsites --time 100 --pulse 1:90:0.5:0:100
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  say ""
  say "# benchmark: 1 s of simulated time, dt 0.1 ms, olive-simulate -v (step loop = exchange + compute)"
  say "$(printf '%-10s %8s %11s %-5s %9s %9s %12s %12s' net cells synapses eng total-s loop-s cell-steps/s events/s)"
  bench() {  # name net engine threads
    local name=$1 net=$2 eng=$3
    local out="$logs/bench_${name}_$eng.log"
    OMP_NUM_THREADS=${4:-16} OLIVE_GPU_DELIVERY=${DELIVERY:-} "$S" $net.h5 -o b_${name}_$eng --time 1000 --record none --backend $eng -v >"$out" 2>&1 ||
      { say "FAIL bench $name $eng: $(tail -n 2 "$out" | tr '\n' ' ')"; nfail=$((nfail + 1)); return; }
    local total loop cs ev cells syn
    total=$(sed -n 's/.* \([0-9.]*\) s total.*/\1/p' "$out")
    loop=$(sed -n 's/.*exchange \([0-9.]*\) s[^,]*, compute \([0-9.]*\) s.*/\1 \2/p' "$out" | awk '{ print $1 + $2 }')
    cs=$(sed -n 's/.* \([0-9.e+]*\) cell-steps\/s.*/\1/p' "$out")
    ev=$(sed -n 's/.*synaptic events (\([0-9.e+]*\) per s.*/\1/p' "$out")
    cells=$(sed -n 's/^olive-simulate: \([0-9]*\) cells x.*/\1/p' "$out")
    syn=$(sed -n 's/.*(\([0-9]*\) in all).*/\1/p' "$out" | head -1)
    say "$(printf '%-10s %8s %11s %-5s %9s %9.3f %12s %12s' $name $cells $syn $eng $total $loop $cs $ev)"
  }
  [ "${ONLY_BIG:-0}" = 1 ] || { bench cuba4000t2 cuba cpu 2; bench cuba4000 cuba cpu; bench cuba4000 cuba cuda
                                DELIVERY=device bench cuba4000dev cuba cuda; DELIVERY=host bench cuba4000host cuba cuda; }
  if [ "${ONLY_BIG:-0}" != 1 ]; then
  run gen_100k "$G" -o c100k.h5 --model lif_cuba --population exc:80000 --population inh:20000 --v0 -60:-50 \
      --projection from=exc,to=all,p=0.01,weight=0.1296,delay=0,receptor=ge \
      --projection from=inh,to=all,p=0.01,weight=-0.72,delay=0,receptor=gi && { bench c100k c100k cpu; bench c100k c100k cuda
                                                                                DELIVERY=host bench c100khost c100k cuda; }
  rm -f c100k.h5
  fi
  if [ "${CABLE_BENCH:-1}" = 1 ]; then
    # The multi-GPU HH paper's largest network: 200k cells, 20M synapses
    # (hh_cable with 4 dendritic segments; in-degree 100, delays 1-5 ms,
    # Poisson drive); GPU over 1 s, the CPU (16 threads) over 100 ms.
    run gen_hh200k "$G" -o hh200k.h5 --model hh_cable --population pyr:100000 --population inh:100000 \
        --param dend_nseg=4 --v0 -70:-60 \
        --projection from=pyr,to=all,indegree=80,weight=0.0005:0.002,delay=1:5,receptor=ge \
        --projection from=inh,to=all,indegree=20,weight=0.002:0.005,delay=1:5,receptor=gi &&
    { HHIN="--poisson rate=100,weight=0.003,receptor=ge,n=10"
      benchh() { local name=$1 eng=$2 ms=$3 out="$logs/bench_$1_$2.log"
        OMP_NUM_THREADS=16 "$S" hh200k.h5 -o b_${name}_$eng --time $ms --record none --backend $eng $HHIN -v >"$out" 2>&1 ||
          { say "FAIL bench $name $eng: $(tail -n 2 "$out" | tr '\n' ' ')"; nfail=$((nfail + 1)); return; }
        say "  $name $eng ($ms ms): $(grep -h "cell-steps\|synaptic events\|step loop" "$out" | tr '\n' ' ')"; }
      benchh hh200k cuda 1000; OLIVE_GPU_DELIVERY=host benchh hh200khost cuda 1000; benchh hh200k cpu 100; }
    rm -f hh200k.h5
  fi
  if [ "${BIG:-1}" = 1 ]; then
    run gen_1m "$G" -o c1m.h5 --model lif_cuba --population exc:800000 --population inh:200000 --v0 -60:-50 \
        --projection from=exc,to=all,indegree=800,weight=0.1296,delay=0,receptor=ge \
        --projection from=inh,to=all,indegree=200,weight=-0.72,delay=0,receptor=gi && { bench c1m_x1000 c1m cuda
                                                                                        OLIVE_GPU_BUCKETS=dynamic bench c1mdyn c1m cuda
                                                                                        DELIVERY=host bench c1mhost c1m cuda; }
    grep -h "generation\|synapses in" "$logs/gen_1m.log" | sed 's/^/  genconn 1M: /' | tee -a "$results"
    rm -f c1m.h5
  fi
fi
tar czf "$dest/spiking-logs.tar.gz" -C "$work" logs 2>/dev/null
say "failures: $nfail"
exit $((nfail > 0))

#!/usr/bin/env bash
# Plastic synapses on the GPU host (docs/MODELS.md "Plastic synapses"): the
# CUDA engine (device push, static buckets; spk_cuda_plastic.cu) against the
# CPU engine on the same networks, bit for bit: spikes, every plastic
# synapse's final weight and state and the stdp targets' spike histories in
# state.h5, the cells' variables, the weights.h5 frames (--record-weights).
#   - tests/test_plasticity.sh's networks (100 cells, 50 Poisson sources, 1 s):
#     stdp (additive and multiplicative), stdp_nn_symm, tsodyks, tsodyks2;
#   - a larger one: 20,000 cells, stdp on every excitatory synapse (p = 0.025),
#     Poisson input, 1 s;
#   - the host path too (OLIVE_GPU_DELIVERY=host on one rank; two ranks
#     sharing the GPU: the path of several GPUs);
#   - a ring too small for the network (OLIVE_GPU_STDP_HISTORY=2) stops the
#     run, named, instead of differing from the CPU;
#   - plugin models (NESTML: iaf_psc_exp, iaf_psc_alpha, aeif_cond_exp from
#     $PLUGINS, default build-cuda/plugins, made by scripts/gpu-plugins-prepare.sh)
#     with stdp, tsodyks and tsodyks2, on one rank, the host path and two ranks.
# Then, with BENCH=1, the step loop of a 1M x 1000 network (800k excitatory
# cells with stdp on their synapses, 200k inhibitory static) against the same
# network with every synapse static, on the same GPU in the same call.
#   BIN=build-cuda/bin [PLUGINS=dir] [OUT=dir] [BENCH=1] [BENCH_MS=1000] [CHECKS=0] bash scripts/gpu-validate-plasticity.sh
# (CHECKS=0: the benchmark alone)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${OUT:-$top/gpu-results}
check=plasticity
results=gpu_validate_plasticity.txt
source "$top/scripts/gpu-check-common.sh"

same() {  # name, cpu dir, gpu dir: spikes, state (plastic included) identical
  local name=$1 c=$2 g=$3 bad=0
  h5diff "$c/spikes.h5" "$g/spikes.h5" /spikes /spikes >"$logs/$name.diff" 2>&1 || bad=1
  for v in plastic plastic_history_step plastic_history_kminus plastic_history_cell v ge gi ref; do
    h5diff "$c/state.h5" "$g/state.h5" /state/$v /state/$v >>"$logs/$name.diff" 2>&1 || bad=1
  done
  if [ -e "$c/weights.h5" ]; then   # the weights every few steps (--record-weights)
    h5diff "$c/weights.h5" "$g/weights.h5" /report /report >>"$logs/$name.diff" 2>&1 || bad=1
    [ -e "$g/weights.h5" ] || bad=1
  fi
  local n
  n=$(h5dump -H "$g/spikes.h5" 2>/dev/null | grep -c "DATASPACE  SIMPLE")
  local what="spikes, plastic weights and states, histories, cells"
  [ -e "$c/weights.h5" ] && what="$what, weights.h5 frames"
  if [ $bad = 0 ]; then say "ok   $name: CPU = GPU ($what)"
  else say "FAIL $name: CPU and GPU differ ($(head -c 300 "$logs/$name.diff" | tr '\n' ' '))"; nfail=$((nfail + 1)); fi
}

P="--param E_L=-70 --param V_th=-55 --param V_reset=-70 --param t_ref=2.1 --param tau_m=10 --param tau_e=2 --param tau_i=2 --param I_e=14 --param v0=-70"
INH="--projection from=i,to=e,p=0.2,weight=-3.0,delay=0.8,receptor=gi --projection from=i,to=i,p=0.2,weight=-3.0,delay=0.8,receptor=gi,autapses=no"
declare -A PROJ
PROJ[stdp]="--projection from=inp,to=e,p=0.3,weight=2.0,delay=1.5,receptor=ge,plasticity=stdp,Wmax=6,lambda=0.05,alpha=1.05,tau_plus=16.8,tau_minus=33.7,mu_plus=0,mu_minus=0 --projection from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no,plasticity=stdp,Wmax=3,lambda=0.02,alpha=0.9,tau_plus=16.8,tau_minus=33.7 --projection from=e,to=i,p=0.1,weight=1.0,delay=1.0,receptor=ge"
PROJ[stdp_nn_symm]="${PROJ[stdp]//plasticity=stdp,/plasticity=stdp_nn_symm,}"
PROJ[tsodyks]="--projection from=inp,to=e,p=0.3,weight=5.0,delay=1.5,receptor=ge,plasticity=tsodyks,U=0.5,tau_psc=2,tau_rec=400 --projection from=e,to=i,p=0.1,weight=3.0,delay=1.0,receptor=ge,plasticity=tsodyks,U=0.1,tau_psc=2,tau_rec=100,tau_fac=1000,u=0.1 --projection from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no"
PROJ[tsodyks2]="--projection from=inp,to=e,p=0.3,weight=7,delay=1.5,receptor=ge,plasticity=tsodyks2,U=0.5,u=0.5,tau_rec=400 --projection from=e,to=i,p=0.1,weight=6,delay=1.0,receptor=ge,plasticity=tsodyks2,U=0.1,u=0.1,tau_rec=100,tau_fac=1000 --projection from=e,to=e,p=0.1,weight=1.0,delay=1.0,receptor=ge,autapses=no"
if [ "${CHECKS:-1}" = 1 ]; then
for rule in stdp stdp_nn_symm tsodyks tsodyks2; do
  # shellcheck disable=SC2086
  run gen_$rule "$G" -q -o $rule.h5 --model lif_cuba --seed 3 --source-poisson inp:50:20:1 --population e:80 --population i:20 \
      $P ${PROJ[$rule]} $INH || continue
  WR=(--record-weights inp_to_e --record-weights-every 80)
  run cpu_$rule "$S" -q $rule.h5 --time 1000 -o cpu_$rule --backend cpu "${WR[@]}" || continue
  run gpu_$rule "$S" -q $rule.h5 --time 1000 -o gpu_$rule --backend cuda "${WR[@]}" || continue
  same $rule cpu_$rule gpu_$rule
  # the host path: one rank (OLIVE_GPU_DELIVERY=host) and two ranks sharing the GPU
  run gpuh_$rule env OLIVE_GPU_DELIVERY=host "$S" -q $rule.h5 --time 1000 -o gpuh_$rule --backend cuda "${WR[@]}" &&
    same ${rule}_host cpu_$rule gpuh_$rule
  run gpu2_$rule mpirun -np 2 "$S" -q $rule.h5 --time 1000 -o gpu2_$rule --backend cuda "${WR[@]}" &&
    same ${rule}_2ranks cpu_$rule gpu2_$rule
done

# larger: 20,000 cells, stdp on the excitatory synapses, Poisson input (every cell)
run gen_big "$G" -q -o big.h5 --model lif_cuba --seed 5 --population e:16000 --population i:4000 --v0 -60:-50 \
    --projection from=e,to=all,p=0.025,weight=0.4:0.8,delay=0.5:2,receptor=ge,plasticity=stdp,Wmax=1.5,lambda=0.01,alpha=1.1,mu_plus=0,mu_minus=1 \
    --projection from=i,to=all,p=0.025,weight=-2,delay=0.8,receptor=gi
BIGIN=(--time 1000 --poisson rate=10,weight=0.6,receptor=ge,n=40)
BIGW=(--record-weights e_to_all:1000:201000 --record-weights-every 50)
if run cpu_big "$S" -q big.h5 -o cpu_big --backend cpu "${BIGIN[@]}" "${BIGW[@]}" &&
   run gpu_big "$S" -v big.h5 -o gpu_big --backend cuda "${BIGIN[@]}" "${BIGW[@]}"; then
  same big cpu_big gpu_big
  grep -E "spikes|rings" "$logs/gpu_big.log" | sed 's/^/     /' | tee -a "$results"
  if run gpu2_big mpirun -np 2 "$S" -v big.h5 -o gpu2_big --backend cuda "${BIGIN[@]}" "${BIGW[@]}"; then
    same big_2ranks cpu_big gpu2_big
    grep -E "olive-simulate: 20000 cells" "$logs/gpu2_big.log" | sed 's/^/     /' | tee -a "$results"
  fi
fi

# the ring too small: stopped, named
if OLIVE_GPU_STDP_HISTORY=2 "$S" -q big.h5 -o small_ring --backend cuda "${BIGIN[@]}" >"$logs/small_ring.log" 2>&1; then
  say "FAIL small_ring: a 2-spike ring ran through"; nfail=$((nfail + 1))
elif grep -q "OLIVE_GPU_STDP_HISTORY" "$logs/small_ring.log" && [ ! -e small_ring ]; then
  say "ok   small_ring: OLIVE_GPU_STDP_HISTORY=2 stops the run, named, no output ($(grep -o 'a cell fired more[^:]*' "$logs/small_ring.log" | head -1))"
else
  say "FAIL small_ring: $(tail -n 2 "$logs/small_ring.log" | tr '\n' ' ')"; nfail=$((nfail + 1))
fi

# plugin models (NESTML, built here with their GPU images: scripts/gpu-plugins-prepare.sh): their
# cells note the spikes stdp reads in the same kernels; an alpha kernel's receptor factors; a
# conductance model with tsodyks2 (as PyNN's EIF cells with TsodyksMarkramSynapse).
PLUGINS=${PLUGINS:-$top/build-cuda/plugins}
if [ -e "$PLUGINS/iaf_psc_exp_neuron.so" ] && [ -e "$PLUGINS/iaf_psc_alpha_neuron.so" ] && [ -e "$PLUGINS/aeif_cond_exp_neuron.so" ]; then
  export OLIVE_MODEL_PATH="$PLUGINS"
  # name model rule weight(input) weight(recurrent): weights that make the cells fire (pA, or nS)
  while read -r -u 3 name model rule w we; do   # (fd 3: mpirun reads stdin)
    run gen_$name "$G" -q -o $name.h5 --model "$PLUGINS/$model.so" --seed 3 --source-poisson inp:50:20:1 --population e:80 \
        --population i:20 --projection from=inp,to=e,p=0.3,weight=$w,delay=1.5,receptor=exc_spikes,$rule \
        --projection from=e,to=e,p=0.1,weight=$we,delay=1.0,receptor=exc_spikes,autapses=no,$rule \
        --projection from=e,to=i,p=0.1,weight=$we,delay=1.0,receptor=exc_spikes \
        --projection from=i,to=e,p=0.2,weight=$we,delay=0.8,receptor=inh_spikes || continue
    WR=(--record-weights inp_to_e --record-weights-every 80)
    run cpu_$name "$S" -q $name.h5 --time 1000 -o cpu_$name --backend cpu "${WR[@]}" || continue
    for v in gpu:1 gpuh:host gpu2:2ranks; do
      case ${v#*:} in 1) pre=() ;; host) pre=(env OLIVE_GPU_DELIVERY=host) ;; 2ranks) pre=(mpirun -np 2) ;; esac
      run ${v%%:*}_$name "${pre[@]}" "$S" -q $name.h5 --time 1000 -o ${v%%:*}_$name --backend cuda "${WR[@]}" || continue
      bad=0
      h5diff "cpu_$name/spikes.h5" "${v%%:*}_$name/spikes.h5" /spikes /spikes >"$logs/$name.diff" 2>&1 || bad=1
      # every dataset of the GPU's /state (the model's own variables, the plastic states and
      # histories; not the queued events, which a GPU run keeps on the device: spk_plastic.c)
      for d in $(h5ls -r "${v%%:*}_$name/state.h5" | awk '$2 == "Dataset" {print $1}'); do
        h5diff "cpu_$name/state.h5" "${v%%:*}_$name/state.h5" "$d" "$d" >>"$logs/$name.diff" 2>&1 || bad=1
      done
      h5diff "cpu_$name/weights.h5" "${v%%:*}_$name/weights.h5" /report /report >>"$logs/$name.diff" 2>&1 || bad=1
      # the cells' spikes (not the sources'): the plastic synapses must have made them fire
      nsp=$(h5ls -r "cpu_$name/spikes.h5" | awk -F'[{}]' '/\/spikes\/(e|i)\/node_ids/ {s += $2} END {print s + 0}')
      if [ $bad = 0 ] && [ "$nsp" -gt 100 ]; then
        say "ok   ${name}_${v#*:}: CPU = GPU ($nsp spikes of the cells; spikes, /state's datasets, weights.h5 frames)"
      else say "FAIL ${name}_${v#*:}: CPU and GPU differ, or the cells did not fire ($nsp spikes; $(head -c 300 "$logs/$name.diff" | tr '\n' ' '))"; nfail=$((nfail + 1)); fi
    done
  done 3<<'NETS'
plugin_exp_stdp iaf_psc_exp_neuron plasticity=stdp,lambda=0.05,alpha=1.05,tau_plus=16.8,tau_minus=33.7,mu_plus=0,mu_minus=0,Wmax=1200 400 200
plugin_exp_tsodyks iaf_psc_exp_neuron plasticity=tsodyks,U=0.5,tau_psc=2,tau_rec=400 1500 600
plugin_alpha_stdp iaf_psc_alpha_neuron plasticity=stdp,lambda=0.05,alpha=1.05,tau_plus=16.8,tau_minus=33.7,mu_plus=0,mu_minus=0,Wmax=600 200 100
plugin_aeif_tsodyks2 aeif_cond_exp_neuron plasticity=tsodyks2,U=0.5,u=0.5,tau_rec=400 500 100
NETS
else
  say "FAIL plugins: $PLUGINS lacks iaf_psc_exp_neuron.so, iaf_psc_alpha_neuron.so or aeif_cond_exp_neuron.so (scripts/gpu-plugins-prepare.sh)"
  nfail=$((nfail + 1))
fi
fi

if [ "${BENCH:-0}" = 1 ]; then
  ms=${BENCH_MS:-1000}
  say ""
  say "## 1M x 1000, ${ms} ms: stdp on the 800k excitatory cells' synapses (additive, Wmax 2 x the weight) vs all static"
  # network (2) of docs/BENCHMARKS.md (in-degree 800 / 200, the tutorial's weights scaled), delays one step
  # (stdp's dendritic delay), procedural files (drawn at set-up)
  common=(--model lif_cuba --seed 1 --population e:800000 --population i:200000 --v0 -60:-50 --procedural
          --projection from=i,to=all,indegree=200,weight=-0.72,delay=0.1,receptor=gi)
  run gen_static "$G" -q -o static1m.h5 "${common[@]}" --projection from=e,to=all,indegree=800,weight=0.1296,delay=0.1,receptor=ge
  run gen_plastic "$G" -q -o plastic1m.h5 "${common[@]}" \
      --projection from=e,to=all,indegree=800,weight=0.1296,delay=0.1,receptor=ge,plasticity=stdp,Wmax=0.2592,lambda=0.005,alpha=1.05,mu_plus=0,mu_minus=0
  for net in static1m plastic1m; do
    run bench_$net /usr/bin/time -v "$S" -v $net.h5 -o r_$net --time "$ms" --record none --backend cuda || continue
    grep -E "set-up:|timings|spikes,|synaptic events|device memory|rings|Maximum resident" "$logs/bench_$net.log" | sed "s/^/$net: /" | tee -a "$results"
  done
fi
say ""
say "$nfail failure(s)"
exit $((nfail > 0))

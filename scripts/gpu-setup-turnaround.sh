#!/usr/bin/env bash
# Set-up of a large network from its file on one GPU, the per-source lists
# made on the host (OLIVE_GPU_TURNAROUND=host) and on the device (the
# default from 2^24 synapses; spk_cuda_turnaround.cu), alternating, RUNS
# times each, in one call; the spikes and state.h5 (its synapse hash
# included) must be identical. The network: 1M cells x 1000 synapses
# (800k exc / 200k inh, in-degree 800 / 200, constant weights, delay 0: the
# benchmark network (2) of docs/BENCHMARKS.md), 100 ms. Builds nothing: $BIN.
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-setup-turnaround.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin} RUNS=${RUNS:-2}
dest=${OUT:-$PWD/gpu-setup-out}
mkdir -p "$dest"
work=$(mktemp -d /tmp/olive-setup.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
out="$dest/setup-turnaround.txt"
echo "olive gpu-setup-turnaround on $(hostname) $(date -u +%FT%TZ), $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')" | tee "$out"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$out"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
t0=$(date +%s.%N)
"$BIN/olive-genconn" -q -o c1m.h5 --model lif_cuba --population exc:800000 --population inh:200000 --v0 -60:-50 \
    --projection from=exc,to=all,indegree=800,weight=0.1296,delay=0,receptor=ge \
    --projection from=inh,to=all,indegree=200,weight=-0.72,delay=0,receptor=gi || exit 1
echo "genconn: $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s, $(stat -c %s c1m.h5) bytes" | tee -a "$out"
fail=0
for i in $(seq "$RUNS"); do
  for ta in host device; do
    OLIVE_GPU_TURNAROUND=$ta /usr/bin/time -f "wall %e s, peak RSS %M kB" -o time_$ta.txt \
      "$BIN/olive-simulate" c1m.h5 -o r_$ta --force --time 100 --record none --backend cuda -v > $ta.log 2>&1 ||
      { echo "FAIL $ta: $(tail -n 3 $ta.log | tr '\n' ' ')" | tee -a "$out"; fail=1; continue; }
    echo "$ta run $i: $(grep -h "set-up:" $ta.log | sed 's/.*set-up: //') | $(grep -h "per-source rows" $ta.log | sed 's/.*rank 0: //' | tr '\n' ' ')| $(grep -h "timings" $ta.log | sed 's/.*setup \([0-9.]* s\).*/setup \1/') | $(cat time_$ta.txt)" | tee -a "$out"
  done
  if "$BIN/olive-analyze" compare -q r_host r_device; then echo "PASS run $i: spikes and state (synapse hash) identical" | tee -a "$out"
  else echo "FAIL run $i: the device's lists give other spikes or state" | tee -a "$out"; fail=1; fi
done
exit $fail

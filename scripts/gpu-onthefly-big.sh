#!/usr/bin/env bash
# A network whose synapses do not fit any GPU, on one GPU: CELLS cells
# (default 4,000,000: 80% excitatory), every cell the source of DEG synapses
# (default 2500: 1e10 in all; a cell receives DEG on average, 4/5 of them
# excitatory), drawn at each spike by the CUDA engine from the rules of a
# procedural file (outdegree=, spk_cuda_rules.cu), never stored. The
# tutorial's CUBA cells (lif_cuba: rest above threshold, inhibition-
# dominated) with the weights scaled by 80/(4/5 DEG) and 20/(DEG/5) (the
# same mean input as the 4000-cell tutorial network), delays uniform in
# 1..3 ms. Prints set-up, step loop, spikes, events and the device memory
# the engine asked for; the stored form's lists alone take 18 bytes a
# synapse on the device (180 GB at 1e10). Builds nothing: $BIN (a CUDA build).
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-onthefly-big.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
CELLS=${CELLS:-4000000} DEG=${DEG:-2500} MS=${MS:-200}
dest=${OUT:-$PWD/gpu-onthefly-out}
mkdir -p "$dest"
work=$(mktemp -d /tmp/olive-fly.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
ne=$((CELLS * 4 / 5)) ni=$((CELLS - CELLS * 4 / 5))
de=$((DEG * 4 / 5)) di=$((DEG - DEG * 4 / 5))
we=$(python3 -c "print(1.62 * 80 / $de)") wi=$(python3 -c "print(-9 * 20 / $di)")
out="$dest/onthefly-big.txt"
{
  echo "olive gpu-onthefly-big on $(hostname) $(date -u +%FT%TZ), $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
  echo "network: $CELLS cells ($ne exc, $ni inh), out-degree $DEG (in-degree $de exc, weight $we mV, + $di inh, weight $wi mV):" \
       "$((CELLS * DEG)) synapses; delays 1..3 ms; $MS ms simulated"
} | tee "$out"
t0=$(date +%s.%N)
"$BIN/olive-genconn" -q -o net.h5 --procedural --model lif_cuba --population exc:$ne --population inh:$ni --v0 -60:-50 \
    --projection from=exc,to=all,outdegree=$DEG,weight=$we,delay=1:3,receptor=ge \
    --projection from=inh,to=all,outdegree=$DEG,weight=$wi,delay=1:3,receptor=gi
t1=$(date +%s.%N)
echo "olive-genconn --procedural: $(python3 -c "print(round($t1 - $t0, 2))") s, file $(stat -c %s net.h5) bytes" | tee -a "$out"
/usr/bin/time -v -o time.txt "$BIN/olive-simulate" net.h5 -o run --backend cuda --time "$MS" --record none -v > sim.log 2>&1 ||
  { tail -n 20 sim.log | tee -a "$out"; exit 1; }
grep -E "set-up|drawn at each spike|device memory|engine, cells|step loop|synaptic events|spikes|timings" sim.log | tee -a "$out"
grep -E "Maximum resident|Elapsed" time.txt | tee -a "$out"
nvidia-smi --query-gpu=memory.total --format=csv,noheader 2>/dev/null | sed 's/^/device memory (total): /' | tee -a "$out"
python3 - run/spikes.h5 "$MS" "$CELLS" <<'PY' 2>/dev/null | tee -a "$out" || true
import sys, h5py
n = sum(len(g["node_ids"]) for g in h5py.File(sys.argv[1])["spikes"].values())
print("mean rate: %.2f Hz (%d spikes)" % (n / (float(sys.argv[2]) * 1e-3) / int(sys.argv[3]), n))
PY

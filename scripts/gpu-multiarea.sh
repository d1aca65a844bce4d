#!/usr/bin/env bash
# The multi-area model on the GPU host, from scripts/gpu-multiarea-prepare.sh's
# DIR (MA=DIR), olive's binaries in $BIN:
# - CPU = GPU: at SMALL (default 0.01) the procedural network on the CPU
#   engine (the host's threads; the rules drawn into rows at set-up) and on
#   the CUDA engine (every synapse drawn at each spike): spikes and final
#   state identical, SMALL_MS (default 300) ms;
# - the full model (scale 1, 4.13 million neurons, ~24e9 synapses never
#   stored): FULL_MS (default 2000) ms on one GPU, set-up and step loop timed
#   (olive-simulate -v), the mean rate per population after 500 ms against
#   the model's own mean-field rates (theory_rates.json) and the rates it
#   ships (fullscale_rates.json), as a table and correlations.
# Results under $OUT (multiarea-results.txt, logs). FULL=0 skips the full
# model; EXTRA="--order-free-sums" adds olive-simulate options to every run.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
MA=${MA:?MA=DIR from scripts/gpu-multiarea-prepare.sh} OUT=${OUT:-$PWD/gpu-multiarea-out} BIN=${BIN:-$top/build/bin}
SMALL=${SMALL:-0.01} SMALL_MS=${SMALL_MS:-300} FULL_MS=${FULL_MS:-2000}
mkdir -p "$OUT"
res=$OUT/multiarea-results.txt
say() { echo "$*" | tee -a "$res"; }
so=$MA/iaf_psc_exp_v0_neuron.so
export OLIVE_MODEL_PATH=$MA
work=$(mktemp -d)
# the commands of multiarea.py (relative places) with this host's BIN and plugin, run in $work
cmd() { sed -n "$2p" "$MA/s$1/commands.txt" | sed "s|BIN/|$BIN/|g; s|PLUGIN|$so|g"; }
cd "$work"
say "olive gpu-multiarea on $(hostname) $(date -u +%FT%TZ): $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores"
for sc in $SMALL 1; do
  [ "$sc" = 1 ] && [ "${FULL:-1}" = 0 ] && continue
  mkdir -p "$work/s$sc"
  cp "$MA/s$sc/projections.txt" "$work/s$sc/"
  g=$(cmd $sc 1)
  t0=$(date +%s.%N)
  eval "$g" > "$OUT/genconn_s$sc.log" 2>&1 || { say "FAIL genconn at scale $sc: $(tail -3 "$OUT/genconn_s$sc.log")"; continue; }
  say "scale $sc: olive-genconn --procedural $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{printf "%.2f", b-a}') s, $(du -h "$work/s$sc/net.h5" | cut -f1)"
done
sim() {  # SCALE MS OUTDIR BACKEND [env...]
  local sc=$1 ms=$2 o=$3 be=$4
  cmd $sc 2 | sed "s| -q | -v |; s| -o s$sc/run | -o $o |; s|--time [0-9.]*|--time $ms|; s|$| --backend $be ${EXTRA:-}|"
}
# CPU = GPU at the small scale
c=$(sim $SMALL $SMALL_MS "$work/cpu" cpu); eval "$c" > "$OUT/small_cpu.log" 2>&1 || say "FAIL small CPU run: $(tail -3 "$OUT/small_cpu.log")"
c=$(sim $SMALL $SMALL_MS "$work/gpu" cuda); eval "$c" > "$OUT/small_gpu.log" 2>&1 || say "FAIL small GPU run: $(tail -3 "$OUT/small_gpu.log")"
grep -h "drawn at each spike\|spikes, 1 rank\|weights rounded" "$OUT/small_cpu.log" "$OUT/small_gpu.log" | tee -a "$res"
if "$BIN/olive-analyze" compare -q "$work/cpu" "$work/gpu" > "$OUT/small_cmp.log" 2>&1; then
  say "PASS scale $SMALL, $SMALL_MS ms: CPU = GPU (rules drawn at each spike), spikes and state identical"
else say "FAIL scale $SMALL: CPU and GPU differ: $(head -3 "$OUT/small_cmp.log")"; fi
[ "${FULL:-1}" = 0 ] && exit 0
c=$(sim 1 $FULL_MS "$work/full" cuda)
/usr/bin/time -v bash -c "$c" > "$OUT/full_gpu.log" 2>&1 || say "FAIL full model: $(grep -v '^\s' "$OUT/full_gpu.log" | tail -3)"
grep -h "set-up:\|drawn at each spike\|engine,\|timings\|spikes, 1 rank\|synaptic events\|device memory\|weights rounded\|Maximum resident\|Elapsed" "$OUT/full_gpu.log" | tee -a "$res"
python3 - "$work/full/spikes.h5" "$MA/s1/populations.json" "$MA/theory_rates.json" "$MA/fullscale_rates.json" "$FULL_MS" \
    "$OUT/full_rates.json" <<'PY' | tee -a "$res"
import sys, json, h5py, numpy as np
sp, pops, th, ref, T = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), json.load(open(sys.argv[4])), float(sys.argv[5])
t0 = 500.0
f = h5py.File(sp)
mine, theory, shipped = [], [], []
for q in pops:
    g = f["spikes"][q["name"]]
    t = g["timestamps"][:]
    mine.append(((t >= t0) & (t < T)).sum() / q["count"] / ((T - t0) * 1e-3))
    theory.append(float(th[q["area"]][q["pop"]]))
    shipped.append(float(ref[q["area"]][q["pop"]]))
mine, theory, shipped = np.array(mine), np.array(theory), np.array(shipped)
n = np.array([q["count"] for q in pops])
print(f"full model, {T:g} ms, rates after {t0:g} ms: olive's mean over neurons {np.sum(mine * n) / n.sum():.3f} Hz, over "
      f"populations {mine.mean():.3f} Hz; the model's mean-field theory {np.sum(theory * n) / n.sum():.3f} / {theory.mean():.3f} Hz")
print(f"per population: olive against the theory: correlation {np.corrcoef(mine, theory)[0, 1]:.4f}, median |difference| "
      f"{np.median(np.abs(mine - theory)):.3f} Hz, median ratio {np.median(mine[theory > 0.5] / theory[theory > 0.5]):.3f} "
      f"(populations above 0.5 Hz); against the shipped fullscale_rates.json: correlation {np.corrcoef(mine, shipped)[0, 1]:.3f} "
      f"(theory against those: {np.corrcoef(theory, shipped)[0, 1]:.3f})")
print("per area, population: olive / theory (Hz)")
for area in dict.fromkeys(q["area"] for q in pops):
    k = [i for i, q in enumerate(pops) if q["area"] == area]
    print(f"  {area:5s} " + " ".join(f"{pops[i]['pop']}:{mine[i]:.2f}/{theory[i]:.2f}" for i in k))
json.dump({q["name"]: float(x) for q, x in zip(pops, mine)}, open(sys.argv[6], "w"), indent=0)
PY
rm -rf "$work"

#!/usr/bin/env bash
# The multi-area model on the GPU host, from scripts/gpu-multiarea-prepare.sh's
# DIR (MA=DIR), olive's binaries in $BIN:
# - CPU = GPU: at SMALL (default 0.01; none: left out) the procedural network on the CPU
#   engine (the host's threads; the rules drawn into rows at set-up) and on
#   the CUDA engine (every synapse drawn at each spike): spikes and final
#   state identical, SMALL_MS (default 300) ms;
# - the full model (scale 1, 4.13 million neurons, ~24e9 synapses never
#   stored): FULL_MS (default 2000) ms on one GPU, set-up and step loop timed
#   (olive-simulate -v), the mean rate per population after 500 ms against
#   the model's own mean-field rates (theory_rates.json) and the rates it
#   ships (fullscale_rates.json), as a table and correlations.
# - with NEST=1 (DIR prepared with NEST=1): NEST 3.10 on the host's cores
#   running the model's own Simulation class at NEST_SCALE (default 0.01),
#   NEST_MS (default 1000) ms, twice (two draws), against olive on the GPU
#   (scripts/multiarea_nest_compare.py --baseline), state NEST_STATE
#   (default ground), in the same call.
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
[ "$SMALL" = none ] && SMALL=
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
if [ -n "$SMALL" ]; then   # CPU = GPU at the small scale
  c=$(sim $SMALL $SMALL_MS "$work/cpu" cpu); eval "$c" > "$OUT/small_cpu.log" 2>&1 || say "FAIL small CPU run: $(tail -3 "$OUT/small_cpu.log")"
  c=$(sim $SMALL $SMALL_MS "$work/gpu" cuda); eval "$c" > "$OUT/small_gpu.log" 2>&1 || say "FAIL small GPU run: $(tail -3 "$OUT/small_gpu.log")"
  grep -h "drawn at each spike\|spikes, 1 rank\|weights rounded" "$OUT/small_cpu.log" "$OUT/small_gpu.log" | tee -a "$res"
  if "$BIN/olive-analyze" compare -q "$work/cpu" "$work/gpu" > "$OUT/small_cmp.log" 2>&1; then
    say "PASS scale $SMALL, $SMALL_MS ms: CPU = GPU (rules drawn at each spike), spikes and state identical"
  else say "FAIL scale $SMALL: CPU and GPU differ: $(head -3 "$OUT/small_cmp.log")"; fi
fi
if [ "${NEST:-0}" = 1 ]; then
  # the host's python3 (it has scipy, pandas, matplotlib) with the carried wheels first on its path:
  # NEST 3.10, numpy and h5py as the microcircuit carries them, the model's pure-Python requirements
  py=$(command -v python3)
  "$py" - "$MA/wheels" "$work/site" <<'PY' || say "FAIL: cannot unpack the wheels"
import sys, os, zipfile
for w in sorted(os.listdir(sys.argv[1])):
    zipfile.ZipFile(os.path.join(sys.argv[1], w)).extractall(sys.argv[2])
PY
  # the model's checkout, writable, with this host's config.py (its README's template: base_path, data_path)
  cp -r "$MA/checkout" "$work/mam"
  printf 'base_path = "%s"\ndata_path = "%s"\njobscript_template = ""\nsubmit_cmd = None\n' "$work/mam" \
      "$work/mam/simulations" > "$work/mam/config.py"
  export PYTHONPATH=$work/site
  say "python for NEST: $("$py" -c 'import sys, numpy, scipy, pandas, h5py, nest; print(sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__, "pandas", pandas.__version__, "h5py", h5py.__version__, "NEST", nest.__version__)' 2>"$OUT/nest_import.err" | tail -1)"
  "$py" "$top/scripts/multiarea_nest_compare.py" --mam "$work/mam" --bin "$BIN" --plugin "$so" \
      --scale "${NEST_SCALE:-0.01}" --time "${NEST_MS:-1000}" --state "${NEST_STATE:-ground}" --threads "$(nproc)" \
      --baseline --olive-args "--backend ${NEST_BACKEND:-cuda} ${EXTRA:-}" --work "$work/cmp" --json "$OUT/nest_compare.json" \
      2> "$OUT/nest_compare.err" | grep -v "^\[INFO\]\|^$" | tee -a "$res"
  [ "${PIPESTATUS[0]}" = 0 ] && say "PASS olive (${NEST_BACKEND:-cuda}) against NEST as NEST against NEST" ||
      say "FAIL the comparison with NEST: $(tail -3 "$OUT/nest_compare.err")"
  unset PYTHONPATH
fi
[ "${FULL:-1}" = 0 ] && exit 0
c=$(sim 1 $FULL_MS "$work/full" cuda)
/usr/bin/time -v bash -c "$c" > "$OUT/full_gpu.log" 2>&1 || say "FAIL full model: $(grep -v '^\s' "$OUT/full_gpu.log" | tail -3)"
grep -h "set-up:\|drawn at each spike\|engine,\|timings\|spikes, 1 rank\|synaptic events\|device memory\|weights rounded\|Maximum resident\|Elapsed" "$OUT/full_gpu.log" | tee -a "$res"
python3 - "$work/full/spikes.h5" "$MA/s1/populations.json" "$MA/theory_rates.json" "$MA/fullscale_rates.json" "$FULL_MS" \
    "$OUT/full_rates.json" "$top" <<'PY' | tee -a "$res"
import sys, json, h5py, numpy as np
sp, pops, th, ref, T = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), json.load(open(sys.argv[4])), float(sys.argv[5])
sys.path[:0] = [sys.argv[7] + "/scripts", sys.argv[7] + "/examples/microcircuit"]
from microcircuit_nest_compare import measures   # (the comparisons' rate, CV of ISIs, spike-count correlation)
t0 = 500.0
f = h5py.File(sp)
mine, theory, shipped, stats = [], [], [], {}
for q in pops:
    g = f["spikes"][q["name"]]
    t = g["timestamps"][:]
    mine.append(((t >= t0) & (t < T)).sum() / q["count"] / ((T - t0) * 1e-3))
    stats[q["name"]] = measures(q["count"], t, g["node_ids"][:].astype(np.int64), t0, T, 1)
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
n_cv = sum(np.isfinite(v["cv"][0]) for v in stats.values())
cv = np.nanmean([v["cv"][0] for v in stats.values()])
corr = np.nanmean([v["corr"][0] for v in stats.values()])
print(f"CV of ISIs (cells with 3 spikes or more), mean over {n_cv} populations: {cv:.3f}; spike-count correlation "
      f"(10 ms bins, 100 active cells a population), mean over populations: {corr:.4f}")
print("per area: mean over its populations of rate (Hz) / CV / correlation")
for area in dict.fromkeys(q["area"] for q in pops):
    k = [q["name"] for q in pops if q["area"] == area]
    print(f"  {area:5s} " + " / ".join(f"{np.nanmean([stats[x][m][0] for x in k]):.3g}" for m in ("rate", "cv", "corr")))
json.dump({q["name"]: dict(rate=float(x), cv=stats[q["name"]]["cv"], corr=stats[q["name"]]["corr"])
           for q, x in zip(pops, mine)}, open(sys.argv[6], "w"), indent=0)
PY
rm -rf "$work"

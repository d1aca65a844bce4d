#!/usr/bin/env bash
# The device push path of the CUDA spiking engine on the 1M x 1000 CUBA
# network, variant against variant on the same GPU in one call:
# static buckets (the default: one pass a step over the cells, then the
# step's events sent by a kernel of their own) and dynamic buckets
# (OLIVE_GPU_BUCKETS=dynamic). All must give the same spikes and state
# (olive-analyze compare, tolerance 0). NCU=1 adds a per-kernel profile of a
# few steps (Nsight Compute: time and DRAM bytes of each kernel).
# On the GPU host: bash .gpurt/setup.sh && . /opt/olive-rt/env.sh &&
#   OUT=$OUT bash scripts/gpu-bench-spiking-paths.sh
# The network is scripts/gpu-bench-brian2cuda.sh's c1mf: 800k excitatory and
# 200k inhibitory cells, every pair with p 0.001, weights 0.1296 / -0.72 mV,
# delay 0; 1 s of simulated time. Results: $OUT/spiking-paths.txt.
# EXTRA_BINS="name=dir ..." also runs the olive-simulate of other builds
# (A/B against an earlier commit in the same call), EXTRA_ENVS="name:VAR=value
# ..." this build with an environment variable set; compared likewise.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
dest=${OUT:-$PWD/gpu-bench-spiking-paths-out}
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/dev/shm}/olive-paths.XXXXXX")
trap 'rm -rf "$work"' EXIT
results="$dest/spiking-paths.txt"
: >"$results"
say() { echo "$*" | tee -a "$results"; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
say "olive device push variants on $(hostname) $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$results"
net=$work/c1m.h5
"$BIN/olive-genconn" -o "$net" --model lif_cuba --population exc:800000 --population inh:200000 --v0 -60:-50 \
  --projection from=exc,to=all,p=0.001,weight=0.1296,delay=0,receptor=ge \
  --projection from=inh,to=all,p=0.001,weight=-0.72,delay=0,receptor=gi -q || { say "FAIL olive-genconn"; exit 1; }
say "$(printf '%-16s %9s %9s %9s %12s' variant loop-s total-s spikes us/step)"
nfail=0
variant() {  # name env...
  local name=$1; shift
  local log="$work/$name.log" sim="${SIM:-$BIN/olive-simulate}"
  if ! env "$@" "$sim" "$net" -o "$work/run_$name" --time 1000 --record none --backend cuda -v >"$log" 2>&1; then
    say "FAIL $name: $(tail -n 2 "$log" | tr '\n' ' ')"; nfail=$((nfail + 1)); return
  fi
  local loop total spikes
  loop=$(sed -n 's/.*exchange \([0-9.]*\) s[^,]*, compute \([0-9.]*\) s.*/\1 \2/p' "$log" | awk '{ printf "%.3f", $1 + $2 }')
  total=$(sed -n 's/.* \([0-9.]*\) s total.*/\1/p' "$log")
  spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$log")
  say "$(printf '%-16s %9s %9s %9s %12.1f' "$name" "$loop" "$total" "$spikes" "$(echo "$loop" | awk '{ print $1 * 100 }')")"
  grep -h "delivery" "$log" | sed 's/^/  /' | tee -a "$results"
}
variant static OLIVE_GPU_BUCKETS=static
variant dynamic OLIVE_GPU_BUCKETS=dynamic
extra=()
for nb in ${EXTRA_BINS:-}; do
  SIM="${nb#*=}/olive-simulate" variant "${nb%%=*}"
  extra+=("${nb%%=*}")
done
for ne in ${EXTRA_ENVS:-}; do
  variant "${ne%%:*}" "${ne#*:}"
  extra+=("${ne%%:*}")
done
for v in dynamic "${extra[@]}"; do
  if [ -d "$work/run_$v" ] && "$BIN/olive-analyze" compare -q "$work/run_static" "$work/run_$v" >"$work/cmp_$v.log" 2>&1; then
    say "PASS static = $v (spikes and final state identical)"
  else
    say "FAIL static != $v: $(head -n 3 "$work/cmp_$v.log" 2>/dev/null | tr '\n' ' ')"; nfail=$((nfail + 1))
  fi
done
if [ "${NCU:-0}" = 1 ]; then
  ncu=$(command -v ncu || { [ -x /usr/local/cuda/bin/ncu ] && echo /usr/local/cuda/bin/ncu; })
  if [ -z "$ncu" ]; then
    say "no ncu (Nsight Compute) on this host: no kernel profile"
  else
    say "# Nsight Compute: 6 kernels from launch 600 of a 1000-step run: time, DRAM bytes, warps active"
    "$ncu" --launch-skip 600 --launch-count 6 \
      --metrics gpu__time_duration.sum,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
      "$BIN/olive-simulate" "$net" -o "$work/run_ncu" --time 100 --record none --backend cuda 2>&1 |
      grep -E "^  [a-zA-Z_<>]+|gpu__time|dram__bytes|warps_active|registers" | sed 's/(const.*//; s/(spk_.*//' | tee -a "$results"
  fi
fi
say "failures: $nfail"
exit $((nfail > 0))

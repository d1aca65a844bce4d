#!/usr/bin/env bash
# olive's CUDA engine against Brian2CUDA on the same GPU, in the same call.
# The Brian2CUDA binaries are built on the dev machine by
# scripts/brian2cuda_build.py (the GPU host has no nvcc); this runs each of
# them and olive on the same network law, on the GPU host:
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-bench-brian2cuda.sh
# B2C (default build/b2cuda) holds one directory per network, with main and
# olive-network.txt ("cells N p P we_mV WE wi_mV WI time_ms T"); NETS="a b"
# runs only those.
# olive: olive-genconn with the same law (80 % excitatory, every pair with
# probability p, the same weights, delay 0, v0 uniform in [-60, -50) mV),
# olive-simulate --backend cuda. Reported: the whole process and the step loop
# (olive: exchange + compute; Brian2CUDA: its Network.run time, from
# results/last_run_info.txt), spikes and synapses of each. The two draw their
# networks independently: compare speed and rates, not spike trains.
# Results: $OUT/brian2cuda-results.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
B2C=${B2C:-$top/build/b2cuda}
dest=${OUT:-$PWD/gpu-bench-brian2cuda-out}
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/tmp}/olive-b2c.XXXXXX")
trap 'rm -rf "$work"' EXIT
results="$dest/brian2cuda-results.txt"
: >"$results"
say() { echo "$*" | tee -a "$results"; }
# cuRAND for the Brian2CUDA binaries: the host's CUDA toolkit
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH=$d:${LD_LIBRARY_PATH:-}
done
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
say "olive vs Brian2CUDA on $(hostname) $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$results"
say "$(printf '%-9s %8s %-10s %11s %9s %9s %9s %8s' net cells sim synapses total-s loop-s spikes rate-Hz)"
read_i32() { od -An -t d4 -N 4 "$1" 2>/dev/null | tr -d ' '; }
nfail=0
for dir in "$B2C"/*/; do
  name=$(basename "$dir")
  [ -z "${NETS:-}" ] || [[ " $NETS " == *" $name "* ]] || continue
  read -r _ cells _ p _ we _ wi _ tms from_file _ < "$dir/olive-network.txt" || continue
  ne=$((cells * 4 / 5))
  net="$work/$name.h5"
  # ":stdp" projects (brian2cuda_build.py): olive's stdp with the same parameters on the excitatory synapses
  plastic=""
  if grep -qw stdp "$dir/olive-network.txt"; then
    plastic=",plasticity=stdp,lambda=0.005,alpha=1.05,mu_plus=0,mu_minus=0,tau_plus=20,tau_minus=20,Wmax=$(echo "$we" | awk '{ print 2 * $1 }')"
  fi
  if ! "$G" -o "$net" --model lif_cuba --population exc:$ne --population inh:$((cells - ne)) --v0 -60:-50 \
      --projection from=exc,to=all,p=$p,weight=$we,delay=0,receptor=ge$plastic \
      --projection from=inh,to=all,p=$p,weight=$wi,delay=0,receptor=gi -q >"$work/gen_$name.log" 2>&1; then
    say "FAIL $name: olive-genconn: $(tail -n 2 "$work/gen_$name.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); continue
  fi
  out="$work/olive_$name.log"
  if "$S" "$net" -o "$work/run_$name" --time "$tms" --record none --backend cuda -v >"$out" 2>&1; then
    total=$(sed -n 's/.* \([0-9.]*\) s total.*/\1/p' "$out")
    loop=$(sed -n 's/.*exchange \([0-9.]*\) s[^,]*, compute \([0-9.]*\) s.*/\1 \2/p' "$out" | awk '{ printf "%.3f", $1 + $2 }')
    spikes=$(sed -n 's/.*steps ([0-9.]* ms), \([0-9]*\) spikes.*/\1/p' "$out")
    syn=$(sed -n 's/.*(\([0-9]*\) in all).*/\1/p' "$out" | head -1)
    say "$(printf '%-9s %8s %-10s %11s %9s %9s %9s %8.3f' $name $cells olive $syn $total $loop $spikes \
          $(echo "$spikes $cells $tms" | awk '{ print $1 / $2 / ($3 / 1000) }'))"
    grep -h "fused delivery" "$out" | sed "s/^/  olive: /" | tee -a "$results"
  else
    say "FAIL $name olive: $(tail -n 3 "$out" | tr '\n' ' ')"; nfail=$((nfail + 1))
  fi
  rm -rf "$work/run_$name"
  cp -r "$dir" "$work/b2c_$name"
  if [ "$from_file" = from_file ]; then
    # the same network: olive's synapses and v0 as the project's static arrays
    t0=$(date +%s.%N)
    if ! python3 "$top/scripts/olive_to_brian2_arrays.py" "$net" "$work/b2c_$name" >"$work/conv_$name.log" 2>&1; then
      say "FAIL $name: olive_to_brian2_arrays: $(tail -n 2 "$work/conv_$name.log" | tr '\n' ' ')"; nfail=$((nfail + 1))
      rm -f "$net"; continue
    fi
    say "  $name: olive's network written as Brian2CUDA's arrays in $(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }') s"
  fi
  rm -f "$net"
  if [ -n "${KEEP_B2C:-}" ]; then   # prepared, not run (scripts/gpu-brian2cuda-long.sh runs it detached)
    mv "$work/b2c_$name" "$KEEP_B2C/b2c_$name"
    say "  $name: Brian2CUDA project prepared in $KEEP_B2C/b2c_$name (not run)"
    continue
  fi
  t0=$(date +%s.%N)
  if (cd "$work/b2c_$name" && ./main) >"$work/b2c_$name.log" 2>&1; then
    t1=$(date +%s.%N)
    total=$(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')
    loop=$(awk '{ printf "%.3f", $1 }' "$work/b2c_$name/results/last_run_info.txt")
    spikes=$(read_i32 "$(ls "$work/b2c_$name"/results/_array_spikes_N_* | head -1)")
    syn=$(( $(read_i32 "$(ls "$work/b2c_$name"/results/_array_exc_N_* | head -1)") + \
            $(read_i32 "$(ls "$work/b2c_$name"/results/_array_inh_N_* | head -1)") ))
    say "$(printf '%-9s %8s %-10s %11s %9s %9s %9s %8.3f' $name $cells brian2cuda $syn $total $loop $spikes \
          $(echo "$spikes $cells $tms" | awk '{ print $1 / $2 / ($3 / 1000) }'))"
  else
    t1=$(date +%s.%N)
    say "FAIL $name brian2cuda after $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s: $(grep -v '^\s*$' "$work/b2c_$name.log" | tail -n 4 | tr '\n' ' ')"
    nfail=$((nfail + 1))
  fi
  cp "$work/b2c_$name.log" "$dest/" 2>/dev/null
  rm -rf "$work/b2c_$name"
done
say "failures: $nfail"
exit $((nfail > 0))

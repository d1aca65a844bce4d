#!/usr/bin/env bash
# Brian2CUDA on a network too large for one device call (1M cells x
# 1000 synapses; Brian2CUDA creates its 1e9 synapses on the host at 0.5-1.2 us
# each, 9-20 minutes, and one call may run 10). The run is started detached
# (setsid: it outlives the call) and later calls wait for it; the machine
# must stay held between them (its idle release is 30 s: call again at once).
#   start NET:  olive's network and olive's run (as gpu-bench-brian2cuda.sh),
#               then Brian2CUDA started in the background; returns at once
#   wait SECS:  waits up to SECS for Brian2CUDA to end, then prints the table
#               (into $OUT/brian2cuda-results.txt) and Brian2CUDA's log
# On the GPU host: bash .gpurt/setup.sh && . /opt/olive-rt/env.sh &&
#   OUT=$OUT bash scripts/gpu-brian2cuda-long.sh start c1mf; ... wait 580; ... wait 580
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
long=${LONG:-/dev/shm/olive-b2c-long}
dest=${OUT:-$PWD/gpu-brian2cuda-long-out}
mkdir -p "$dest"
case ${1:-} in
  start)
    net=${2:?usage: gpu-brian2cuda-long.sh start NET}
    rm -rf "$long"; mkdir -p "$long"
    # olive first, and Brian2CUDA's copy of the project with olive's network as its arrays;
    # KEEP_B2C leaves the prepared project in $long instead of running it
    TMPDIR=$long NETS=$net KEEP_B2C=$long OUT=$long bash "$top/scripts/gpu-bench-brian2cuda.sh" || true
    [ -x "$long/b2c_$net/main" ] || { cat "$long/brian2cuda-results.txt"; echo "start: no prepared project"; exit 1; }
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
      [ -d "$d" ] && export LD_LIBRARY_PATH=$d:${LD_LIBRARY_PATH:-}
    done
    # its host peak (GNU time, where the host has it) and the GPU's memory in use every 5 s
    timer=""; [ -x /usr/bin/time ] && timer="/usr/bin/time -v"
    (cd "$long/b2c_$net" && setsid bash -c "date +%s.%N > ../t0; $timer ./main > ../b2c.log 2>&1; echo \$? > ../rc; date +%s.%N > ../t1" \
      </dev/null >/dev/null 2>&1 &)
    (setsid bash -c "while [ ! -e '$long/rc' ]; do echo \$(date +%s) \$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits); sleep 5; done > '$long/gpumem.txt'" \
      </dev/null >/dev/null 2>&1 &)
    echo "$net" > "$long/net"
    echo "start: Brian2CUDA $net running detached in $long"
    ;;
  wait)
    secs=${2:-580}
    end=$(( $(date +%s) + secs ))
    while [ ! -e "$long/rc" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 5; done
    cp "$long/b2c.log" "$long/brian2cuda-results.txt" "$dest/" 2>/dev/null
    if [ ! -e "$long/rc" ]; then
      echo "wait: still running after $secs s (log: $(grep -c . "$long/b2c.log" 2>/dev/null) lines; last: $(tail -n 1 "$long/b2c.log" 2>/dev/null))"
      exit 2
    fi
    net=$(cat "$long/net") d="$long/b2c_$net"
    total=$(echo "$(cat "$long/t0") $(cat "$long/t1")" | awk '{ printf "%.1f", $2 - $1 }')
    if [ "$(cat "$long/rc")" = 0 ]; then
      read_i32() { od -An -t d4 -N 4 "$1" | tr -d ' '; }
      loop=$(awk '{ printf "%.3f", $1 }' "$d/results/last_run_info.txt")
      spikes=$(read_i32 "$(ls "$d"/results/_array_spikes_N_* | head -1)")
      echo "$net brian2cuda total-s $total loop-s $loop spikes $spikes" | tee -a "$dest/brian2cuda-results.txt"
    else
      echo "$net brian2cuda FAILED (exit $(cat "$long/rc")) after $total s" | tee -a "$dest/brian2cuda-results.txt"
    fi
    grep "took\|number of synapses\|Maximum resident\|Elapsed" "$long/b2c.log" | head -20
    echo "GPU memory in use, peak: $(awk '$2 > m { m = $2 } END { print m }' "$long/gpumem.txt" 2>/dev/null) MiB"
    cp "$long/gpumem.txt" "$dest/" 2>/dev/null
    ;;
  *) echo "usage: gpu-brian2cuda-long.sh start NET | wait SECS" >&2; exit 64 ;;
esac

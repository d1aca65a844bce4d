#!/usr/bin/env bash
# Where the GPU starts to pay: whole olive-simulate processes (CUDA context,
# reading the file and setting up included, as a user waits for them) on
# lif_cuba networks of growing size, CPU against CUDA. pyNN.olive's
# backend="auto" (python/olive/pynn/simulator.py) takes the CPU below the
# crossover this prints. Run on a GPU machine with a CUDA build:
#   OUT=DIR bash scripts/bench_backend_choice.sh
# Prints: cells, synapses, spikes, cell-steps, then seconds for each backend.
set -euo pipefail
BIN=${BIN:-build/bin}
OUT=${OUT:-/tmp/olive-backend-choice}
SIZES=${SIZES:-"1000 4000 16000 64000 256000"}
TIME=${TIME:-1000}
THREADS=${THREADS:-"2 $(nproc)"}
mkdir -p "$OUT"
printf '%-8s %-10s %-8s %-10s' cells synapses spikes cell-steps
for t in $THREADS; do printf ' %10s' "cpu-${t}t-s"; done
printf ' %10s\n' cuda-s
for n in $SIZES; do
  net="$OUT/cuba$n.h5"
  # the Brette CUBA cell with 100 inputs a cell (80 excitatory, 20 inhibitory), delays 0.1-2 ms
  "$BIN/olive-genconn" -q -o "$net" --force --model lif_cuba --population exc:$((n * 4 / 5)) --population inh:$((n / 5)) \
      --v0 -60:-50 --param t_ref=5 \
      --projection from=exc,to=all,indegree=80,weight=1.62,delay=0.1:2,receptor=ge \
      --projection from=inh,to=all,indegree=20,weight=-9,delay=0.1:2,receptor=gi
  row=""
  for t in $THREADS; do
    s=$( { /usr/bin/time -f %e "$BIN/olive-simulate" -q "$net" -o "$OUT/run" --force --time "$TIME" --record none \
          --backend cpu --threads "$t" 2>&1 1>/dev/null; } | tail -n 1)
    row="$row $(printf '%10s' "$s")"
  done
  spikes=$("$BIN/olive-analyze" summary "$OUT/run" 2>/dev/null | awk '/^spikes/ {print $2; exit}')
  if c=$( { /usr/bin/time -f %e "$BIN/olive-simulate" -q "$net" -o "$OUT/run-cuda" --force --time "$TIME" \
        --record none --backend cuda 2>&1 1>/dev/null; } | tail -n 1) && [ -e "$OUT/run-cuda/spikes.h5" ]; then
    "$BIN/olive-analyze" compare -q "$OUT/run" "$OUT/run-cuda" || echo "cuba$n: CPU and CUDA spikes differ" >&2
  else
    c="-"
  fi
  rm -rf "$OUT/run-cuda"
  printf '%-8s %-10s %-8s %-10s%s %10s\n' "$n" "$((n * 100))" "${spikes:-?}" "$((n * ${TIME%.*} * 10))" "$row" "$c"
done

#!/usr/bin/env bash
# Validate olive-simulate --backend cuda against --backend cpu on a GPU host.
# Builds nothing: uses the binaries in $BIN (default build/bin, a CUDA build).
# On a host without parallel HDF5 (its runtime packed by scripts/gpu-runtime.sh into .gpurt):
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && bash scripts/gpu-validate.sh
# Checks (each prints max |dV| and whether the spikes are identical):
#   1. the MODEL.md reference cell, 30000 steps, --pulse 1000:1024.95:6, double
#   2. a 4096-cell RGJ network (uniform, 10 junctions/cell, 8-bit conductances),
#      2000 steps, double: CPU vs GPU (one fused kernel, and sums split off)
#   3. a 4096-cell network with 100 junctions/cell, 4-bit conductances (split
#      kernels chosen by the backend, and fused), 500 steps, RGJ and SGJ, double
#   4. single precision: the reference cell and the RGJ network, CPU vs GPU
#   5. rank invariance: 2 ranks (one GPU shared) vs 1 rank, bit-identical
#   6. 1M cells x 100 junctions, 8-bit, 40 steps, double: junction arrays over
#      256 MiB, which the backend uploads through pinned staging buffers
# Comparison: python3 with h5py and numpy when available, else h5dump + awk
# (h5diff --delta for the final state). Results go to $OUT (if set) or
# ./gpu-validate-out (results.txt, logs.tar.gz). Exit status: 0 when every check passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
dest=${OUT:-$PWD/gpu-validate-out}
mkdir -p "$dest"
work=$(mktemp -d /tmp/olive-gpu-validate.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
logs=$work/logs   # packed into $dest/logs.tar.gz at the end
mkdir -p "$logs"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} OMP_WAIT_POLICY=passive
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
results="$dest/results.txt"
: >"$results"
nfail=0
say() { echo "$*" | tee -a "$results"; }
run() {  # name, command...: log to $logs/NAME.log
  local name=$1; shift
  if ! "$@" >"$logs/$name.log" 2>&1; then
    say "FAIL $name: exit status $? ($(tail -n 3 "$logs/$name.log" | tr '\n' ' '))"
    nfail=$((nfail + 1)); return 1
  fi
}

say "olive gpu-validate on $(hostname) $(date -u +%FT%TZ)"
"$BIN/olive-simulate" --version | tee -a "$results"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$results"

have_py=0
if python3 -c 'import h5py, numpy' 2>/dev/null; then have_py=1; fi
say "comparison with: $([ $have_py = 1 ] && echo 'python3 h5py' || echo 'h5dump + awk, h5diff')"

# Values of one dataset, one per line, full precision (awk path).
dump() { h5dump -y -w 0 -m %.17g -A 0 -d "$2" "$1" | awk '/DATA \{/{on=1; next} /^ *\}/{on=0} on' |
         tr ',' '\n' | sed 's/^ *//; /^$/d'; }
# maxdiff A B DATASET: the largest |a - b| over the dataset.
maxdiff() {
  if [ $have_py = 1 ]; then
    python3 - "$1" "$2" "$3" <<'EOF'
import sys, h5py, numpy as np
a = h5py.File(sys.argv[1], "r")[sys.argv[3]][()].astype(np.float64)
b = h5py.File(sys.argv[2], "r")[sys.argv[3]][()].astype(np.float64)
if a.shape != b.shape: print("shape-mismatch"); sys.exit()
d = np.abs(a - b)
print("nan" if not np.all(np.isfinite(d)) else ("%.3g" % d.max() if d.size else "0"))
EOF
  else
    paste -d' ' <(dump "$1" "$3") <(dump "$2" "$3") | awk '
      NF != 2 { bad = 1 } { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; n++ }
      END { if (bad || n == 0) print "shape-mismatch"; else printf "%.3g\n", m }'
  fi
}
# samespikes A B: "identical" when spike times and cells agree exactly.
samespikes() {
  local a b
  a=$( { dump "$1/spikes.h5" /spikes/io/timestamps; echo --; dump "$1/spikes.h5" /spikes/io/node_ids; } | md5sum)
  b=$( { dump "$2/spikes.h5" /spikes/io/timestamps; echo --; dump "$2/spikes.h5" /spikes/io/node_ids; } | md5sum)
  local n; n=$(dump "$1/spikes.h5" /spikes/io/node_ids | wc -l)
  if [ "$a" = "$b" ]; then echo "identical ($n spikes)"; else echo "DIFFERENT ($n vs $(dump "$2/spikes.h5" /spikes/io/node_ids | wc -l) spikes)"; fi
}
# statediff A B: the largest |difference| over all 19 state variables.
statediff() {
  local m=0 v d
  local vars="v_dend q r s ca i_cah g_cal v_soma m h k l n p x_s v_axon m_a h_a x_a"
  # the noise current, when the runs have one (h5ls names it)
  h5ls "$1/state.h5/state/i_noise" >/dev/null 2>&1 && vars="$vars i_noise"
  for v in $vars; do
    d=$(maxdiff "$1/state.h5" "$2/state.h5" "/state/$v")
    [ "$d" = shape-mismatch ] || [ "$d" = nan ] && { echo "$d ($v)"; return; }
    m=$(awk -v a="$m" -v b="$d" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
  done
  echo "$m"
}
# check NAME A B TOL [VARS]: report max |dV| per variable and the spikes; fail above TOL
# or when the spikes differ.
check() {
  local name=$1 a=$2 b=$3 tol=$4 vars=${5:-v_axon} ok=1 v d sp st
  local line="$name:"
  [ -f "$a/spikes.h5" ] && [ -f "$b/spikes.h5" ] || { say "FAIL $name: missing output"; nfail=$((nfail + 1)); return; }
  for v in ${vars//,/ }; do
    d=$(maxdiff "$a/$v.h5" "$b/$v.h5" /report/io/data)
    line="$line max|d $v| $d,"
    awk -v d="$d" -v t="$tol" 'BEGIN { exit !(d ~ /^[0-9.e+-]+$/ && d + 0 <= t + 0) }' || ok=0
  done
  st=$(statediff "$a" "$b")
  line="$line final state max|d| $st,"
  awk -v d="$st" -v t="$tol" 'BEGIN { exit !(d ~ /^[0-9.e+-]+$/ && d + 0 <= t + 0) }' || ok=0
  sp=$(samespikes "$a" "$b")
  line="$line spikes $sp"
  [[ "$sp" == identical* ]] || ok=0
  if [ -n "${INFO:-}" ]; then say "INFO $line"
  elif [ $ok = 1 ]; then say "PASS $line (tolerance $tol)"; else say "FAIL $line (tolerance $tol)"; nfail=$((nfail + 1)); fi
}

sim() { "$BIN/olive-simulate" "$@"; }
rec="--record v_dend,v_axon --record-every 5 --record-precision double"

# --- networks ---
run genconn-cell "$BIN/olive-genconn" -o cell.h5 --cells 1 --generator uniform --density 0 --seed 1
run genconn-rgj "$BIN/olive-genconn" -o net.h5 --cells 4096 --generator uniform --density 10 \
  --conductance 0.01:0.06 --conductance-bits 8 --seed 1
run genconn-100 "$BIN/olive-genconn" -o net100.h5 --cells 4096 --generator uniform --density 100 \
  --conductance 0.002:0.01 --conductance-bits 4 --seed 2

# --- 1. reference cell, double ---
ref="--steps 30000 --pulse 1000:1024.95:6 --record v_axon --record-precision double"
run ref-cpu sim cell.h5 -o ref-cpu $ref --backend cpu
run ref-cuda sim cell.h5 -o ref-cuda $ref --backend cuda -v
check "1. reference cell, double, 30000 steps (CPU vs GPU)" ref-cpu ref-cuda 1e-6 v_axon
if [ -f ref-cuda/v_axon.h5 ]; then
  dump ref-cuda/v_axon.h5 /report/io/data >ref-cuda.txt
  table=$(for kv in 0:-59.97596717300331 999:-57.34294623487715 9999:-58.60539352361001 19999:-61.39377556550244 \
            20499:-30.646129274248413 21999:-70.39699563440563 29999:-63.83102456263628; do
    i=${kv%%:*} want=${kv#*:}
    got=$(sed -n "$((i + 1))p" ref-cuda.txt)
    awk -v g="$got" -v w="$want" -v i="$i" 'BEGIN { r = (g - w) / w; if (r < 0) r = -r;
      printf "   GPU V_axon after step %5d: %.15g  MODEL.md %.15g  relative %.1e %s\n", i, g, w, r, (r <= 1e-9 ? "ok" : "FAIL") }'
  done)
  say "$table"
  [[ "$table" == *FAIL* ]] && nfail=$((nfail + 1))
  say "   GPU spikes (ms): $(dump ref-cuda/spikes.h5 /spikes/io/timestamps | tr '\n' ' ')(MODEL.md: 1008.2 1432.3)"
fi

# --- 2. RGJ network, double ---
run rgj-cpu sim net.h5 -o rgj-cpu --steps 2000 $rec --backend cpu
run rgj-cuda sim net.h5 -o rgj-cuda --steps 2000 $rec --backend cuda -v
check "2a. 4096 cells x 10 RGJ, 8-bit, double, 2000 steps (CPU vs GPU fused)" rgj-cpu rgj-cuda 1e-6 v_dend,v_axon
OLIVE_CUDA_ROWS=split run rgj-cuda-split sim net.h5 -o rgj-cuda-split --steps 2000 $rec --backend cuda -v
check "2b. same, GPU split kernels vs CPU" rgj-cpu rgj-cuda-split 1e-6 v_dend,v_axon
run rgj-cpu-pulse sim net.h5 -o rgj-cpu-pulse --steps 2000 $rec --backend cpu --pulse 10:30:6:0:2048
run rgj-cuda-pulse sim net.h5 -o rgj-cuda-pulse --steps 2000 $rec --backend cuda --pulse 10:30:6:0:2048
check "2c. same with a pulse into half the cells (spiking)" rgj-cpu-pulse rgj-cuda-pulse 1e-6 v_dend,v_axon

# --- 3. 100 junctions/cell, 4-bit, RGJ and SGJ ---
for gj in rgj sgj; do
  run d100-$gj-cpu sim net100.h5 -o d100-$gj-cpu --steps 500 $rec --gj $gj --backend cpu --pulse 5:15:6
  run d100-$gj-cuda sim net100.h5 -o d100-$gj-cuda --steps 500 $rec --gj $gj --backend cuda -v --pulse 5:15:6
  check "3. 4096 cells x 100 ${gj^^}, 4-bit, double, 500 steps (CPU vs GPU split)" d100-$gj-cpu d100-$gj-cuda 1e-6 v_dend,v_axon
done
OLIVE_CUDA_ROWS=fused run d100-rgj-cuda-fused sim net100.h5 -o d100-rgj-cuda-fused --steps 500 $rec --gj rgj --backend cuda --pulse 5:15:6
check "3c. 4096 cells x 100 RGJ, GPU fused vs CPU" d100-rgj-cpu d100-rgj-cuda-fused 1e-6 v_dend,v_axon
for b in 0 16 32 64; do
  w=0.002:0.02; [ $b = 0 ] && w=0.01   # bits 0: one constant conductance
  run genconn-b$b "$BIN/olive-genconn" -o net-b$b.h5 --cells 4096 --generator uniform --density 40 \
    --conductance $w --conductance-bits $b --seed 3
  run b$b-cpu sim net-b$b.h5 -o b$b-cpu --steps 500 $rec --backend cpu --pulse 5:15:6
  run b$b-cuda sim net-b$b.h5 -o b$b-cuda --steps 500 $rec --backend cuda --pulse 5:15:6
  check "3d. 4096 cells x 40 RGJ, conductances in $b bits, CPU vs GPU" b$b-cpu b$b-cuda 1e-6 v_dend,v_axon
done

# --- 4. single precision ---
run ref-cpu-f sim cell.h5 -o ref-cpu-f $ref --backend cpu --precision single
run ref-cuda-f sim cell.h5 -o ref-cuda-f $ref --backend cuda --precision single
check "4a. reference cell, single, 30000 steps (CPU vs GPU)" ref-cpu-f ref-cuda-f 1e-3 v_axon
run rgj-cpu-f sim net.h5 -o rgj-cpu-f --steps 2000 $rec --backend cpu --precision single --pulse 10:30:6:0:2048
run rgj-cuda-f sim net.h5 -o rgj-cuda-f --steps 2000 $rec --backend cuda --precision single --pulse 10:30:6:0:2048
check "4b. RGJ network, single, 2000 steps with a pulse (CPU vs GPU)" rgj-cpu-f rgj-cuda-f 1e-3 v_dend,v_axon
INFO=1 check "4c. RGJ network, GPU single vs GPU double (drift, informational)" rgj-cuda-pulse rgj-cuda-f 1 v_dend,v_axon

# --- 5. rank invariance on the GPU ---
run rgj-cuda-np2 mpirun -np 2 --oversubscribe "$BIN/olive-simulate" net.h5 -o rgj-cuda-np2 --steps 2000 $rec \
  --backend cuda -v --pulse 10:30:6:0:2048
check "5a. RGJ network, 2 ranks vs 1 rank on the GPU (must be 0)" rgj-cuda-pulse rgj-cuda-np2 0 v_dend,v_axon
run d100-cuda-np2 mpirun -np 2 --oversubscribe "$BIN/olive-simulate" net100.h5 -o d100-cuda-np2 --steps 500 $rec \
  --gj rgj --backend cuda -v --pulse 5:15:6
check "5b. 100 junctions/cell, 2 ranks vs 1 rank on the GPU (must be 0)" d100-rgj-cuda d100-cuda-np2 0 v_dend,v_axon
run rgj-cuda-np2-f mpirun -np 2 --oversubscribe "$BIN/olive-simulate" net.h5 -o rgj-cuda-np2-f --steps 2000 $rec \
  --backend cuda --precision single --pulse 10:30:6:0:2048
check "5c. RGJ network, single, 2 ranks vs 1 rank on the GPU (must be 0)" rgj-cuda-f rgj-cuda-np2-f 0 v_dend,v_axon

# --- 6. junction arrays large enough for the staged upload (over 256 MiB) ---
run genconn-big "$BIN/olive-genconn" -o big.h5 --cells 1048576 --generator uniform --density 100 \
  --conductance 0.002:0.01 --conductance-bits 8 --seed 3
big="--steps 40 --record v_dend --record-every 10 --record-precision double --pulse 0:1:6:0:524288"
run big-cpu sim big.h5 -o big-cpu $big --backend cpu
run big-cuda sim big.h5 -o big-cuda $big --backend cuda -v
check "6. 1M cells x 100 RGJ, 8-bit, 40 steps, staged upload (CPU vs GPU)" big-cpu big-cuda 1e-6 v_dend

# --- 7. noise and random initial potentials: the same draws, the same bits ---
nz="--noise 0.2,0.9,20 --init-voltage -70:-50 --seed 11"
run nz-cpu sim net.h5 -o nz-cpu --steps 2000 $rec $nz --backend cpu
run nz-cuda sim net.h5 -o nz-cuda --steps 2000 $rec $nz --backend cuda -v
check "7a. RGJ network with --noise and --init-voltage, double (CPU vs GPU, must be 0)" nz-cpu nz-cuda 0 v_dend,v_axon
run nz-cpu-f sim net.h5 -o nz-cpu-f --steps 2000 $rec $nz --backend cpu --precision single
run nz-cuda-f sim net.h5 -o nz-cuda-f --steps 2000 $rec $nz --backend cuda --precision single
check "7b. same, single precision (CPU vs GPU, must be 0)" nz-cpu-f nz-cuda-f 0 v_dend,v_axon
run nz-cuda-np2 mpirun -np 2 --oversubscribe "$BIN/olive-simulate" net.h5 -o nz-cuda-np2 --steps 2000 $rec $nz --backend cuda
check "7c. same, 2 ranks vs 1 rank on the GPU (must be 0)" nz-cuda nz-cuda-np2 0 v_dend,v_axon
run nz-cuda-half sim net.h5 -o nz-cuda-half --steps 1000 $rec $nz --backend cuda
run nz-cuda-rest sim net.h5 -o nz-cuda-rest --steps 2000 $rec --noise 0.2,0.9,20 --seed 11 --backend cuda \
  --restart nz-cuda-half/state.h5
st=$(statediff nz-cuda nz-cuda-rest)
if [ "$st" = 0 ]; then say "PASS 7d. GPU run restarted at step 1000 vs unbroken: final state (with i_noise) max|d| 0"
else say "FAIL 7d. GPU run restarted at step 1000 vs unbroken: final state max|d| $st"; nfail=$((nfail + 1)); fi

# --- timings (informational) ---
for n in rgj-cpu rgj-cuda rgj-cuda-split d100-rgj-cpu d100-rgj-cuda rgj-cuda-np2 big-cpu big-cuda; do
  [ -f "$logs/$n.log" ] && say "   $n: $(grep -h '^olive-simulate: [0-9]* cells' "$logs/$n.log" | head -1)"
done
grep -h "CUDA device" "$logs"/*.log | sort -u | head -4 | sed 's/^/   /' | tee -a "$results"

tar czf "$dest/logs.tar.gz" -C "$work" logs
# --- 8. integrate-and-fire networks: every delivery path vs the CPU, 1 and 2 ranks
# (scripts/gpu-validate-spiking.sh, its checks only; SPIKING=0 skips them) ---
if [ "${SPIKING:-1}" = 1 ]; then
  if SKIP_BENCH=1 BIN="$BIN" OUT="$dest" bash "$top/scripts/gpu-validate-spiking.sh" >"$logs/spiking.log" 2>&1; then
    say "PASS 8. spiking networks: $(grep -c '^PASS' "$dest/spiking-results.txt") checks (CPU = GPU, every path; $dest/spiking-results.txt)"
  else
    say "FAIL 8. spiking networks: $(grep '^FAIL' "$dest/spiking-results.txt" | head -3 | tr '\n' ' ')"
    nfail=$((nfail + 1))
  fi
fi
if [ $nfail -eq 0 ]; then say "ALL PASSED"; else say "$nfail check(s) FAILED"; fi
exit $((nfail > 0))

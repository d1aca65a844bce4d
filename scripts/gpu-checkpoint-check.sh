#!/usr/bin/env bash
# Checkpoints of the CUDA engines against the CPU: a run on the
# GPU with --checkpoint-every 180 (not a multiple of the 64-step chunks in
# which the GPU hands its spikes to the host) is killed with SIGKILL after
# a checkpoint; its spikes.h5 must hold exactly the CPU's spikes up to that
# checkpoint's step, and a GPU restart from its state.h5 must continue into
# exactly the CPU's unbroken run (spikes and final state). InfOli (gap
# junctions), and spiking networks on one rank (device push: a restart's
# queued events go into its ring, spk_cuda.cu's restart_ring): integrate-and-
# fire cells with delays up to 5 ms and Poisson spike sources, the same with
# --order-free-sums (the atomic pass), and a NESTML model with its receptor
# factors ($PLUGINS/iaf_psc_alpha_neuron.so, scripts/gpu-plugins-prepare.sh),
# also with --order-free-sums (its FREE pass: a ring of -0.0 sums, no flags).
# A GPU checkpoint continued on the CPU and a CPU checkpoint on the GPU too.
# Needs python3 ($PY) with h5py and numpy. Builds nothing: $BIN (default
# build/bin, a CUDA build).
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh && OUT=$OUT bash scripts/gpu-checkpoint-check.sh
# Results: $OUT/checkpoint-results.txt; exit 0 when all passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/build/bin}
dest=${OUT:-$PWD/gpu-checkpoint-out}
mkdir -p "$dest"
results="$dest/checkpoint-results.txt"
: >"$results"
work=$(mktemp -d /tmp/olive-gpu-ckpt.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
G="$BIN/olive-genconn" S="$BIN/olive-simulate"
GPU=${GPU_BACKEND:-cuda}   # GPU_BACKEND=cpu: a dry run of this script on a machine without a GPU
PY=${PY:-python3}
"$PY" -c "import h5py, numpy" || { echo "FAIL: $PY with h5py and numpy is needed" | tee -a "$results"; exit 1; }
failed=0

# check NAME NET DT_MS EVERY [simulate options]: killed on KILLED (default the GPU), continued on RESUMED
check() {
  local name=$1 net=$2 dt=$3 every=$4; shift 4
  rm -rf "$name"-*
  "$S" "$net" -o "$name-k9" --backend "${KILLED:-$GPU}" --steps 2000000 --checkpoint-every "$every" -q "$@" 2>"$name-k9.err" &
  local pid=$! k=""
  for _ in $(seq 1200); do [ -e "$name-k9/state.h5" ] && break; sleep 0.05; done
  kill -KILL $pid; { wait $pid; } 2>/dev/null
  k=$("$PY" -c "import h5py; print(h5py.File('$name-k9/state.h5')['state'].attrs['step'])" 2>/dev/null)
  if [ -z "$k" ]; then echo "FAIL $name: no checkpoint within 60 s ($(cat "$name-k9.err"))" | tee -a "$results"; failed=1; return; fi
  local end=$((k + 3 * every))
  "$S" "$net" -o "$name-ref" --backend cpu --steps "$end" -q "$@" &&
  "$S" "$net" -o "$name-r" --backend "${RESUMED:-$GPU}" --steps "$end" --restart "$name-k9/state.h5" -q "$@" || {
    echo "FAIL $name: a run failed" | tee -a "$results"; failed=1; return; }
  if "$PY" - "$name" "$k" "$dt" >>"$results" 2>&1 <<'PY'
import sys, h5py, numpy as np
name, k, dt = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def spikes(d, p):   # population p's (times, ids), and the file's end step
    with h5py.File(f"{d}/spikes.h5") as f:
        g = f["spikes"][p]
        return g["timestamps"][:], g["node_ids"][:], int(f.attrs["end_step"])
with h5py.File(f"{name}-ref/spikes.h5") as f:
    pops = sorted(f["spikes"])
durable = continued = 0
for p in pops:
    kt, ki, kend = spikes(f"{name}-k9", p)
    rt, ri, _ = spikes(f"{name}-r", p)
    ut, ui, _ = spikes(f"{name}-ref", p)
    assert kend >= k, (kend, k)
    keep, ukeep = kt <= k * dt + 1e-9, ut <= k * dt + 1e-9
    assert np.array_equal(kt[keep], ut[ukeep]) and np.array_equal(ki[keep], ui[ukeep]), f"{p}: spikes.h5 of the killed run differs"
    assert np.array_equal(np.concatenate([kt[keep], rt]), ut) and np.array_equal(np.concatenate([ki[keep], ri]), ui), \
        f"{p}: spikes.h5 + the restart differ from the unbroken run"
    durable += int(keep.sum())
    continued += len(rt)
with h5py.File(f"{name}-r/state.h5") as a, h5py.File(f"{name}-ref/state.h5") as b:
    for v in b["state"]:
        assert np.array_equal(a["state"][v][:], b["state"][v][:]), v
print(f"PASS {name}: killed after the checkpoint of step {k}: {durable} durable spikes (= the CPU's) "
      f"+ {continued} continued = the CPU's unbroken run, final state identical")
PY
  then :; else echo "FAIL $name" >>"$results"; failed=1; fi
}

"$G" -o infoli.h5 --cells 4096 --generator uniform --density 10 --seed 5 --gcal 0.6:1.2 -q
check infoli infoli.h5 0.05 180 --pulse 2:30:6

# spiking networks (one rank): events in flight over up to 50 steps at every checkpoint
P="--param E_L=-70 --param V_th=-55 --param V_reset=-70 --param t_ref=2 --param tau_m=10 --param tau_e=2 --param tau_i=2 --param v0=-70 --param I_e=14"
# proj FROM P WEIGHT RECEPTOR: onto both neuron populations, delays 0.5 to 5 ms
proj() { for t in e i; do echo "--projection from=$1,to=$t,p=$2,weight=$3,delay=0.5:5,receptor=$4"; done; }
# shellcheck disable=SC2046
"$G" -q -o lif.h5 --model lif_cuba --seed 3 --source-poisson inp:200:20 --population e:3200 --population i:800 $P \
    $(proj inp 0.05 4 ge) $(proj e 0.02 1.5 ge) $(proj i 0.02 -6 gi) || { echo "FAIL lif: olive-genconn" | tee -a "$results"; failed=1; }
check lif lif.h5 0.1 180 --poisson rate=8,weight=2,receptor=ge,n=20
check lif_order_free lif.h5 0.1 180 --poisson rate=8,weight=2,receptor=ge,n=20 --order-free-sums
KILLED=$GPU RESUMED=cpu check lif_gpu_to_cpu lif.h5 0.1 180 --poisson rate=8,weight=2,receptor=ge,n=20
KILLED=cpu RESUMED=$GPU check lif_cpu_to_gpu lif.h5 0.1 180 --poisson rate=8,weight=2,receptor=ge,n=20
PLUGINS=${PLUGINS:-$top/build-cuda/plugins}
if [ -e "$PLUGINS/iaf_psc_alpha_neuron.so" ]; then
  export OLIVE_MODEL_PATH="$PLUGINS"
  # shellcheck disable=SC2046
  "$G" -q -o alpha.h5 --model "$PLUGINS/iaf_psc_alpha_neuron.so" --seed 4 --source-poisson inp:200:20 --population e:800 \
      --population i:200 $(proj inp 0.05 300 exc_spikes) $(proj e 0.05 60 exc_spikes) $(proj i 0.05 200 inh_spikes) ||
    { echo "FAIL plugin_alpha: olive-genconn" | tee -a "$results"; failed=1; }
  check plugin_alpha alpha.h5 0.1 180
  # order-free: the model's FREE pass on a ring whose empty slots hold -0.0 (spk_cuda.cu's ring_neg0)
  check plugin_alpha_order_free alpha.h5 0.1 180 --order-free-sums
else
  echo "FAIL plugin_alpha: $PLUGINS/iaf_psc_alpha_neuron.so is missing (scripts/gpu-plugins-prepare.sh)" | tee -a "$results"; failed=1
fi
cat "$results"
exit $failed

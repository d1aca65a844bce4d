#!/usr/bin/env bash
# Checkpoints of the CUDA engines against the CPU: a run on the
# GPU with --checkpoint-every 180 (not a multiple of the 64-step chunks in
# which the GPU hands its spikes to the host) is killed with SIGKILL after
# a checkpoint; its spikes.h5 must hold exactly the CPU's spikes up to that
# checkpoint's step, and a GPU restart from its state.h5 must continue into
# exactly the CPU's unbroken run (spikes and final state). InfOli (gap
# junctions); checkpoints of spiking networks run on the CPU engine only
# (olive-simulate refuses --checkpoint-every with --backend cuda there), and
# tests/test_spiking_restart.sh covers them. Needs python3 ($PY) with
# h5py and numpy. Builds nothing: $BIN (default build/bin, a CUDA build).
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

# check NAME NET DT_MS EVERY [simulate options]
check() {
  local name=$1 net=$2 dt=$3 every=$4; shift 4
  rm -rf "$name"-*
  "$S" "$net" -o "$name-k9" --backend "$GPU" --steps 2000000 --checkpoint-every "$every" -q "$@" 2>"$name-k9.err" &
  local pid=$! k=""
  for _ in $(seq 1200); do [ -e "$name-k9/state.h5" ] && break; sleep 0.05; done
  kill -KILL $pid; { wait $pid; } 2>/dev/null
  k=$("$PY" -c "import h5py; print(h5py.File('$name-k9/state.h5')['state'].attrs['step'])" 2>/dev/null)
  if [ -z "$k" ]; then echo "FAIL $name: no checkpoint within 60 s ($(cat "$name-k9.err"))" | tee -a "$results"; failed=1; return; fi
  local end=$((k + 3 * every))
  "$S" "$net" -o "$name-ref" --backend cpu --steps "$end" -q "$@" &&
  "$S" "$net" -o "$name-r" --backend "$GPU" --steps "$end" --restart "$name-k9/state.h5" -q "$@" || {
    echo "FAIL $name: a run failed" | tee -a "$results"; failed=1; return; }
  if "$PY" - "$name" "$k" "$dt" >>"$results" 2>&1 <<'PY'
import sys, h5py, numpy as np
name, k, dt = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def spikes(d):
    with h5py.File(f"{d}/spikes.h5") as f:
        g = f["spikes"][list(f["spikes"])[0]]
        return g["timestamps"][:], g["node_ids"][:], int(f.attrs["end_step"])
kt, ki, kend = spikes(f"{name}-k9")
rt, ri, _ = spikes(f"{name}-r")
ut, ui, _ = spikes(f"{name}-ref")
assert kend >= k, (kend, k)
keep, ukeep = kt <= k * dt + 1e-9, ut <= k * dt + 1e-9
assert np.array_equal(kt[keep], ut[ukeep]) and np.array_equal(ki[keep], ui[ukeep]), "spikes.h5 of the killed run differs"
assert np.array_equal(np.concatenate([kt[keep], rt]), ut) and np.array_equal(np.concatenate([ki[keep], ri]), ui), \
    "spikes.h5 + the restart differ from the unbroken run"
with h5py.File(f"{name}-r/state.h5") as a, h5py.File(f"{name}-ref/state.h5") as b:
    for v in b["state"]:
        assert np.array_equal(a["state"][v][:], b["state"][v][:]), v
print(f"PASS {name}: killed after the checkpoint of step {k}: {keep.sum()} durable spikes (= the CPU's) "
      f"+ {len(rt)} continued on the GPU = the CPU's unbroken run, final state identical")
PY
  then :; else echo "FAIL $name" >>"$results"; failed=1; fi
}

"$G" -o infoli.h5 --cells 4096 --generator uniform --density 10 --seed 5 --gcal 0.6:1.2 -q
check infoli infoli.h5 0.05 180 --pulse 2:30:6
cat "$results"
exit $failed

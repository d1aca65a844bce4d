#!/usr/bin/env bash
# The wheel (make wheel) on a GPU host, installed with pip and nothing else of olive's: its CUDA engine
# against its CPU engine. Carried: build/wheel/olive-*.whl and .whl/ holding pip's nvidia-nvjitlink
# wheel (the [cuda] extra; re-zipped with LZMA to fit the carry limit, the same files) and an h5py wheel
# for the host's Python (no index there); nothing of
# .gpurt is set up: the host's own MPI and HDF5, if any, play no part. Writes $OUT/wheel_gpu_check.txt.
#   run: bash scripts/gpu-wheel-check.sh   (carry build/wheel and .whl)
# Where the host's Python lacks numpy and all wheels would pass the carry limit: install numpy and h5py
# in a first call (pip install --target DIR), then OLIVE_DEPS_SITE=DIR bash scripts/gpu-wheel-check.sh.
set -uo pipefail
out=${OUT:-.}/wheel_gpu_check.txt
exec > >(tee "$out") 2>&1
top=$(cd "$(dirname "$0")/.." && pwd)
site=/tmp/olive-wheel-site
rm -rf "$site"
python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" build/wheel/olive-*.whl .whl/*.whl \
  || { echo "FAIL: pip install"; exit 1; }
export PYTHONPATH=$site${OLIVE_DEPS_SITE:+:$OLIVE_DEPS_SITE} PATH=$site/bin:/usr/bin:/bin
unset LD_LIBRARY_PATH OLIVE_BIN OLIVE_LIB
echo "host: $(. /etc/os-release; echo "$PRETTY_NAME"), $(python3 --version), $(nvidia-smi -L | head -1)"
echo "olive-simulate: $(command -v olive-simulate) -> $(python3 -c 'import olive; print(olive.find_program("simulate"))')"
fails=0
check() { if "$@"; then echo "ok: $*"; else echo "FAIL: $*"; fails=$((fails + 1)); fi; }
same() { python3 "$top/tests/same_datasets.py" "$@"; }
w=$(mktemp -d) && cd "$w"
olive-genconn -q -o io.h5 --cells 4096 --generator gaussian --density 20 --sigma 6 --seed 3
python3 - <<'PY'
import olive
olive.genconn("cuba.h5", model="lif_cuba", populations=[("exc", 3200), ("inh", 800)], seed=1,
              projections=[{"from": "exc", "to": "all", "p": 0.02, "weight": 1.62, "delay": 0, "receptor": "ge"},
                           {"from": "inh", "to": "all", "p": 0.02, "weight": -9, "delay": 0, "receptor": "gi"}])
PY
for b in cpu cuda; do
  olive-simulate io.h5 -o io-$b --time 300 --pulse 50:150:6 --backend $b -q | tail -1
  olive-simulate cuba.h5 -o cuba-$b --time 200 --backend $b -q | tail -1
done
check same io-cpu io-cuda spikes.h5 state.h5
check same cuba-cpu cuba-cuda spikes.h5
python3 - <<'PY' && echo "ok: olive.Simulation on the GPU in pieces = olive-simulate on the CPU" || { echo "FAIL: olive.Simulation on the GPU"; fails=$((fails + 1)); }
import h5py, numpy as np, olive
sim = olive.Simulation("cuba.h5", "cuba-sess", time=200, backend="cuda")
for _ in range(4):
    sim.run(50)
sim.close()
a, b = h5py.File("cuba-cpu/spikes.h5"), h5py.File("cuba-sess/spikes.h5")
for pop in a["spikes"]:
    for k in ("timestamps", "node_ids"):
        assert np.array_equal(a["spikes"][pop][k][:], b["spikes"][pop][k][:]), (pop, k)
print("spikes:", sum(len(a["spikes"][p]["node_ids"]) for p in a["spikes"]))
jl = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libnvJitLink" in l})
print("nvJitLink loaded from:", jl)
assert jl and all("/nvidia/" in p for p in jl), "not pip's nvidia-nvjitlink"
PY
echo "wheel on the GPU host: $fails failure(s)"
exit $((fails > 0))

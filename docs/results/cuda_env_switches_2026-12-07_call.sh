#!/usr/bin/env bash
# session 41: spk_env_digit (the engine switches read by one helper): bad values stop, good values run; ORDERFREE_ONLY
set -u
top=$PWD
bash .gpurt/setup.sh >/dev/null 2>&1; . /opt/olive-rt/env.sh; export LD_LIBRARY_PATH=$top/build-cuda/rtextra:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name --format=csv,noheader
B=$top/build-cuda/v48/bin; w=$(mktemp -d); cd $w
export OLIVE_GPU_DELIVERY=device   # (the device push path reads every switch below)
$B/olive-genconn -q -o n.h5 --model lif_cuba --population exc:2000 --v0 -60:-50 --projection from=all,to=all,indegree=100,weight=0.2:0.5,delay=0.1:0.3,receptor=ge || echo "FAIL genconn"
sim() { $B/olive-simulate -q n.h5 -o "$1" --time 100 --backend cuda --order-free-sums --force --poisson rate=50,weight=1,receptor=ge,n=4,cells=0:2000 "${@:2}"; }
sim ref > ref.log 2>&1 || echo "FAIL ref run: $(tail -2 ref.log)"
for kv in OLIVE_GPU_GRAPH=2 OLIVE_GPU_SB_REGS=9 OLIVE_GPU_SB_ADD=x OLIVE_GPU_PDL=10 OLIVE_GPU_NEG0=2 OLIVE_GPU_POISSON_AHEAD=5 OLIVE_GPU_SB_ATOMIC=3; do
  if env $kv $B/olive-simulate -q n.h5 -o bad --time 10 --backend cuda --force > bad.log 2>&1; then echo "FAIL $kv accepted"
  else echo "PASS $kv refused: $(grep -m1 "${kv%%=*}" bad.log)"; fi
done
for kv in OLIVE_GPU_GRAPH=1 OLIVE_GPU_SB_REGS=2 OLIVE_GPU_SB_ADD=1 OLIVE_GPU_PDL=0 OLIVE_GPU_NEG0=0 OLIVE_GPU_POISSON_AHEAD=2 OLIVE_GPU_SB_ATOMIC=0 OLIVE_GPU_POISSON_AHEAD=0; do
  if env $kv bash -c "$(declare -f sim); B=$B sim g > g.log 2>&1" && $B/olive-analyze compare -q ref g > cmp.log 2>&1; then echo "PASS $kv: the same spikes and state"
  else echo "FAIL $kv: $(tail -2 g.log cmp.log | tr '\n' ' ')"; fi
done
cd $top
t0=$(date +%s); ORDERFREE_ONLY=1 SKIP_BENCH=1 BIN=$B OUT=$OUT/of timeout ${VT:-150} bash scripts/gpu-validate-spiking.sh > $OUT/of.log 2>&1; echo "orderfree rc=$? $(( $(date +%s) - t0 )) s"; grep -hc "^PASS" $OUT/of/*.txt; grep -h "^FAIL" $OUT/of/*.txt | head

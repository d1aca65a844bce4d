#!/usr/bin/env bash
# A model generated from NESTML against the built-in it restates: olive's
# lif_cuba and examples/nestml/lif_cuba_nestml.nestml (olive-model build) on
# the tutorial network (examples/tutorial_cuba.sh: 4000 cells, p 0.02, delay
# 0; SCALE=k multiplies the cells by k and divides p by k), TIME ms, THREADS
# threads, REPEAT runs each (the best step-loop rate): cell-steps/s in the
# step loop, the ratio (the issue's target: within 10 %) and whether the
# spikes are the same.
#   bash scripts/bench_nestml.sh      (after make check made build/venv-nestml)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
BIN=${BIN:-$top/$BUILD/bin}
TIME=${TIME:-1000} THREADS=${THREADS:-2} REPEAT=${REPEAT:-3} SCALE=${SCALE:-1}
py="$top/$BUILD/venv-nestml/bin/python"
[ -x "$py" ] || { echo "bench_nestml: $BUILD/venv-nestml missing (tests/test_nestml_build.sh makes it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OLIVE_MODEL_CACHE="$tmp/cache"   # (where olive-simulate finds the model)
so=$(PYTHONPATH="$top/python" OLIVE_MODEL_CACHE="$tmp/cache" "$py" -m olive.nestml build \
     "$top/examples/nestml/lif_cuba_nestml.nestml" 2>/dev/null)
exc=$((3200 * SCALE)) inh=$((800 * SCALE))
p=$(awk -v k="$SCALE" 'BEGIN { print 0.02 / k }')
net() {  # NAME MODEL GE GI
  "$BIN/olive-genconn" -q -o "$tmp/$1.h5" --model "$2" --population exc:$exc --population inh:$inh --seed 1 \
      --projection "from=exc,to=all,p=$p,weight=1.62,delay=0,receptor=$3" \
      --projection "from=inh,to=all,p=$p,weight=-9,delay=0,receptor=$4"
}
net builtin lif_cuba ge gi
net nestml "$so" ge_in gi_in
rate() {  # NAME: the best cell-steps/s of REPEAT runs
  local k best=0 r
  for k in $(seq "$REPEAT"); do
    r=$(OMP_NUM_THREADS=$THREADS "$BIN/olive-simulate" "$tmp/$1.h5" -o "$tmp/$1-run" --time "$TIME" --record none \
        --force -v 2>&1 | sed -n 's/.* \([0-9.e+]*\) cell-steps\/s in the step loop.*/\1/p')
    best=$(awk -v a="$best" -v b="$r" 'BEGIN { print (b > a ? b : a) }')
  done
  echo "$best"
}
rb=$(rate builtin) rn=$(rate nestml)
same=$("$py" - "$tmp" <<'PYEOF'
import sys, h5py
def spikes(d):
    with h5py.File(d + "/spikes.h5") as f:
        return sorted((t, int(g.attrs["first_cell"]) + int(n)) for g in f["spikes"].values()
                      for t, n in zip(g["timestamps"][:].tolist(), g["node_ids"][:].tolist()))
a, b = spikes(sys.argv[1] + "/builtin-run"), spikes(sys.argv[1] + "/nestml-run")
print(f"{len(a)} spikes, {'identical' if a == b else 'DIFFERENT'}")
PYEOF
)
printf '%-28s %8s %14s %14s %8s  %s\n' "model (tutorial network)" cells builtin-c-s/s nestml-c-s/s ratio spikes
printf '%-28s %8d %14.4g %14.4g %8.3f  %s\n' "lif_cuba vs lif_cuba_nestml" $((exc + inh)) "$rb" "$rn" \
  "$(awk -v a="$rn" -v b="$rb" 'BEGIN { print a / b }')" "$same"

#!/usr/bin/env bash
# Spiking networks against Brian2 (Debian python3-brian, cpp_standalone),
# which reads the same network file (scripts/brian2_compare.py): same
# connectivity, parameters, initial potentials and integration method. Each
# case asserts identical spike trains over the first 200 ms and, over the
# whole second, per-cell rates and ISI CVs that a KS test cannot tell apart:
# - the tutorial's CUBA network (4000 cells, 3200 excitatory, p = 0.02,
#   w_e 1.62 mV, w_i -9 mV, delay 0), exact integration;
# - a 100-cell network with delays drawn in 0..5 ms and weights in a range;
# - the same with forward Euler;
# - a COBA network (exponential Euler, delay 0.1 ms, driven by I_e).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then
  echo "Brian2 comparison: checked in the normal build only (test_spiking_ranks runs the engine under ASan)"; exit 0
fi
"$PY" -c "import brian2, scipy" 2>/dev/null || fail "Brian2 is missing: run scripts/install-deps.sh --peers (make check does)"
G="$BIN/olive-genconn"
S="$BIN/olive-simulate"
CMP="$TOP/scripts/brian2_compare.py"
compare() {  # name net time [method]
  local name=$1 net=$2 ms=$3 method=${4:-}
  "$S" -q "$net" -o "$name" --time "$ms" ${method:+--method $method}
  "$PY" "$CMP" "$net" "$name" --time "$ms" ${method:+--method $method} --build "b2_$name" \
      --json "$name.json" >"$name.cmp" 2>"$name.err" || { cat "$name.cmp" "$name.err" >&2; fail "$name: olive and Brian2 differ"; }
  "$PY" - "$name.json" <<'PYEOF' || fail "$name: the comparison did not check real spikes"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["identical_prefix"] and r["pass"], r
assert r["olive_spikes"] > 100, r  # a silent network would pass trivially
print(sys.argv[1], r["olive_spikes"], "spikes, first difference", r["first_difference_ms"], "ms")
PYEOF
}
"$G" -q -o cuba.h5 --model lif_cuba --population exc:3200 --population inh:800 --v0 -60:-50 --seed 3 \
    --projection from=exc,to=all,p=0.02,weight=1.62,delay=0,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=-9,delay=0,receptor=gi
compare cuba cuba.h5 1000
"$G" -q -o delays.h5 --model lif_cuba --population exc:80 --population inh:20 --v0 -60:-50 --param t_ref=2 --seed 4 \
    --projection from=exc,to=all,p=0.1,weight=1.62:3,delay=0:5,receptor=ge \
    --projection from=inh,to=all,p=0.1,weight=-9,delay=0:5,receptor=gi
compare delays delays.h5 1000
compare delays_euler delays.h5 1000 euler
"$G" -q -o coba.h5 --model lif_coba --population exc:800 --population inh:200 --v0 -60:-50 --param I_e=150 --seed 5 \
    --projection from=exc,to=all,p=0.02,weight=6,delay=0.1,receptor=ge \
    --projection from=inh,to=all,p=0.02,weight=67,delay=0.1,receptor=gi
compare coba coba.h5 1000
echo "Brian2: identical spikes on CUBA, delays 0..5 ms (exact and euler) and COBA"

#!/usr/bin/env bash
# Spiking networks, olive against Brian2: the same network file run
# by olive-simulate and by Brian2 cpp_standalone (scripts/brian2_compare.py,
# which also checks the spike trains are identical), both with 2 threads.
#   CUBA 4000: the tutorial's network, 1 s;
#   CUBA 100k: 100,000 cells, p = 0.01 (about 1000 synapses per cell), weights
#   scaled by 80/1000 to keep the balance, 1 s.
# Columns: olive whole process (olive-simulate, reading the file included) and
# its step loop; Brian2 whole process (building the objects from the file's
# arrays, code generation, compilation, run) and its run alone (Network.run
# inside the compiled binary); synaptic events per second of each step loop.
# Usage: BUILD=build bash scripts/bench_spiking.sh [cuba4000] [cuba100k]
set -euo pipefail
BIN=${BIN:-$(cd "$(dirname "$0")/.." && pwd)/${BUILD:-build}/bin}
here=$(cd "$(dirname "$0")" && pwd)
PY=${BRIAN_PYTHON:-/usr/bin/python3}
CASES=${*:-cuba4000 cuba100k}
work=$(mktemp -d /tmp/olive-bench-spk.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$PY" -c "import brian2" 2>/dev/null || { echo "Brian2 missing: bash scripts/install-deps.sh --peers" >&2; exit 1; }
printf '# olive vs Brian2 %s (cpp_standalone, 2 OpenMP threads), %s, %s (%s), %s cores\n' \
  "$("$PY" -c 'import brian2; print(brian2.__version__)' 2>/dev/null)" "$(date -u '+%F %H:%M UTC')" "$(uname -n)" \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" "$(nproc)"
printf '%-9s %7s %10s %8s %9s %10s %9s %11s %11s %8s %8s %9s\n' case cells synapses spikes olive-s olive-loop \
  brian2-s brian2-run olive-ev/s brian2-ev/s whole-x identical
for c in $CASES; do
  case $c in
    cuba4000) N_E=3200 N_I=800 P=0.02 WE=1.62 WI=-9 ;;
    cuba100k) N_E=80000 N_I=20000 P=0.01 WE=0.1296 WI=-0.72 ;;
    *) echo "unknown case $c" >&2; exit 1 ;;
  esac
  "$BIN/olive-genconn" -q -o "$work/$c.h5" --model lif_cuba --population exc:$N_E --population inh:$N_I --v0 -60:-50 \
      --projection from=exc,to=all,p=$P,weight=$WE,delay=0,receptor=ge \
      --projection from=inh,to=all,p=$P,weight=$WI,delay=0,receptor=gi --force
  t0=$(date +%s.%N)
  out=$("$BIN/olive-simulate" "$work/$c.h5" -o "$work/o_$c" --time 1000 --threads 2 --record none -v 2>&1)
  t1=$(date +%s.%N)
  loop=$(sed -n 's/.*exchange \([0-9.]*\) s[^,]*, compute \([0-9.]*\) s.*/\1 \2/p' <<<"$out" | awk '{ print $1 + $2 }')
  events=$(sed -n 's/^olive-simulate: \([0-9]*\) synaptic events.*/\1/p' <<<"$out")
  nsyn=$("$PY" -c "import h5py; f = h5py.File('$work/$c.h5'); print(sum(len(g['col']) for g in f['synapses'].values()))")
  "$PY" "$here/brian2_compare.py" "$work/$c.h5" "$work/o_$c" --time 1000 --threads 2 --build "$work/b2_$c" \
      --json "$work/$c.json" >/dev/null 2>"$work/$c.err" || true
  "$PY" - "$work/$c.json" "$c" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$loop" "$events" "$nsyn" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
c, whole, loop, ev, nsyn = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
print("%-9s %7d %10d %8d %9.2f %10.2f %9.2f %11.2f %11.3g %11.3g %8.1f %9s" % (
    c, r["cells"], nsyn, r["olive_spikes"], whole, loop, r["brian2_wall_s"], r["brian2_run_s"], ev / loop,
    ev / r["brian2_run_s"], r["brian2_wall_s"] / whole, "yes" if r["identical_prefix"] and r["first_difference_ms"] is None else
    ("200 ms" if r["identical_prefix"] else "no")))
PYEOF
done

#!/usr/bin/env bash
# The same PyNN script (examples/pynn/brette.py, the Brette et al. CUBA
# benchmark scaled: N cells, p = 0.02, 1 s) on pyNN.olive (CPU engine) and
# pyNN.nest (NEST 3.10, on-grid models), both on THREADS threads: wall time
# of the whole script (Python building the network included) and spikes.
#   bash scripts/bench_pynn.sh            (after make check made the venvs)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SIZES=${SIZES:-"4000 8000 16000"}
THREADS=${THREADS:-2}
olive_py="$top/$BUILD/venv-python/bin/python" nest_py="$top/$BUILD/venv-peers/bin/python"
[ -x "$olive_py" ] && [ -x "$nest_py" ] || { echo "bench_pynn: run make check first (it makes the venvs)" >&2; exit 1; }
"$nest_py" -c "import pyNN.nest" 2>/dev/null || { echo "bench_pynn: PyNN is not in the NEST venv (tests/test_pynn.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-7s %-10s %10s %10s %10s  %s\n' cells synapses olive-s nest-s speed-up spikes
for n in $SIZES; do
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=$THREADS OLIVE_BIN="$top/$BUILD/bin" PYTHONPATH="$top/python" "$olive_py" "$top/examples/pynn/brette.py" cuba --cells "$n" \
      --backend cpu --spikes "$tmp/o.npz" > "$tmp/o.txt"
  t1=$(date +%s.%N)
  "$nest_py" "$top/examples/pynn/brette.py" cuba --cells "$n" --simulator nest --threads "$THREADS" \
      --spikes "$tmp/n.npz" > "$tmp/n.txt" 2>/dev/null
  t2=$(date +%s.%N)
  "$olive_py" - "$tmp" "$n" "$t0" "$t1" "$t2" <<'PYEOF'
import sys, numpy as np
tmp, n, t0, t1, t2 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
a, b = np.load(f"{tmp}/o.npz"), np.load(f"{tmp}/n.npz")
key = lambda d: sorted(zip(np.round(d["times"], 6), d["ids"]))
same = "identical" if key(a) == key(b) else "DIFFERENT"
print(f"{n:<7d} {int(0.02 * n * n):<10d} {t1 - t0:10.2f} {t2 - t1:10.2f} {(t2 - t1) / (t1 - t0):9.1f}x  "
      f"{len(a['ids'])} ({same})")
PYEOF
done

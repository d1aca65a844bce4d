#!/usr/bin/env bash
# The same PyNN script (examples/pynn/brette.py, the Brette et al. CUBA
# benchmark scaled: N cells, p = 0.02, 1 s) on pyNN.olive (CPU engine) and
# pyNN.nest (NEST 3.10, on-grid models), both on THREADS threads: wall time
# of the whole script (Python building the network included) and spikes.
#   bash scripts/bench_pynn.sh            (after make check made the venvs)
#   SIZES= bash scripts/bench_pynn.sh     (only PyNN's callback examples, below)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SIZES=${SIZES-"4000 8000 16000"}
THREADS=${THREADS:-2}
olive_py="$top/$BUILD/venv-python/bin/python" nest_py="$top/$BUILD/venv-peers/bin/python"
[ -x "$olive_py" ] && [ -x "$nest_py" ] || { echo "bench_pynn: run make check first (it makes the venvs)" >&2; exit 1; }
"$nest_py" -c "import pyNN.nest" 2>/dev/null || { echo "bench_pynn: PyNN is not in the NEST venv (tests/test_pynn.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -z "$SIZES" ] || printf '%-7s %-10s %10s %10s %10s  %s\n' cells synapses olive-s nest-s speed-up spikes
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

# PyNN's own examples that change the inputs from a callback every 10 ms
# (run() in 100 pieces): whole-script wall time on pyNN.olive and pyNN.nest,
# median of REPEAT runs each, and the spike counts each prints (the same
# numbers on both). The examples come from PyNN's sdist, which
# tests/test_pynn.sh unpacks under $BUILD.
examples="$top/$BUILD/pynn-0.13.0-tests/examples"
if [ ! -d "$examples" ]; then
  echo "bench_pynn: $examples missing (tests/test_pynn.sh unpacks PyNN's sdist there): callback examples skipped" >&2
  exit 0
fi
REPEAT=${REPEAT:-3}
echo
printf '%-28s %10s %10s %10s  %s\n' "PyNN example" olive-s nest-s olive/nest "spike counts (olive | nest)"
wall() {  # wall PYTHON SIM SCRIPT: median wall seconds of REPEAT runs; counts to $tmp/counts
  local py=$1 sim=$2 script=$3 k t0 t1
  for k in $(seq "$REPEAT"); do
    t0=$(date +%s.%N)
    # (simple_STDP.py through scripts/pynn_example_dump.py: PyNN 0.13's one-cell mask under numpy 2, for both)
    if [ "$(basename "$script")" = simple_STDP.py ]; then
      (cd "$tmp" && OMP_NUM_THREADS=1 OLIVE_BIN="$top/$BUILD/bin" PYTHONPATH="$top/python" \
        "$py" "$top/scripts/pynn_example_dump.py" "$script" "$sim" "$tmp/stdp.$sim.json" > "$tmp/ex.out" 2>/dev/null) \
        || { echo "bench_pynn: $script on $sim failed" >&2; return 1; }
    else
      (cd "$tmp" && OMP_NUM_THREADS=1 OLIVE_BIN="$top/$BUILD/bin" PYTHONPATH="$top/python" \
        "$py" -c "import numpy, runpy, sys; numpy.random.seed(1); sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')" \
        "$script" "$sim" > "$tmp/ex.out" 2>/dev/null) || { echo "bench_pynn: $script on $sim failed" >&2; return 1; }
    fi
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
  done | sort -n | sed -n "$(( (REPEAT + 1) / 2 ))p"
  { grep -o 'Actual spike counts: .*' "$tmp/ex.out" || echo "-"; } | sed 's/Actual spike counts: //; s/np.int64(\([0-9]*\))/\1/g' > "$tmp/counts.$sim"
  if [ -f "$tmp/Results/parameter_changes_$sim.pkl" ]; then   # (it prints none: its cell's spikes, from v's resets)
    "$olive_py" -c "
import sys, numpy as np, neo
v = np.asarray(neo.io.get_io(sys.argv[1]).read()[0].segments[0].analogsignals[0].magnitude)[:, 0]
t = np.where(np.diff(v) < -20)[0] * 0.01
np.save(sys.argv[2], t); print(len(t), 'spikes')" "$tmp/Results/parameter_changes_$sim.pkl" "$tmp/pc.$sim.npy" > "$tmp/counts.$sim"
    rm -f "$tmp/Results/parameter_changes_$sim.pkl"
  fi
}
# (simple_STDP.py reads the 60 plastic weights every 1 ms, 1060 reads: pyNN.olive goes on in the
# simulation it holds, olive.Simulation; parameter_changes.py sets the EIF cell's `a` between four
# runs: set in the held simulation, no restart. Its EIF_cond_exp_isfa_ista is olive's NESTML model,
# built once here by the pinned NESTML venv (tests/nestml_venv.sh makes it) into a model cache, as
# a user's first run builds it; the build is not timed. Issue 56's goal: every example within 2x
# of pyNN.nest)
list="update_spike_source_array varying_poisson simple_STDP"
nestml_py="$top/$BUILD/venv-nestml/bin/python"
export OLIVE_MODEL_CACHE="$tmp/models"
if [ -x "$nestml_py" ] && PYTHONPATH="$top/python" OLIVE_MODEL_CUDA=0 "$nestml_py" -m olive.nestml build \
     "$top/python/olive/pynn/nestml/pynn_eif_cond_exp_isfa_ista.nestml" >"$tmp/nestml.log" 2>&1; then
  list="$list parameter_changes"
else
  echo "bench_pynn: no NESTML venv ($nestml_py; tests/test_pynn.sh makes it): parameter_changes.py skipped" >&2
fi
mkdir -p "$tmp/Results"
for ex in $list; do
  to=$(wall "$olive_py" olive "$examples/$ex.py")
  tn=$(wall "$nest_py" nest "$examples/$ex.py")
  printf '%-28s %10.2f %10.2f %9.2fx  %s | %s  (%s)\n' "$ex.py" "$to" "$tn" "$(awk -v a="$to" -v b="$tn" 'BEGIN { print a / b }')" \
    "$(cat "$tmp/counts.olive")" "$(cat "$tmp/counts.nest")" \
    "$(awk -v a="$to" -v b="$tn" 'BEGIN { print (a <= 2 * b) ? "within 2x of NEST" : "MORE than 2x of NEST" }')"
  if [ "$ex" = parameter_changes ]; then   # (EIF: olive tests for a spike at the step's end, NEST inside it: docs/PYNN.md)
    "$olive_py" -c "
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
print(f'{\"\":28s} spike times: {\"the same number\" if len(a) == len(b) else \"OTHER numbers\"}, '
      f'within {np.abs(a - b).max() if len(a) == len(b) else float(\"nan\"):.3f} ms of NEST\'s (dt 0.01 ms)')" \
      "$tmp/pc.olive.npy" "$tmp/pc.nest.npy"
  fi
done

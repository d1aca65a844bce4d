#!/usr/bin/env bash
# Multi-compartment cells: olive's CPU step (build/bench/olive-
# cablebench, common/models/cable.h on OpenMP threads) against NEURON 9 (the pinned
# PyPI neuron of tests/peer_venv.sh, same cells, same threads) on this
# machine; NEURON once with its default hh rate tables (usetable_hh 1, as
# olive's default: the final soma potentials must agree within 1e-6 mV) and
# once with hh from its formulas (usetable_hh 0). Prints a table; part of `make bench` when the CUDA
# build made olive-cablebench (it runs without a GPU).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
CB="$top/$BUILD/bench/olive-cablebench"
[ -x "$CB" ] || { echo "bench_cable: $CB not built (needs nvcc); skipped"; exit 0; }
PY=${PY:-/usr/bin/python3} TOP=$top TESTS=$top/tests
fail() { echo "bench_cable: $*" >&2; exit 1; }
source "$top/tests/peer_venv.sh"
T=${THREADS:-2} CELLS=${CELLS:-2560} STEPS=${STEPS:-1000}
out=$(OMP_NUM_THREADS=$T "$CB" --cells "$CELLS" --steps "$STEPS")
ocs=$(echo "$out" | awk '$1 == "'"$CELLS"'" { print $2 }')
v0=$(echo "$out" | sed -n 's/.*cell 0 \([-0-9.e]*\),.*/\1/p')
vl=$(echo "$out" | sed -n 's/.*cell [0-9]* [-0-9.e]*, cell [0-9]* \([-0-9.e]*\)$/\1/p')
n0=$("$venv/bin/python" "$top/scripts/bench_cable_neuron.py" --cells "$CELLS" --steps "$STEPS" --threads "$T" --usetable 0 \
      2>&1 | grep -v "DISPLAY\|graphics")
n1=$("$venv/bin/python" "$top/scripts/bench_cable_neuron.py" --cells "$CELLS" --steps "$STEPS" --threads "$T" --usetable 1 \
      --expect-v0 "$v0" --expect-vlast "$vl" 2>&1 | grep -v "DISPLAY\|graphics") || fail "NEURON differs from olive: $n1"
echo "# multi-compartment cells: $CELLS ball-and-stick cells of 25 nodes, $STEPS steps of 0.025 ms, $T threads, $(date -u +%F)"
echo "$n1" | grep '^#'
printf '%-34s %14s %9s\n' program cell-steps/s olive-x
c0=$(echo "$n0" | awk '$1 == "neuron" { print $5 }') c1=$(echo "$n1" | awk '$1 == "neuron" { print $5 }')
printf '%-34s %14s %9s\n' "olive (cable.h, CPU)" "$ocs" 1
printf '%-34s %14s %9.2f\n' "NEURON 9.0.2, usetable_hh 0" "$c0" "$(echo "$ocs $c0" | awk '{ print $1 / $2 }')"
printf '%-34s %14s %9.2f\n' "NEURON 9.0.2, usetable_hh 1 (default)" "$c1" "$(echo "$ocs $c1" | awk '{ print $1 / $2 }')"

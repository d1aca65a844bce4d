#!/usr/bin/env bash
# CPU benchmark of olive-simulate: cell-steps/s for 0/10/100/1000 junctions
# per cell at 64K and 1M cells, double and single precision, 1 and 2 threads,
# plus the bytes the step loop must move at least (docs/BENCHMARKS.md performance
# model) per second; then olive and Brian2 side by side (below).
# Usage: BUILD=build bash scripts/bench.sh [CELLS...]
#   BENCH_JUNCTIONS  junctions per cell (default "0 10 100 1000")
#   BENCH_WORK       cell-steps x (junctions + 20) per run (default 2e9): the
#                    steps of each run are set from it (10..400)
#   BENCH_MAX_JUNCTIONS  larger networks are skipped (default: what fits in
#                    the available memory at 10 bytes per junction; olive-simulate
#                    peaked at 8.4 GB for 1M x 1000, which takes ~2.5 min here)
set -euo pipefail
BIN=${BIN:-$(cd "$(dirname "$0")/.." && pwd)/${BUILD:-build}/bin}
CELLS_LIST=${*:-65536 1048576}
mem_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
max_j=${BENCH_MAX_JUNCTIONS:-$(awk -v m="${mem_kb:-0}" 'BEGIN { printf "%.0f", m * 1024 / 10 }')}
work=$(mktemp -d /tmp/olive-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rate_of() { sed -n 's/.* \([0-9.e+]*\) cell-steps\/s.*/\1/p' <<<"$1"; }
printf '# olive CPU benchmark, %s, %s (%s), %s cores\n' "$(date -u '+%F %H:%M UTC')" "$(uname -n)" \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" "$(nproc)"
printf '%-8s %-6s %-7s %-8s %-6s %14s %12s\n' cells junc prec threads steps cell-steps/s floor-GB/s
for N in $CELLS_LIST; do
  for K in ${BENCH_JUNCTIONS:-0 10 100 1000}; do
    if awk -v n="$N" -v k="$K" -v m="$max_j" 'BEGIN { exit !(n * k > m) }'; then
      printf '%-8d %-6d (skipped: %d junctions, over BENCH_MAX_JUNCTIONS = %s: memory)\n' "$N" "$K" $((N * K)) "$max_j"; continue
    fi
    S=$(awk -v n="$N" -v k="$K" -v w="${BENCH_WORK:-2e9}" 'BEGIN { s = int(w / (n * (k + 20))); print (s < 10 ? 10 : (s > 400 ? 400 : s)) }')
    "$BIN/olive-genconn" -o "$work/net.h5" --cells "$N" --generator uniform --density "$K" \
        --fixed-degree --conductance 0.04 --seed 1 --force >/dev/null
    for prec in double single; do
      for T in 1 2; do
        line=$("$BIN/olive-simulate" "$work/net.h5" -o "$work/out" --steps "$S" --precision "$prec" \
               --record none --threads "$T" --force)
        # floor: 2 x 19 state values + per junction a 4-byte index and a neighbour voltage (bits 0: no conductance bytes)
        awk -v n="$N" -v r="$(rate_of "$line")" -v k="$K" -v p="$prec" -v t="$T" -v s="$S" \
          'BEGIN { el = p == "single" ? 4 : 8; printf "%-8d %-6d %-7s %-8d %-6d %14.3g %12.2f\n", n, k, p, t, s, r, r * (38 * el + k * (4 + el)) / 1e9 }'
      done
    done
  done
done

# Peer comparison: the same networks (N cells, exactly K random RGJ
# partners per cell, w = 0.04: olive-genconn's file, whose junctions Brian2
# reads too), double precision, same threads and steps, in olive and in
# Brian2 (cpp_standalone + OpenMP, scripts/brian2_infoli.py), side by side.
# The rates are the simulation loop only (olive: "in the step loop";
# Brian2: Network::run, compilation and set-up excluded); the whole-process
# columns are olive-simulate's wall time (start, reading the file, set-up,
# loop, output) against Brian2's net.run() wall time (code generation,
# compilation with -march=native, the binary's run and its results read
# back; Python's start and reading the partners from the file not counted,
# in Brian2's favour).
# BRIAN=0 skips it; needs Debian's python3-brian (/usr/bin/python3).
# BRIAN_CELLS: sizes (default "4096 65536"); steps = BRIAN_CELLSTEPS / cells
# (default 16384000: 4000 steps at 4096 cells) unless BRIAN_STEPS is set.
BRIAN=${BRIAN:-1}
PY=${BRIAN_PYTHON:-/usr/bin/python3}
if [ "$BRIAN" != 0 ] && "$PY" -c "import brian2" 2>/dev/null; then
  here=$(cd "$(dirname "$0")" && pwd)
  bver=$("$PY" -c "import brian2; print(brian2.__version__)" 2>/dev/null)
  printf '\n# olive vs Brian2 %s (cpp_standalone, OpenMP, method=euler), RGJ, double precision, the same network file (olive-genconn): rates of the simulation loop, then each whole process in seconds\n' "$bver"
  printf '%-7s %-6s %-8s %-6s %14s %14s %7s %10s %10s %7s %5s\n' cells junc threads steps olive-c-s/s brian2-c-s/s ratio \
    olive-s brian2-s ratio 5x
  rows=0 met=0
  for N in ${BRIAN_CELLS:-4096 65536}; do
    S=${BRIAN_STEPS:-$(( ${BRIAN_CELLSTEPS:-16384000} / N ))}
    for K in 0 100; do
      "$BIN/olive-genconn" -o "$work/b$K.h5" --cells "$N" --generator uniform --density "$K" \
          --fixed-degree --conductance 0.04 --seed 1 --force >/dev/null
      declare -A orate=() owall=()
      for T in 1 2; do
        t0=$(date +%s.%N)
        line=$("$BIN/olive-simulate" "$work/b$K.h5" -o "$work/out" --steps "$S" --gj rgj --precision double \
               --record none --threads "$T" --force)
        owall[$T]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
        orate[$T]=$(rate_of "$line")
      done
      if ! "$PY" "$here/brian2_infoli.py" --cells "$N" --junctions "$K" --threads 1,2 --steps "$S" --network "$work/b$K.h5" \
           >"$work/brian.out" 2>"$work/brian.err"; then
        echo "brian2_infoli.py failed:" >&2; tail -20 "$work/brian.err" >&2; exit 1
      fi
      for T in 1 2; do
        brate=$(sed -n "s/.*, $T threads, .* \([0-9.e+]*\) cell-steps\/s.*/\1/p" "$work/brian.out")
        bwall=$(sed -n "s/.*, $T threads, .*(build+run \([0-9.]*\) s.*/\1/p" "$work/brian.out")
        row=$(awk -v n="$N" -v k="$K" -v t="$T" -v s="$S" -v o="${orate[$T]}" -v b="$brate" -v ow="${owall[$T]}" -v bw="$bwall" \
          'BEGIN { ok = (o / b >= 5 && bw / ow >= 5) ? "yes" : "no";
                   printf "%-7d %-6d %-8d %-6d %14.3g %14.3g %7.2f %10.2f %10.2f %7.2f %5s\n", n, k, t, s, o, b, o / b, ow, bw, bw / ow, ok }')
        echo "$row"
        rows=$((rows + 1)); [ "${row##* }" = yes ] && met=$((met + 1))
      done
      unset orate owall
    done
  done
  printf '# ratio = olive / Brian2, loop; then whole process in seconds, Brian2 / olive\n'
  printf '# 5x: issue 58 goal, olive >= 5x Brian2 on both the loop and the whole process: met on %d of %d rows\n' "$met" "$rows"
fi

# Spiking networks against Brian2: scripts/bench_spiking.sh.
# BENCH_SPIKING=0 skips it.
if [ "${BENCH_SPIKING:-1}" != 0 ] && "$PY" -c "import brian2" 2>/dev/null; then
  echo
  BIN="$BIN" bash "$(dirname "$0")/bench_spiking.sh"
fi

# A NESTML-generated model against the built-in it restates:
# scripts/bench_nestml.sh (needs the venv test_nestml_build makes).
# BENCH_NESTML=0 skips it.
if [ "${BENCH_NESTML:-1}" != 0 ] && [ -x "${BUILD:-build}/venv-nestml/bin/python" ]; then
  echo
  BUILD="${BUILD:-build}" BIN="$BIN" bash "$(dirname "$0")/bench_nestml.sh" || echo "bench_nestml: failed"
fi

# Multi-compartment cells against NEURON: scripts/bench_cable.sh
# (needs the CUDA build's olive-cablebench, which runs without a GPU).
# BENCH_CABLE=0 skips it.
if [ "${BENCH_CABLE:-1}" != 0 ]; then
  echo
  BUILD="${BUILD:-build}" bash "$(dirname "$0")/bench_cable.sh"
fi

# The same PyNN script on pyNN.olive and pyNN.nest: scripts/bench_pynn.sh
# (needs the venvs make check makes). BENCH_PYNN=0 skips it.
if [ "${BENCH_PYNN:-1}" != 0 ] && [ -x "${BUILD:-build}/venv-peers/bin/python" ] && [ -x "${BUILD:-build}/venv-python/bin/python" ]; then
  echo
  BUILD="${BUILD:-build}" bash "$(dirname "$0")/bench_pynn.sh" 2>/dev/null | grep -E "^(cells|[0-9]|PyNN example|[a-z_]+\.py )" || echo "bench_pynn: failed"
fi

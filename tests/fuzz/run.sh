#!/usr/bin/env bash
# Run each libFuzzer harness ($BUILD/fuzz/fuzz_NAME, built by `make fuzz`)
# for FUZZ_SECONDS: first on the regression inputs of its format
# (tests/fuzz/regressions/NAME-*), then fuzzing from the seed corpus
# tests/fuzz/corpus/NAME (new inputs kept in $BUILD/fuzz/corpus-NAME).
# Prints executions, executions per second and coverage per harness; exit
# status 1 when any harness crashed (the input is in $BUILD/fuzz/crash-NAME-*:
# fix the bug, then copy it to tests/fuzz/regressions/NAME-WHAT.EXT so that
# tests/test_fuzz_regressions.sh replays it in `make check`).
# Usage: tests/fuzz/run.sh [NAME...]   (default: edges matrix sonata netfile map state stimulus spikes synfile swc spksonata plugin)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
secs=${FUZZ_SECONDS:-30}
# FUZZ_SEED: libFuzzer's -seed (default: from the clock); CI fixes it.
seed=${FUZZ_SEED:-}
out="$top/$BUILD/fuzz"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(edges matrix sonata netfile map state stimulus spikes synfile swc spksonata plugin)
# The reader under test allocates what a file declares: a declared 2^31 cells
# must end in a clean "out of memory", not in libFuzzer's malloc limit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=256}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0}
# The first frame of a crash report that is not a sanitizer interceptor,
# libFuzzer's own (its timeout handler) or libc: "hdf5" when it lies in the HDF5 library (damaged files can crash
# HDF5 1.10 itself, which olive cannot fix), else "olive".
culprit() {  # LOG
  local f
  # libc's string functions count as their caller (HDF5 memcpy's into a
  # damaged buffer), whether symbolised as libc.so or by glibc source path;
  # so does the allocator (an out-of-memory report's top frame is ASan's
  # malloc, shown in the fuzzing binary: the allocation is its caller's).
  f=$(grep -E '^ +#[0-9]+ ' "$1" | grep -vE 'interceptor|sanitizer|asan_|ubsan|libc\.so|libc_start|compiler-rt|sysdeps/|__mem(cpy|move|set)| in (strdup|strndup|strlen|strnlen|strcmp|strncmp|memcmp|malloc|calloc|realloc|free|posix_memalign|aligned_alloc) |fuzzer::|libFuzzer|FuzzerLoop|FuzzerUtil' | head -n 1)
  case "$f" in *libhdf5*) echo hdf5 ;; *) echo olive ;; esac
}
crashed=0
for n in "${names[@]}"; do
  bin="$out/fuzz_$n"
  [ -x "$bin" ] || { echo "$bin is missing (make fuzz builds it)"; crashed=1; continue; }
  mkdir -p "$out/corpus-$n"
  extra=()
  [ -f "$top/tests/fuzz/$n.dict" ] && extra+=(-dict="$top/tests/fuzz/$n.dict")
  # The HDF5 readers die mid-read by design (olive_die -> longjmp), leaving
  # their allocations behind; leak checking would flag those.
  # (-detect_leaks covers the fuzzing loop; replayed inputs need LSan off too)
  asan=$ASAN_OPTIONS
  case $n in netfile|map|state|stimulus|spikes|synfile|swc|spksonata|plugin) extra+=(-detect_leaks=0); asan+=:detect_leaks=0 ;; esac
  regs=()
  for r in "$top"/tests/fuzz/regressions/"$n"-*; do
    [ -e "$r" ] && [[ "$r" != *.args ]] && regs+=("$r")
  done
  if [ ${#regs[@]} -gt 0 ]; then
    if ! ASAN_OPTIONS=$asan "$bin" "${extra[@]}" "${regs[@]}" >"$out/$n-regressions.log" 2>&1; then
      echo "FAIL $n: a regression input crashes again (log: $out/$n-regressions.log)"
      crashed=1
      continue
    fi
  fi
  # The HDF5 harnesses run in fork mode and go on after a crash, which is
  # then replayed alone and blamed on olive or on the HDF5 library.
  base=("${extra[@]}")
  case $n in sonata|netfile|map|state|stimulus|spikes|synfile|spksonata) extra+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1) ;; esac
  rm -f "$out"/crash-"$n"-*
  [ -n "$seed" ] && extra+=(-seed="$seed")
  "$bin" "${extra[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$out/crash-$n-" "$out/corpus-$n" "$top/tests/fuzz/corpus/$n" \
    >"$out/$n.log" 2>&1
  rc=$?
  nh5=0 nours=0 nflaky=0
  for c in "$out"/crash-"$n"-*; do
    [ -e "$c" ] || continue
    case $c in *.log) continue ;; esac
    # -timeout: a replayed hang stops and prints where it was (a damaged
    # variable-length string can send HDF5 1.10 into an endless loop).
    if "$bin" "${base[@]}" -timeout=10 "$c" >"$c.log" 2>&1; then nflaky=$((nflaky + 1))
    elif [ "$(culprit "$c.log")" = hdf5 ]; then nh5=$((nh5 + 1))
    else nours=$((nours + 1)); echo "  olive crash: $c"; fi
  done
  [ $nh5 -eq 0 ] || echo "  $n: $nh5 input(s) crash inside the HDF5 library itself (not olive's code; see $out/crash-$n-*.log)"
  [ $nflaky -eq 0 ] || echo "  $n: $nflaky crash(es) in fork mode that do not happen again when replayed alone"
  [ $nours -eq 0 ] && [ $rc -ne 0 ] && [ $((nh5 + nflaky)) -gt 0 ] && rc=0
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$n.log" | grep -o '[0-9]*$')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$out/$n.log" | grep -o '[0-9]*$')
  if [ -z "$execs" ]; then   # fork mode: the last status line "#N: cov: C ... exec/s: R ..."
    last=$(grep -E '^#[0-9]+: cov' "$out/$n.log" | tail -n 1)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
    rate=$(grep -oE 'exec/s:? [0-9]+' <<<"$last" | grep -oE '[0-9]+$')
  fi
  cov=$(grep -o 'cov: [0-9]*' "$out/$n.log" | tail -n 1)
  if [ $rc -ne 0 ]; then
    crashed=1
    echo "CRASH $n after ${execs:-?} executions: $(ls "$out"/crash-"$n"-* 2>/dev/null | head -n 3 | tr '\n' ' ')"
    grep -m 3 -E 'ERROR|SUMMARY|runtime error' "$out/$n.log" | sed 's/^/    /'
  else
    printf 'ok %-8s %9s executions in %ss, %6s exec/s, %s, corpus %s files\n' "$n" "${execs:-?}" "$secs" \
      "${rate:-?}" "${cov:-cov: ?}" "$(ls "$out/corpus-$n" | wc -l)"
  fi
done
exit $crashed

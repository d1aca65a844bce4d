#!/usr/bin/env bash
# The CPU kernels' instruction sets (tools/simulate/infoli/kernel_cpu.c: the
# widest of AVX-512, AVX2 and the build's default that the CPU runs, chosen
# at run time; OLIVE_SIMD forces one): every set this CPU runs gives the
# same bits. An InfOli network with gap junctions (8-bit conductances), RGJ
# and SGJ, double and single precision, 1 and 2 threads, pulses and random
# initial potentials: spikes, float64 reports of v_dend, v_axon, ca and the
# final state identical (olive-analyze compare, tolerance 0); -v names the
# set; an unknown or missing set is refused by name.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
S="$BIN/olive-simulate"
"$PY" "$TESTS/make_network.py" net.h5 --cells 300 --seed 5 --degree 12 --gcal 0.6:0.9 --bits 8
sets=(base)
grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && sets+=(avx2)
grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && sets+=(avx512)
echo "instruction sets this CPU runs: ${sets[*]}"
[ ${#sets[@]} -ge 2 ] || echo "(only one set here: nothing to compare it with; the refusals are still checked)"
runs=0
for prec in double single; do
  for gj in rgj sgj; do
    for t in 1 2; do
      for set in "${sets[@]}"; do
        out=run_${prec}_${gj}_${t}_$set
        OLIVE_SIMD=$set "$S" net.h5 -o "$out" --steps 1500 --gj "$gj" --precision "$prec" --threads "$t" -v \
            --init-voltage -62:-58 --pulse 1:40:6:0:150 --pulse 20:60:-2:100:300 \
            --record v_dend,v_axon,ca --record-every 5 --record-precision double >/dev/null 2>"$out.log" ||
          { tail -5 "$out.log"; fail "OLIVE_SIMD=$set $prec $gj $t threads: olive-simulate failed"; }
        case $set in avx512) want="AVX-512" ;; avx2) want="AVX2" ;; *) want="default instruction set" ;; esac
        grep -q "CPU kernels: .*$want" "$out.log" || { cat "$out.log"; fail "OLIVE_SIMD=$set: -v does not name $want"; }
        ref=run_${prec}_${gj}_${t}_${sets[0]}
        if [ "$set" != "${sets[0]}" ]; then
          "$BIN/olive-analyze" compare -q "$ref" "$out" >cmp.log 2>&1 ||
            { cat cmp.log; fail "$prec $gj $t threads: OLIVE_SIMD=$set differs from ${sets[0]}"; }
        fi
        runs=$((runs + 1))
      done
    done
  done
done
"$PY" -c "
import h5py, sys
n = len(h5py.File('run_double_rgj_1_base/spikes.h5')['spikes/io/timestamps'])
sys.exit(0 if n > 0 else 'no spikes: a weak comparison')
"
# a set that does not exist, or one this CPU lacks, is refused by name
if OLIVE_SIMD=sse9 "$S" net.h5 -o bad --steps 10 >/dev/null 2>err.txt; then fail "OLIVE_SIMD=sse9 was accepted"; fi
grep -q "OLIVE_SIMD='sse9': expected avx512, avx2 or base" err.txt || { cat err.txt; fail "OLIVE_SIMD=sse9: no clear refusal"; }
[ ! -e bad ] || fail "a refused run left its OUTDIR"
if ! printf '%s\n' "${sets[@]}" | grep -qx avx512; then
  if OLIVE_SIMD=avx512 "$S" net.h5 -o bad --steps 10 >/dev/null 2>err.txt; then fail "OLIVE_SIMD=avx512 accepted on a CPU without it"; fi
  grep -q "lacks that instruction set" err.txt || { cat err.txt; fail "OLIVE_SIMD=avx512: no clear refusal"; }
fi
echo "simd engine ok: $runs runs, sets ${sets[*]} identical"

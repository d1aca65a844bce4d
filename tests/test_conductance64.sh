#!/usr/bin/env bash
# --conductance-bits 64: conductances stored as float64 reach the
# simulator exactly.
# - values exact in float32 (dyadic) give the same bits stored at 32 and 64;
# - values that are not (0.1, ...) give another run at 64 than at 32, and the
#   64-bit run equals the same network with each value as a constant (bits 0)
#   where one value serves every junction;
# - a generated 64-bit network: 1, 2 and 3 ranks (map from olive-disperse
#   too) and single precision run, identical across ranks.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" S="$BIN/olive-simulate" A="$BIN/olive-analyze"
RUN=(--steps 1500 --pulse 0:5:6:0:20 --record v_dend --record-precision double)
"$PY" - <<'PY'
import random
random.seed(4)
n = 40
pairs = sorted({(a, b) for a in range(n) for b in range(n) if a != b and random.random() < 0.15})
with open("dyadic.edges", "w") as f:
    for a, b in pairs: f.write(f"{a} {b} {random.randint(1, 64) / 1024!r}\n")
with open("tenth.edges", "w") as f:
    for a, b in pairs: f.write(f"{a} {b} 0.1\n")
PY
"$G" -q -o d32.h5 --import dyadic.edges --import-format edges --cells 40 --conductance-bits 32
"$G" -q -o d64.h5 --import dyadic.edges --import-format edges --cells 40 --conductance-bits 64
"$S" -q d32.h5 -o r32 "${RUN[@]}"
"$S" -q d64.h5 -o r64 "${RUN[@]}"
"$A" compare -q r32 r64 || fail "dyadic conductances: bits 64 and bits 32 runs differ"

"$G" -q -o t32.h5 --import tenth.edges --import-format edges --cells 40 --conductance-bits 32
"$G" -q -o t64.h5 --import tenth.edges --import-format edges --cells 40 --conductance-bits 64
"$G" -q -o t0.h5 --import tenth.edges --import-format edges --cells 40 --conductance-bits 0
"$S" -q t32.h5 -o s32 "${RUN[@]}"
"$S" -q t64.h5 -o s64 "${RUN[@]}"
"$S" -q t0.h5 -o s0 "${RUN[@]}"
"$A" compare -q s0 s64 || fail "w = 0.1 stored at 64 bits differs from the constant 0.1"
if "$A" compare -q s32/v_dend.h5 s64/v_dend.h5; then fail "float32(0.1) and 0.1 gave the same run: 64 bits not used"; fi

"$G" -q -o g64.h5 --cells 301 --generator uniform --density 12 --seed 3 --conductance 0.01:0.06 --conductance-bits 64
"$S" -q g64.h5 -o p1 "${RUN[@]}"
for P in 2 3; do
  mpirun -np $P --oversubscribe "$S" -q g64.h5 -o p$P "${RUN[@]}"
  "$A" compare -q p1 p$P || fail "64-bit network: $P ranks differ from 1"
done
"$BIN/olive-disperse" -q g64.h5 --ranks 3 -o map3.h5
mpirun -np 3 --oversubscribe "$S" -q g64.h5 -o m3 "${RUN[@]}" --map map3.h5
"$A" compare -q p1 m3 || fail "64-bit network: 3 ranks with a map differ"
"$S" -q g64.h5 -o f1 "${RUN[@]}" --precision single
mpirun -np 2 --oversubscribe "$S" -q g64.h5 -o f2 "${RUN[@]}" --precision single
"$A" compare -q f1 f2 || fail "64-bit network, single precision: 2 ranks differ from 1"
echo "conductance64: ok"

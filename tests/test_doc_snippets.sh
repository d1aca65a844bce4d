#!/usr/bin/env bash
# Every python snippet of docs/FORMAT.md and docs/ANALYZE.md runs as written
# (Debian's python3-h5py and numpy), on the files they name: net.h5 (made by
# olive-genconn, read and rewritten by the snippets), map8.h5, run/ (an
# olive-simulate output with v_axon and v_dend reports). A snippet that
# writes a file must leave one olive's programs then accept.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$BIN/olive-genconn" D="$BIN/olive-disperse" S="$BIN/olive-simulate" A="$BIN/olive-analyze"
"$G" -o net.h5 --cells 64 --generator uniform --density 6 --seed 3 --conductance 0.02:0.06 --conductance-bits 8 \
     --gcal 0.6:0.8 >/dev/null
cp net.h5 net-orig.h5
"$D" net.h5 --ranks 8 -o map8.h5 >/dev/null
"$S" net.h5 -o run --steps 1000 --record v_axon,v_dend --pulse 5:30:6 >/dev/null
n=0
for doc in FORMAT ANALYZE; do
  awk -v out="snip-$doc-" '/^```python/{f=1; k++; next} /^```/{f=0} f{print > (out k ".py")}' "$TOP/docs/$doc.md"
  for py in snip-$doc-*.py; do
    n=$((n + 1))
    # a snippet that writes net.h5 replaces the generated one: run the rest on the original
    cp net-orig.h5 net.h5
    "$PY" "$py" >"$py.out" 2>&1 || { cat "$py" "$py.out"; fail "docs/$doc.md: snippet $py does not run"; }
    echo "ok docs/$doc.md $py"
    if grep -q 'File("net.h5", "w")' "$py"; then
      "$S" net.h5 -o "from-$py" --steps 10 >/dev/null || fail "$py: olive-simulate refuses the network it writes"
    fi
    if grep -q 'File("stim.h5", "w")' "$py"; then
      "$S" net-orig.h5 --stimulus stim.h5 -o from-stim --steps 10 --force >/dev/null 2>err.txt \
        || grep -q "outside the network" err.txt || fail "$py: the stimulus file it writes is refused: $(cat err.txt)"
    fi
  done
done
[ "$n" -ge 8 ] || fail "only $n snippets found"
"$A" summary my-spikes.h5 >/dev/null || fail "olive-analyze refuses the spike file docs/ANALYZE.md writes"
echo "$n doc snippets ran"

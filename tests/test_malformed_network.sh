#!/usr/bin/env bash
# olive-simulate refuses every malformed network file (tests/make_malformed.py:
# ~60 cases, one fault each on a valid 6-cell base, plus a text file, an empty
# file and a missing file): non-zero exit, stderr names the file and the fault
# (a per-case keyword regex), no OUTDIR and no OUTDIR.tmp-* left behind. Faults
# in the rows of rank 1 are caught under mpirun -np 2 as well. Bad command-line
# arguments are refused the same way (message naming the option). Positive
# control: the valid base at bits 0/4/8/16/32 runs. A run that turns non-finite
# stops with the step and the cell named (DESIGN.md), without output.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" | tee -a "$PWD/failures.txt" >&2; exit 1; }
: > failures.txt
S="$BIN/olive-simulate"
"$PY" "$TESTS/make_malformed.py" nets > cases.txt
n=$(wc -l < cases.txt)
[ "$n" -ge 55 ] || fail "only $n malformed cases"

no_output() {  # OUTDIR
  [ ! -e "$1" ] || fail "$1 was left behind"
  ! compgen -G "$1.tmp-*" >/dev/null || fail "$(compgen -G "$1.tmp-*") was left behind"
}
# refused CASE REGEX FILE-IN-MESSAGE CMD...: CMD fails, stderr matches REGEX and names the file
refused() {
  local name=$1 re=$2 file=$3 rc=0; shift 3
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -ne 0 ] || { cat out.txt err.txt; fail "$name: accepted (exit 0): $*"; }
  [ "$rc" -lt 128 ] || { cat err.txt; fail "$name: crashed with exit status $rc: $*"; }
  [ -s err.txt ] || fail "$name: nothing on stderr"
  [ -z "$file" ] || grep -qF -- "$file" err.txt || { cat err.txt; fail "$name: stderr does not name $file"; }
  grep -Eiq -- "$re" err.txt || { cat err.txt; fail "$name: stderr does not name the fault (/$re/)"; }
  echo "ok $name: $(head -n 1 err.txt)"
}

# every case runs; failures are counted and reported together at the end
bad=0
while IFS=$'\t' read -r name re; do
  (refused "$name" "$re" "nets/$name.h5" "$S" "nets/$name.h5" -o "out-$name" --steps 5 && no_output "out-$name") \
    || bad=$((bad + 1))
done < cases.txt

# faults in the second half of the rows, read by rank 1 only
for name in col_out_of_range self_junction_last_row conductance_negative gcal_negative; do
  re=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' cases.txt)
  (refused "np2/$name" "$re" "nets/$name.h5" timeout 60 mpirun -np 2 --oversubscribe "$S" "nets/$name.h5" \
    -o "mpi-$name" --steps 5 && no_output "mpi-$name") || bad=$((bad + 1))
done

# positive control: the same base without the fault runs, at every bits value
for b in "" 0 4 8 16 fixedstr; do
  "$S" "nets/valid$b.h5" -o "valid$b" --steps 5 >/dev/null 2>err.txt || { cat err.txt; fail "valid$b.h5 refused"; }
  [ -f "valid$b/spikes.h5" ] || fail "valid$b: no output"
done

# bad arguments, on a valid network
A=(nets/valid.h5 -o out --steps 5)
args_refused() {  # REGEX ARGS...
  local re=$1; shift
  (refused "args: $*" "$re" "" "$S" "$@" && no_output out) || bad=$((bad + 1))
}
args_refused 'steps' nets/valid.h5 -o out --steps -1
args_refused 'steps' nets/valid.h5 -o out --steps abc
args_refused 'steps' nets/valid.h5 -o out --steps 0
args_refused 'steps|time' nets/valid.h5 -o out
args_refused 'steps|time' nets/valid.h5 -o out --steps 5 --time 1
args_refused 'time' nets/valid.h5 -o out --time -3
args_refused 'gj.*foo|foo.*gj' "${A[@]}" --gj foo
args_refused 'pulse' "${A[@]}" --pulse 1:2
args_refused 'pulse' "${A[@]}" --pulse a:b:c
args_refused 'pulse' "${A[@]}" --pulse 1:2:3:4
args_refused 'pulse' "${A[@]}" --pulse 5:1:3
args_refused 'pulse' "${A[@]}" --pulse 1:2:3:4:4
args_refused 'nosuchvar' "${A[@]}" --record nosuchvar
args_refused 'nosuchvar' "${A[@]}" --record v_axon,nosuchvar
args_refused 'record-every' "${A[@]}" --record-every 0
args_refused 'record-every' "${A[@]}" --record-every x
args_refused 'record-cells' "${A[@]}" --record-cells 5:2
args_refused 'record-cells' "${A[@]}" --record-cells 0:7
args_refused 'record-cells' "${A[@]}" --record-cells 3
args_refused 'precision.*quad|quad.*precision' "${A[@]}" --precision quad
args_refused 'record-precision|half' "${A[@]}" --record-precision half
args_refused 'spike-threshold' "${A[@]}" --spike-threshold x
args_refused 'threads' "${A[@]}" --threads 0
args_refused 'backend' "${A[@]}" --backend foo
args_refused 'output|-o' nets/valid.h5 --steps 5
args_refused 'network' -o out --steps 5
args_refused 'bogus' "${A[@]}" --bogus
args_refused 'nosuch\.h5' "${A[@]}" --stimulus nosuch.h5
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every 0
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every -5
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every x
args_refused 'checkpoint-every' "${A[@]}" --checkpoint-every
args_refused 'restart.*nosuch\.h5.*no such file' "${A[@]}" --restart nosuch.h5
args_refused 'restart.*nets.*not a regular file' "${A[@]}" --restart nets
args_refused 'valid\.h5.*not an olive state file' "${A[@]}" --restart nets/valid.h5
args_refused 'time.*2\^40' nets/valid.h5 -o out --time 1e12
args_refused 'empty output' nets/valid.h5 -o "" --steps 5
args_refused 'nodir.*does not exist' nets/valid.h5 -o nodir/out --steps 5
args_refused 'pulse' "${A[@]}" --pulse 1:2:nan
args_refused 'pulse' "${A[@]}" --pulse 1:2:1e9
args_refused 'pulse' "${A[@]}" --pulse -1:2:3
args_refused 'pulse' "${A[@]}" --pulse 1:2:3:5:99
args_refused 'population' "${A[@]}" --population a/b
args_refused 'record-cells' "${A[@]}" --record-cells -1:3
args_refused 'valid\.h5.*(stimulus|format)|(stimulus|format).*valid\.h5' "${A[@]}" --stimulus nets/valid.h5
# a run that blows up (I_app = 1e6 into cell 4 on step 0: V_dend ~ 5e4 after it, so
# step 1 overflows; tests/ref_model.py agrees) stops, naming step 1 and cell 4,
# and leaves no output; also when cell 4 belongs to rank 1 of 2
(refused "non-finite" '(step 1\b|t = 0\.1 ?ms).*cell 4\b|cell 4\b.*(step 1\b|t = 0\.1 ?ms)' "" \
  "$S" nets/valid.h5 -o blow --steps 50 --pulse 0:1:1e6:4:5 && no_output blow) || bad=$((bad + 1))
(refused "np2/non-finite" '(step 1\b|t = 0\.1 ?ms).*cell 4\b|cell 4\b.*(step 1\b|t = 0\.1 ?ms)' "" \
  timeout 60 mpirun -np 2 --oversubscribe "$S" nets/valid.h5 -o blow2 --steps 50 --pulse 0:1:1e6:4:5 \
  && no_output blow2) || bad=$((bad + 1))

if [ $bad -ne 0 ]; then
  echo "---- $bad cases were not refused properly:"; cat failures.txt; exit 1
fi
echo "malformed networks and arguments refused: $n files, 4 under mpirun -np 2"

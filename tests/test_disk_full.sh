#!/usr/bin/env bash
# Every program on a full disk: the outputs go to a small tmpfs (mounted here;
# where mount is not allowed, `ulimit -f` with SIGXFSZ ignored makes writes
# past the limit fail with EFBIG instead). Sizes are swept so that the
# failure lands in different phases (creating, data, metadata, the closes).
# For each run, either it exits 0 and its output equals (olive-analyze
# compare: every dataset exactly; cmp for a PNG) that of a reference run on a
# normal disk, or it exits non-zero without a signal, stderr names the file
# and the fault, and nothing is left: neither the final name nor any
# *.tmp-*. Covered: genconn (and --export-sonata, and mpirun -np 2),
# disperse, simulate (reports, checkpoint mode, mpirun -np 2), analyze
# spikes -o and plot -o.
set -euo pipefail
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" | tee -a "$PWD/failures.txt" >&2; exit 1; }
: > failures.txt
G="$BIN/olive-genconn" D="$BIN/olive-disperse" S="$BIN/olive-simulate" A="$BIN/olive-analyze"
top=$PWD
disk=$top/disk
mkdir -p "$disk" ref
mode=tmpfs
cleanup() { mountpoint -q "$disk" && umount "$disk"; return 0; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=4k tmpfs "$disk" 2>/dev/null; then mode=ulimit; fi
cleanup
echo "fault injection: $mode"

# small disk of SIZE KiB, empty
small_disk() {
  cleanup
  rm -rf "$disk"; mkdir -p "$disk"
  if [ $mode = tmpfs ]; then mount -t tmpfs -o size="$1k" tmpfs "$disk"; fi
}
# run CMD... in $disk with the fault in place; sets rc
run_small() {  # size cmd...
  local size=$1; shift
  rc=0
  if [ $mode = tmpfs ]; then (cd "$disk" && "$@") >out.txt 2>err.txt || rc=$?
  else (cd "$disk" && trap '' XFSZ && ulimit -f "$size" && "$@") >out.txt 2>err.txt || rc=$?; fi
}
runs=0 fails=0
# check NAME SIZE KIND OUTPUTS: OUTPUTS (space-separated, relative to $disk,
# files or directories; the reference is ref/OUTPUT); KIND h5 (compare) or png (cmp)
check() {
  local name=$1 size=$2 kind=$3 outputs=$4 o named=0 left
  runs=$((runs + 1))
  if [ "$rc" -eq 0 ]; then
    for o in $outputs; do
      [ -e "$disk/$o" ] || fail "$name @${size}k: exit 0 but no $o"
      if [ "$kind" = png ]; then cmp -s "$disk/$o" "ref/$o" || fail "$name @${size}k: $o differs from the reference"
      else "$A" compare -q "$disk/$o" "ref/$o" || fail "$name @${size}k: $o differs from the reference"; fi
    done
  else
    fails=$((fails + 1))
    [ "$rc" -lt 128 ] || { cat err.txt; fail "$name @${size}k: killed by a signal (exit $rc)"; }
    for o in $outputs; do grep -qF -- "$o" err.txt && named=1; done
    [ $named = 1 ] || { cat err.txt; fail "$name @${size}k: stderr names none of $outputs"; }
    grep -Eiq 'disk full|no space left|file too large|I/O error' err.txt || { cat err.txt; fail "$name @${size}k: stderr does not name the fault"; }
    for o in $outputs; do
      if [ "$name" = simulate-checkpoints ] && [ -d "$disk/$o" ]; then
        # checkpoint mode keeps OUTDIR and its last complete checkpoint,
        # nothing else: state.h5 and the spikes so far (spikes.h5 is
        # committed first, so it may be there alone when the disk filled
        # while the first state.h5 was written); what is there is whole
        left=$(ls "$disk/$o" | tr '\n' ' ')
        case "$left" in ""|"state.h5 "|"spikes.h5 "|"spikes.h5 state.h5 ") ;;
          *) fail "$name @${size}k: $o holds $left after exit $rc" ;; esac
        [ ! -e "$disk/$o/spikes.h5" ] || "$A" summary "$disk/$o/spikes.h5" >/dev/null \
          || fail "$name @${size}k: $o/spikes.h5 left after exit $rc is not a whole spike file"
      else
        [ ! -e "$disk/$o" ] || fail "$name @${size}k: $o left behind after exit $rc"
      fi
    done
  fi
  left=$(find "$disk" -name '*.tmp-*' | head -n 3)
  [ -z "$left" ] || fail "$name @${size}k: temporaries left behind: $left"
  echo "  $name @${size}k: exit $rc $(grep -m 1 'error:' err.txt || true)"
}
sweep() {  # name kind "outputs" sizes... -- cmd...
  local name=$1 kind=$2 outputs=$3 sizes=() s; shift 3
  while [ "$1" != -- ]; do sizes+=("$1"); shift; done; shift
  for s in "${sizes[@]}"; do
    small_disk "$s"
    run_small "$s" "$@"
    check "$name" "$s" "$kind" "$outputs"
  done
  echo "ok $name: sizes ${sizes[*]} KiB"
}

# references on the normal disk (inputs by absolute path, so every command
# line matches the one on the small disk)
GEN=(--dims 16x16 --generator uniform --density 12 --seed 3 --conductance 0.02:0.06 --conductance-bits 8)
(cd ref && "$G" -o net.h5 "${GEN[@]}" --export-sonata x >/dev/null 2>&1) || fail "reference genconn"
(cd ref && "$D" "$top/ref/net.h5" --ranks 3 -o map.h5 >/dev/null) || fail "reference disperse"
SIM=(--steps 200 --record v_axon,v_dend --pulse 2:4:6)
(cd ref && "$S" "$top/ref/net.h5" -o run "${SIM[@]}" >/dev/null) || fail "reference simulate"
(cd ref && "$S" "$top/ref/net.h5" -o ck "${SIM[@]}" --checkpoint-every 64 >/dev/null) || fail "reference checkpoints"
(cd ref && "$A" spikes "$top/ref/run" --threshold -20 -o sp.h5 >/dev/null) || fail "reference spikes"
(cd ref && "$A" plot "$top/ref/run" -o r.png --kind raster --width 300 --height 200 >/dev/null) || fail "reference plot"

sweep genconn h5 net.h5 4 8 24 -- "$G" -o net.h5 "${GEN[@]}"
sweep genconn-export h5 "net.h5 x_nodes.h5 x_edges.h5" 8 24 40 100 160 -- "$G" -o net.h5 "${GEN[@]}" --export-sonata x
sweep genconn-mpi h5 net.h5 8 64 -- mpirun -np 2 "$G" -o net.h5 "${GEN[@]}"
sweep disperse h5 map.h5 4 16 32 -- "$D" "$top/ref/net.h5" --ranks 3 -o map.h5
sweep simulate h5 run 8 16 40 96 120 -- "$S" "$top/ref/net.h5" -o run "${SIM[@]}"
sweep simulate-checkpoints h5 ck 8 40 400 -- "$S" "$top/ref/net.h5" -o ck "${SIM[@]}" --checkpoint-every 64
sweep simulate-mpi h5 run 16 400 -- mpirun -np 2 "$S" "$top/ref/net.h5" -o run "${SIM[@]}"
sweep spikes h5 sp.h5 4 8 -- "$A" spikes "$top/ref/run" --threshold -20 -o sp.h5
sweep plot png r.png 4 8 -- "$A" plot "$top/ref/run" -o r.png --kind raster --width 300 --height 200
# the sweep must have hit the disk limit, and passed it
[ "$fails" -ge 15 ] || fail "only $fails of $runs runs met a full disk"
[ "$fails" -lt "$runs" ] || fail "no run completed"
echo "$runs runs, $fails stopped by the full disk cleanly, the rest equal to the reference"
[ ! -s failures.txt ]

#!/usr/bin/env bash
# Submit the olive pipeline as four chained SLURM jobs:
#   01-genconn -> 02-disperse -> 03-simulate -> 04-analyze
# Each job starts only when the previous one succeeded (--dependency=afterok);
# if one fails, the later ones are cancelled (--kill-on-invalid-dep=yes).
#
# usage: examples/slurm/submit-chain.sh [SBATCH_OPTION...]
#   Options are given to every sbatch, e.g. --account=proj123 --partition=cpu.
#
# Environment (defaults in brackets), exported to every job:
#   WORKDIR [$PWD/olive-work]  shared directory of the chain (net.h5, map.h5,
#                              run/, summary.txt, the job logs); must be
#                              visible from the compute nodes
#   OLIVE_BIN [<repo>/build/bin]  where the olive-* programs are
#   CELLS [100000]  DENSITY [100]  RANKS [4]  STEPS [24000]
#   GPUS_PER_TASK []   e.g. 1: 03-simulate asks for one GPU per rank
#   SIMULATE_SBATCH [] extra sbatch options for 03-simulate only, split on
#                      spaces, e.g. "--partition=gpu --time=02:00:00"
#   CPUS_PER_TASK []   OpenMP threads per rank of 03-simulate [its #SBATCH: 4]
#   DRY_RUN [0]        1: print the sbatch commands, submit nothing
# The per-phase variables of the .sbatch files (SEED, GENERATOR, BALANCE,
# PULSE, RECORD, RECORD_EVERY, BACKEND, LAUNCHER, LAUNCHER_ARGS, SIM_ARGS)
# reach the jobs too when exported.
#
# Example (4 GPUs, one rank each):
#   WORKDIR=/scratch/$USER/olive-1M CELLS=1000000 DENSITY=1000 RANKS=4 \
#   GPUS_PER_TASK=1 SIMULATE_SBATCH=--partition=gpu examples/slurm/submit-chain.sh --account=proj123
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

WORKDIR=${WORKDIR:-$PWD/olive-work}
OLIVE_BIN=${OLIVE_BIN:-$top/build/bin}
CELLS=${CELLS:-100000}
DENSITY=${DENSITY:-100}
RANKS=${RANKS:-4}
STEPS=${STEPS:-24000}
GPUS_PER_TASK=${GPUS_PER_TASK:-}
SIMULATE_SBATCH=${SIMULATE_SBATCH:-}
CPUS_PER_TASK=${CPUS_PER_TASK:-}
DRY_RUN=${DRY_RUN:-0}

die() { echo "submit-chain: $*" >&2; exit 2; }
[[ $RANKS =~ ^[1-9][0-9]*$ ]] || die "RANKS must be a positive integer, not '$RANKS'"
[ "$DRY_RUN" = 1 ] || command -v sbatch >/dev/null || die "sbatch not found (not on a SLURM login node?)"
for p in genconn disperse simulate analyze; do
  [ -x "$OLIVE_BIN/olive-$p" ] || echo "submit-chain: warning: $OLIVE_BIN/olive-$p is missing" >&2
done

# Absolute paths: the jobs run in WORKDIR (--chdir), maybe on other nodes.
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
OLIVE_BIN=$(cd "$OLIVE_BIN" 2>/dev/null && pwd || echo "$OLIVE_BIN")
for v in "$WORKDIR" "$OLIVE_BIN"; do
  case $v in *,*) die "'$v' contains a comma, which sbatch --export cannot pass" ;; esac
done

# ALL: the jobs also see the submitting environment (PATH, modules, the
# optional per-phase variables above); the chain's own variables are explicit.
export_list="ALL,WORKDIR=$WORKDIR,OLIVE_BIN=$OLIVE_BIN,CELLS=$CELLS,DENSITY=$DENSITY,RANKS=$RANKS,STEPS=$STEPS"
common=(--parsable --kill-on-invalid-dep=yes --chdir="$WORKDIR" --export="$export_list" "$@")

sim_opts=(--ntasks="$RANKS")
[ -z "$GPUS_PER_TASK" ] || sim_opts+=(--gpus-per-task="$GPUS_PER_TASK")
[ -z "$CPUS_PER_TASK" ] || sim_opts+=(--cpus-per-task="$CPUS_PER_TASK")
if [ -n "$SIMULATE_SBATCH" ]; then
  read -r -a extra <<<"$SIMULATE_SBATCH"
  sim_opts+=("${extra[@]}")
fi

# submit SCRIPT DEPENDENCY [OPTION...]: prints the job id (--parsable gives
# "id" or "id;cluster").
submit() {
  local script=$1 dep=$2 out
  shift 2
  local cmd=(sbatch "${common[@]}")
  [ -z "$dep" ] || cmd+=(--dependency="afterok:$dep")
  cmd+=("$@" "$here/$script")
  if [ "$DRY_RUN" = 1 ]; then
    echo "+ ${cmd[*]}" >&2
    echo "dry-${script%%-*}"
    return
  fi
  out=$("${cmd[@]}") || die "sbatch $script failed"
  echo "${out%%;*}"
}

j1=$(submit 01-genconn.sbatch  "")
j2=$(submit 02-disperse.sbatch "$j1")
j3=$(submit 03-simulate.sbatch "$j2" "${sim_opts[@]}")
j4=$(submit 04-analyze.sbatch  "$j3")

cat <<MSG
submit-chain: jobs $j1 (genconn) -> $j2 (disperse) -> $j3 (simulate, $RANKS ranks) -> $j4 (analyze)
  work directory: $WORKDIR  (logs: olive-<phase>-<jobid>.out)
  follow:  squeue -u \$USER -j $j1,$j2,$j3,$j4
  result:  $WORKDIR/summary.txt
  cancel:  scancel $j1 $j2 $j3 $j4
MSG

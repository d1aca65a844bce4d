#!/usr/bin/env bash
# Stop the private SLURM cluster of scripts/slurm-setup.sh: cancels its jobs,
# stops slurmd and slurmctld (by their pid files in $OLIVE_SLURM_DIR/run).
#   bash scripts/slurm-stop.sh [--munge] [--purge]
#   --munge  also stop munged (it may serve other programs: left running by default)
#   --purge  also remove $OLIVE_SLURM_DIR and the saved state in /var/spool/slurm-olive
set -uo pipefail

dir=${OLIVE_SLURM_DIR:-/tmp/olive-slurm}
spool=/var/spool/slurm-olive
export PATH=$PATH:/usr/sbin:/sbin
munge=0 purge=0
for a in "$@"; do
  case $a in
    --munge) munge=1 ;;
    --purge) purge=1 ;;
    *) echo "usage: $0 [--munge] [--purge]" >&2; exit 2 ;;
  esac
done

say() { echo "slurm-stop: $*"; }
stop_pidfile() {  # name pidfile
  local p
  p=$(cat "$2" 2>/dev/null) || { say "$1: no pid file ($2)"; return 0; }
  if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
    say "stopping $1 (pid $p)"
    kill "$p"
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then say "$1 still running: SIGKILL"; kill -9 "$p"; fi
  else
    say "$1 is not running"
  fi
  rm -f "$2"
}

if [ -f "$dir/etc/slurm.conf" ] && [ -f "$dir/run/slurmctld.pid" ]; then
  export SLURM_CONF=$dir/etc/slurm.conf
  mapfile -t ids < <(squeue -h -o %i 2>/dev/null)
  if [ ${#ids[@]} -gt 0 ]; then say "cancelling jobs ${ids[*]}"; scancel "${ids[@]}" 2>/dev/null; sleep 1; fi
fi
stop_pidfile slurmd "$dir/run/slurmd.pid"
stop_pidfile slurmctld "$dir/run/slurmctld.pid"
if [ $munge = 1 ]; then
  if munged --stop >/dev/null 2>&1; then say "stopped munged"; else say "munged was not running"; fi
fi
if [ $purge = 1 ]; then
  say "removing $dir and $spool"
  rm -rf "$dir" "$spool"
fi

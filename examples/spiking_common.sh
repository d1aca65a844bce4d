# Shared by the spiking examples: where the programs are, and running them.
# Sourced, not run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${BIN:-$here/../build/bin}
OUT=${OUT:-$(basename "$0" .sh)-out}
mkdir -p "$OUT"
for p in olive-genconn olive-simulate olive-analyze; do
  [ -x "$BIN/$p" ] || { echo "$BIN/$p is missing: run 'make' in the repository root first" >&2; exit 1; }
done

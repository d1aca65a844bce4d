#!/usr/bin/env bash
# The help2man include file of one program (make man): extra man-page sections
# that --help does not give. For olive-analyze, each subcommand's --help (the
# subcommands are read from `olive-analyze --help`) and the ENVIRONMENT
# (OLIVE_CAIRO_LIB); for every program, SEE ALSO.
# Usage: scripts/man-include.sh PROGRAM-PATH > olive-TOOL.h2m
set -euo pipefail
prog=$1
name=$(basename "$prog")
# Text as roff: backslashes printed as such; lines starting with . or ' (roff
# requests) or [ or / (help2man's section and pattern lines) kept literal by \&.
roff_text() { sed -e 's/\\/\\e/g' -e "s/^\\([.'[/]\\)/\\\\\\&\\1/"; }
if [ "$name" = olive-analyze ]; then
  subs=$("$prog" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
  [ -n "$subs" ] || { echo "man-include.sh: no subcommands in $name --help" >&2; exit 1; }
  echo "[SUBCOMMANDS]"
  for s in $subs; do
    help=$("$prog" "$s" --help)
    echo ".SS \"$name $s\""
    echo ".nf"
    printf '%s\n' "$help" | roff_text
    echo ".fi"
  done
  cat <<'EOF'
[ENVIRONMENT]
.TP
.B OLIVE_CAIRO_LIB
The cairo library that
.B plot
loads (default
.BR libcairo.so.2 ,
found as dlopen(3) finds libraries). Only
.B plot
needs cairo; every other subcommand runs where it is missing, and
.B plot
then fails with exit status 2, naming the library.
EOF
fi
cat <<'EOF'
[SEE ALSO]
.BR olive-genconn (1),
.BR olive-disperse (1),
.BR olive-simulate (1),
.BR olive-analyze (1).
The file formats, the cell model and the architecture are described in
README.md and docs/*.md, installed in share/doc/olive/ of the installation
prefix with the example scripts (examples/).
EOF

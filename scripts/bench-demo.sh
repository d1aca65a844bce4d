#!/usr/bin/env bash
# A new user's first result: `make demo` in a fresh clone, timed from the clone to the demo's last line,
# with its build and its run apart (the Debian packages already there); then what getting those packages
# costs on a machine that has none of them: the packages scripts/install-deps.sh asks for and everything
# they depend on that a base Debian lacks (Priority required/important counted as base), downloaded
# from the configured mirror and unpacked, timed (their configuration is not: it needs a machine without
# them). Prints a table; docs/BENCHMARKS.md keeps today's figures.
#   bash scripts/bench-demo.sh [--no-packages]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc | xargs printf %.1f; }

git clone -q "$top" "$tmp/olive"
t0=$(now)
(cd "$tmp/olive" && make demo) >"$tmp/demo.log" 2>&1 || { tail -n 30 "$tmp/demo.log"; echo "make demo failed" >&2; exit 1; }
t1=$(now)
# the build's share: the demo's programs built again in another fresh folder, nothing run
(cd "$tmp/olive" && make -s BUILD=build-timing/demo CUDA=0 -j"$(nproc)" \
   build-timing/demo/bin/olive-genconn build-timing/demo/bin/olive-simulate build-timing/demo/bin/olive-analyze) >/dev/null
t2=$(now)
echo "| step | seconds |"
echo "|---|---|"
echo "| make demo in a fresh clone, to its result (packages there) | $(secs "$t0" "$t1") |"
echo "| of which building the demo's three programs (CUDA=0, -j$(nproc)) | $(secs "$t1" "$t2") |"
grep -q "olive-analyze" "$tmp/demo.log" || { echo "the demo's analysis is missing from its output" >&2; exit 1; }

[ "${1:-}" = --no-packages ] && exit 0
# the packages: install-deps.sh's list and its dependencies, less the base system
mapfile -t asked < <(sed -n '/^pkgs=(/,/)/p' "$top/scripts/install-deps.sh" | tr -d '()' | sed 's/pkgs=//' | tr ' ' '\n' | grep -v '^$')
mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances "${asked[@]}" | grep -v '^ ' | grep -v '^<' | sed 's/:amd64$//' | sort -u)
mapfile -t need < <(apt-cache show --no-all-versions "${closure[@]}" 2>/dev/null \
  | awk '/^Package: / {p = $2} /^Priority: / && $2 != "required" && $2 != "important" {print p}' | sort -u)
mkdir -p "$tmp/debs" && cd "$tmp/debs"
t3=$(now)
apt-get download -q "${need[@]}" >/dev/null 2>"$tmp/apt.err" || { cat "$tmp/apt.err"; exit 1; }
t4=$(now)
for d in *.deb; do dpkg -x "$d" "$tmp/root"; done
t5=$(now)
echo "| Debian packages a base Debian 12 lacks: ${#asked[@]} asked, ${#need[@]} with dependencies, $(du -cm ./*.deb | tail -1 | cut -f1) MB: download | $(secs "$t3" "$t4") |"
echo "| the same packages unpacked (dpkg -x; configuration not timed) | $(secs "$t4" "$t5") |"

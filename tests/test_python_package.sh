#!/usr/bin/env bash
# The Python package (python/, docs/PYTHON.md): pytest runs python/tests
# against the build's programs (OLIVE_BIN=$BIN) in a venv cached under the
# build directory, made once from PyPI with pinned versions (a stamp file
# names them); the package itself is reinstalled from python/ on every run
# (no dependencies, no build isolation: quick, and offline once the venv exists).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then
  echo "Python package: checked in the normal build only"; exit 0
fi
PYTEST=8.4.2 NUMPY=2.3.5 H5PY=3.12.1 NEO=0.14.3 QUANTITIES=0.16.4 PYNWB=3.1.3 HDMF=4.3.1 PANDAS=2.3.3 FLIT=3.12.0
pins="pytest==$PYTEST numpy==$NUMPY h5py==$H5PY neo==$NEO quantities==$QUANTITIES pynwb==$PYNWB hdmf==$HDMF pandas==$PANDAS flit_core==$FLIT"
venv="$TOP/$BUILD/venv-python"
stamp="$venv/.olive-${pins// /-}"
if [ ! -e "$stamp" ]; then
  rm -rf "$venv"
  "$PY" -m venv "$venv" || fail "python3 -m venv failed (Debian package python3-venv)"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install -q --disable-pip-version-check $pins \
    || fail "pip could not install $pins (is PyPI reachable?)"
  "$venv/bin/pip" freeze > "$venv/.olive-freeze.txt"
  touch "$stamp"
fi
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation --force-reinstall \
    "$TOP/python" || fail "pip install ./python failed"
# in run.sh's scratch directory: python/tests on sys.path (conftest, reference.py), python/ not,
# so the tests import the installed package
OLIVE_BIN="$BIN" OLIVE_EXPECT_INSTALLED=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider --basetemp="$PWD/pytest-tmp" \
    --rootdir="$TOP/python/tests" "$TOP/python/tests" || fail "pytest python/tests failed"

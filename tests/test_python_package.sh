#!/usr/bin/env bash
# The Python package (python/, docs/PYTHON.md): pytest runs python/tests
# against the build's programs (OLIVE_BIN=$BIN) in the pinned venv of
# tests/python_venv.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then
  echo "Python package: checked in the normal build only"; exit 0
fi
source "$TESTS/python_venv.sh"
# in run.sh's scratch directory: python/tests on sys.path (conftest, reference.py), python/ not,
# so the tests import the installed package
OLIVE_BIN="$BIN" OLIVE_EXPECT_INSTALLED=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider --basetemp="$PWD/pytest-tmp" \
    --rootdir="$TOP/python/tests" "$TOP/python/tests" || fail "pytest python/tests failed"

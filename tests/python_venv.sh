# Sourced by the tests of the Python package and of pyNN.olive: the pinned
# PyPI packages in a venv cached under the build directory ($venv), made once
# (needs PyPI then; a stamp file names the pins), and the package itself
# reinstalled from python/ (no dependencies, no build isolation: quick, and
# offline once the venv exists).
PYTEST=8.4.2 NUMPY=2.3.5 H5PY=3.12.1 NEO=0.14.3 QUANTITIES=0.16.4 PYNWB=3.1.3 HDMF=4.3.1 PANDAS=2.3.3 FLIT=3.12.0
# PyNN 0.13.0 and what its tests import (tests/test_pynn.sh)
PYNN=0.13.0 LAZYARRAY=0.6.0 MATPLOTLIB=3.11.2 SCIPY=1.17.1
pins="pytest==$PYTEST numpy==$NUMPY h5py==$H5PY neo==$NEO quantities==$QUANTITIES pynwb==$PYNWB hdmf==$HDMF pandas==$PANDAS flit_core==$FLIT"
pins="$pins PyNN==$PYNN lazyarray==$LAZYARRAY matplotlib==$MATPLOTLIB scipy==$SCIPY"
source "$TESTS/venv_cached.sh"
venv="$TOP/$BUILD/venv-python"
# shellcheck disable=SC2086
venv_cached "$venv" ".olive-${pins// /-}" $pins
# olive itself, reinstalled when python/ changed (never while another test
# that shares the venv has it loaded: that one then saw the same sources)
venv_lock "$venv"
src=$(cd "$TOP/python" && find . -name __pycache__ -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum | sha256sum)
if [ "$(cat "$venv/.olive-src" 2>/dev/null)" != "$src" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation --force-reinstall \
      "$TOP/python" || fail "pip install ./python failed"
  echo "$src" > "$venv/.olive-src"
fi
venv_unlock

# Sourced by the tests of the Python package and of pyNN.olive: the pinned
# PyPI packages in a venv cached under the build directory ($venv), made once
# (needs PyPI then; a stamp file names the pins), and the package itself
# reinstalled from python/ (no dependencies, no build isolation, no programs
# built: the tests run the build's, OLIVE_BIN=$BIN; quick, and offline once
# the venv exists). tests/test_pip_install.sh checks the install with programs.
source "$TESTS/python_pins.sh"
pins="pytest==$PYTEST numpy==$NUMPY h5py==$H5PY neo==$NEO quantities==$QUANTITIES pynwb==$PYNWB hdmf==$HDMF pandas==$PANDAS setuptools==$SETUPTOOLS"
pins="$pins PyNN==$PYNN lazyarray==$LAZYARRAY matplotlib==$MATPLOTLIB scipy==$SCIPY"
pins="$pins nbclient==$NBCLIENT nbformat==$NBFORMAT ipykernel==$IPYKERNEL"
source "$TESTS/venv_cached.sh"
venv="$TOP/$BUILD/venv-python"
# shellcheck disable=SC2086
venv_cached "$venv" ".olive-${pins// /-}" $pins
# olive itself, reinstalled when python/ changed (never while another test
# that shares the venv has it loaded: that one then saw the same sources)
venv_lock "$venv"
# (setuptools' in-tree build/ and egg-info are no sources)
src=$(cd "$TOP/python" && find . \( -name __pycache__ -o -path ./build -o -path './*.egg-info' \) -prune -o -type f -print \
      | LC_ALL=C sort | xargs sha256sum | sha256sum)
if [ "$(cat "$venv/.olive-src" 2>/dev/null)" != "$src" ]; then
  OLIVE_BUILD_PROGRAMS=0 "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation --force-reinstall \
      "$TOP/python" || fail "pip install ./python failed"
  echo "$src" > "$venv/.olive-src"
fi
venv_unlock

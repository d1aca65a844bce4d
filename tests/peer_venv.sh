# Sourced by the tests that run NEURON or NEST: the pinned peers in a venv
# cached under the build directory ($venv), made once (needs PyPI then).
NEURON=9.0.2 NEST=3.10.0 H5PY=3.12.1
venv="$TOP/$BUILD/venv-peers"
stamp="$venv/.olive-neuron-$NEURON-nest-$NEST-h5py-$H5PY"
if [ ! -e "$stamp" ]; then
  rm -rf "$venv"
  "$PY" -m venv "$venv" || fail "python3 -m venv failed (Debian package python3-venv)"
  # h5py from pip too: nest's numpy 2 does not fit Debian's h5py
  "$venv/bin/pip" install -q "neuron==$NEURON" "nest-simulator==$NEST" "h5py==$H5PY" \
    || fail "pip could not install neuron==$NEURON nest-simulator==$NEST h5py==$H5PY (is PyPI reachable?)"
  touch "$stamp"
fi

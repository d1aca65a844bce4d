# Sourced by the tests that run NEURON or NEST: the pinned peers in a venv
# cached under the build directory ($venv), made once (needs PyPI then).
NEURON=9.0.2 NEST=3.10.0 H5PY=3.12.1
source "$TESTS/venv_cached.sh"
venv="$TOP/$BUILD/venv-peers"
# h5py from pip too: nest's numpy 2 does not fit Debian's h5py
venv_cached "$venv" ".olive-neuron-$NEURON-nest-$NEST-h5py-$H5PY" "neuron==$NEURON" "nest-simulator==$NEST" "h5py==$H5PY"

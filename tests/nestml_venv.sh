# Sourced by the tests that build NESTML models (olive-model build): the
# pinned NESTML and what its analysis needs, in a venv cached under the build
# directory ($nestml_venv), made once (needs PyPI then).
source "$TESTS/python_pins.sh"
source "$TESTS/venv_cached.sh"
nestml_venv="$TOP/$BUILD/venv-nestml"
venv_cached "$nestml_venv" ".olive-nestml-$NESTML-odetoolbox-$ODETOOLBOX" "nestml==$NESTML" "odetoolbox==$ODETOOLBOX" \
    "sympy==$SYMPY" "antlr4-python3-runtime==$ANTLR4" "astropy==$ASTROPY" "numpy==$NUMPY" "h5py==$H5PY"

# Sourced by the multi-area model's checks: the model's requirements
# (its requirements.txt; numpy < 2: its code uses np.Inf) and NEST 3.10 in a
# venv cached under the build directory ($venv), made once (needs PyPI then).
MAM_PINS=("nest-simulator==3.10.0" "numpy==1.26.4" "scipy==1.13.1" "pandas==2.2.3" "nested_dict==1.61"
          "dicthash==0.0.2" "matplotlib==3.9.2" "h5py==3.12.1" "future==1.0.0")
source "$TESTS/venv_cached.sh"
venv="$TOP/$BUILD/venv-mam"
venv_cached "$venv" ".olive-mam-nest-3.10.0-numpy-1.26.4" "${MAM_PINS[@]}"

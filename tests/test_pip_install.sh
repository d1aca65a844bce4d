#!/usr/bin/env bash
# pip install ./python (docs/PYTHON.md): a fresh venv, the package installed
# from a copy of the repository with its programs built by the Makefile
# (python/setup.py), then, with nothing of olive on PATH, the README's Python
# example and a small pyNN.olive script run the installed programs and give
# spikes; olive-model runs, and the plugin headers come with the package. A
# missing system package stops the build with the Makefile's message naming it
# (emulated: no pkg-config, and an HDF5_DIR with no HDF5).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ] || [ "$SANITIZED" = 1 ]; then
  # one C build of a minute inside pip; the sanitizer pass has nothing more to check here
  echo "pip install: checked in the normal build only"; exit 0
fi
source "$TESTS/python_pins.sh"
source "$TESTS/installed_checks.sh"
# the repository as a user's clone has it (no build/: pip builds in place, so not in $TOP)
mkdir -p src/python
here=$PWD
(cd "$TOP" && cp -r Makefile LICENSE README.md CITATION.cff common tools docs examples scripts "$here/src/")
tar -C "$TOP/python" --exclude=__pycache__ --exclude=./build --exclude='./*.egg-info' -cf - . | tar -C src/python -xf -
"$PY" -m venv venv || fail "python3 -m venv failed (Debian package python3-venv)"
printf '%s\n' "numpy==$NUMPY" "h5py==$H5PY" "neo==$NEO" "quantities==$QUANTITIES" "PyNN==$PYNN" "lazyarray==$LAZYARRAY" \
  "setuptools==$SETUPTOOLS" >pins.txt
pip() { venv/bin/pip --disable-pip-version-check "$@"; }
# --no-build-isolation where setuptools is older than pyproject.toml asks (Debian 12's 66, seen
# through --system-site-packages): a plain message naming what is missing, not a traceback
"$PY" -m venv --system-site-packages oldst || fail "python3 -m venv --system-site-packages"
if OLIVE_BUILD_PROGRAMS=0 oldst/bin/pip --disable-pip-version-check install -q --no-deps --no-build-isolation \
     ./src/python >old.out 2>old.err; then fail "an install with setuptools < 77 succeeded"; fi
grep -q "olive's Python package needs setuptools >= 77 to build; this Python (.*) has setuptools [0-9]" old.err \
  && ! grep -q "ModuleNotFoundError" old.err || { cat old.err; fail "old setuptools: no plain message"; }
echo "ok old setuptools: $(grep -o "olive's Python package needs.*" old.err | head -c 150)"
pip install -q -c pins.txt setuptools || fail "pip could not install setuptools (is PyPI reachable?)"

# a missing system package: pip's error names it (make's dependency check, before compiling anything)
missing() {  # name, package, env settings...
  local name=$1 pkg=$2 rc=0; shift 2
  env "$@" CUDA=0 venv/bin/pip --disable-pip-version-check wheel -q --no-deps --no-build-isolation -w wheels \
    ./src/python >out.txt 2>&1 || rc=$?
  [ $rc != 0 ] || fail "$name: pip built a wheel"
  grep -q "olive: .*not found.*apt-get install $pkg" out.txt || { cat out.txt; fail "$name: pip's error does not name $pkg"; }
  ! compgen -G "wheels/*.whl" >/dev/null || fail "$name: a wheel was left"
  echo "ok $name: $(grep -m1 "^ *olive: .*not found" out.txt | sed 's/^ *//')"
}
missing "no MPI" libopenmpi-dev PKG_CONFIG=false
missing "no HDF5" libhdf5-openmpi-dev CC=mpicc HDF5_DIR="$PWD/empty"

# the install a user runs, with build isolation (setuptools from PyPI), and the programs built
t0=$SECONDS
CUDA=0 MAKEFLAGS=-j2 pip install -q -c pins.txt './src/python[pynn]' >pip.log 2>&1 || { tail -n 30 pip.log; fail "pip install ./python"; }
echo "pip install ./python[pynn]: $((SECONDS - t0)) s"
site=$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
for p in genconn disperse simulate analyze; do
  [ -x "$site/olive/bin/olive-$p" ] || fail "olive/bin/olive-$p not installed"
done
rm -rf src   # nothing of the build or the sources left to fall back on

# nothing of olive on PATH, no OLIVE_BIN: the package finds its own programs
clean() { env -u OLIVE_BIN PATH=/usr/bin:/bin "$@"; }
clean venv/bin/python -c 'import olive; print(olive.find_program("simulate"))' >where.txt
grep -q "^$site/olive/bin/olive-simulate$" where.txt || fail "olive.find_program found $(cat where.txt)"
# the console scripts on the venv's PATH run the same programs
clean venv/bin/olive-simulate --version | grep -q "^olive-simulate " || fail "venv/bin/olive-simulate --version"
# olive-model, a console script of the package: its help runs; the plugin
# headers come with the package (olive/include, what olive-model build
# compiles against) and a plugin built against them alone runs in the
# installed programs; a NESTML build needs NESTML, which this venv has only if
# installed (then it builds), else the message names the pinned install
clean venv/bin/olive-model --help | grep -q "^usage: olive-model" || fail "venv/bin/olive-model --help"
inc=$(clean venv/bin/python -c 'from olive.nestml.build import include_dirs; print(*include_dirs())')
[ "$inc" = "$site/olive/include" ] || fail "olive-model compiles against $inc, not the package's headers"
cc -std=c11 -O2 -ffp-contract=off -fPIC -shared -I"$inc" "$TESTS/plugins/lif_cuba_plugin.c" -o lif_plugin.so -lm \
  || fail "a plugin does not compile against the package's headers alone"
clean venv/bin/olive-genconn -o plugin.h5 --model "$PWD/lif_plugin.so" --population a:20 -q
clean venv/bin/olive-simulate plugin.h5 -o plugin-run --steps 100 --pulse 0:10:30 -q --model-path "$PWD/lif_plugin.so"
[ "$(venv/bin/python -c "import h5py; print(len(h5py.File('plugin-run/spikes.h5')['spikes/a/node_ids']))")" -gt 0 ] \
  || fail "the plugin built against the package's headers gave no spikes"
# olive.Simulation on the package's libolive (olive/lib), the same plugin: the same spikes
[ -f "$site/olive/lib/libolive.so" ] || fail "olive/lib/libolive.so not installed"
clean venv/bin/python - "$PWD/lif_plugin.so" <<'PYEOF' || fail "olive.Simulation from the installed package"
import sys, h5py, numpy as np, olive
sim = olive.Simulation("plugin.h5", "plugin-sess", steps=100, pulses=[(0, 10, 30)], model_path=sys.argv[1])
sim.run(steps=60)
sim.run(steps=40)
sim.close()
a, b = h5py.File("plugin-run/spikes.h5"), h5py.File("plugin-sess/spikes.h5")
assert np.array_equal(a["spikes/a/timestamps"][:], b["spikes/a/timestamps"][:]), "spikes differ"
PYEOF
echo "ok olive.Simulation with the package's libolive"
nestml_file="$TOP/examples/nestml/lif_cuba_nestml.nestml"
if clean venv/bin/python -c 'import pynestml' 2>/dev/null; then
  so=$(clean env OLIVE_MODEL_CACHE="$PWD/cache" venv/bin/olive-model build "$nestml_file") && [ -f "$so" ] \
    || fail "olive-model build $nestml_file"
elif clean venv/bin/olive-model build "$nestml_file" >out.txt 2>err.txt; then
  fail "olive-model build without NESTML succeeded"
else
  grep -q "^olive-model: NESTML is not installed in this Python .*pip install nestml==$NESTML odetoolbox==$ODETOOLBOX" err.txt \
    && ! grep -q Traceback err.txt || { cat err.txt; fail "olive-model build without NESTML: not a message naming the install"; }
  echo "ok olive-model without NESTML: $(cut -c1-100 err.txt)..."
fi
check_readme_example clean venv/bin/python
check_pynn_script clean venv/bin/python
echo "pip install: ok"

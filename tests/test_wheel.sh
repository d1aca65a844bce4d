#!/usr/bin/env bash
# make wheel (scripts/make-wheel.sh, docs/PYTHON.md "A wheel"): the wheel of this build's programs and
# libolive. Every program and library in it loads only libraries inside the wheel or the base system's
# (glibc's, libgcc_s, libstdc++, zlib: the manylinux policy's; ldd); pip installs it into a fresh venv
# (timed); then, with only the venv on PATH and the system's Open MPI, HDF5, compilers and headers
# hidden (a private mount namespace, as root), olive-genconn and olive-simulate run and give the build's
# own spikes.h5 bit for bit, and the README's Python examples and a pyNN.olive script run.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ] || [ "$SANITIZED" = 1 ]; then
  echo "make wheel: checked in the normal build only"; exit 0
fi
source "$TESTS/python_pins.sh"
source "$TESTS/installed_checks.sh"
source "$TESTS/without_system_mpi.sh"
BUILD="$BUILD" bash "$TOP/scripts/make-wheel.sh" >wheel.log 2>&1 || { cat wheel.log; fail "make wheel"; }
whl=$(ls "$TOP/$BUILD"/wheel/olive-*.whl)
case "$whl" in *-py3-none-manylinux_2_*_x86_64.whl) ;; *) fail "not a manylinux wheel: $whl" ;; esac
echo "wheel: $(basename "$whl") $(du -h "$whl" | cut -f1)"

# ldd: every program and library of the wheel finds each library it needs, its libraries' libraries too,
# inside the wheel or among the base system's (the vendored ones in olive.libs/ have no search path of
# their own: they are found through the RPATH of the program or library that loads them, as ldd of that
# one shows)
"$PY" -m zipfile -e "$whl" unpacked
base='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|lib(c|m|dl|rt|pthread|resolv|gcc_s|stdc\+\+|z)\.so\.[0-9]+)$'
nelf=0
while IFS= read -r f; do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  nelf=$((nelf + 1))
  ldd "$f" >ldd.txt 2>&1 || fail "ldd $f: $(cat ldd.txt)"
  ! grep -q "not found" ldd.txt || fail "$f: $(grep "not found" ldd.txt)"
  while read -r name _ path _; do
    case "$path" in "$PWD/unpacked/"*) continue ;; esac
    [[ $(basename "$name") =~ $base ]] || fail "${f#unpacked/} loads $name from $path, outside the wheel"
  done < <(grep -v "statically linked" ldd.txt)
done < <(find unpacked -path unpacked/olive.libs -prune -o -type f -print)
[ "$nelf" -ge 6 ] || fail "only $nelf ELF files in the wheel"
ls unpacked/olive/mpi/lib/openmpi/mca_pml_ob1.so unpacked/olive/mpi/share/openmpi/help-mpi-runtime.txt >/dev/null \
  || fail "Open MPI's run-time files missing"
echo "ok ldd: $nelf programs and libraries load only the wheel's libraries and the base system's"

# a fresh venv: pip install the wheel (PyNN for the script below), timed
"$PY" -m venv venv || fail "python3 -m venv failed (Debian package python3-venv)"
printf '%s\n' "numpy==$NUMPY" "h5py==$H5PY" "neo==$NEO" "quantities==$QUANTITIES" "PyNN==$PYNN" "lazyarray==$LAZYARRAY" >pins.txt
t0=$(date +%s.%N)
venv/bin/pip install -q --disable-pip-version-check -c pins.txt "$whl[pynn]" >pip.log 2>&1 || { cat pip.log; fail "pip install"; }
echo "pip install $(basename "$whl")[pynn] into a fresh venv: $(echo "$(date +%s.%N) - $t0" | bc | xargs printf %.1f) s"

# only the venv on PATH, the system's MPI, HDF5, compilers and headers hidden where this runs as root
venv=$PWD/venv
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  bare() { without_system_mpi env -u OLIVE_BIN -u OLIVE_LIB -u LD_LIBRARY_PATH PATH="$venv/bin" "$@"; }
  echo "running with the system's Open MPI, HDF5, compilers and headers hidden"
else
  bare() { env -u OLIVE_BIN -u OLIVE_LIB -u LD_LIBRARY_PATH PATH="$venv/bin" "$@"; }
  echo "not root: the system's libraries stay visible (the ldd check above stands)"
fi
! bare "$venv/bin/python" -c 'import ctypes; ctypes.CDLL("libmpi.so.40"); ctypes.CDLL("libhdf5_openmpi.so.103")' \
  2>/dev/null || [ "$(id -u)" != 0 ] || fail "the system's libmpi and libhdf5 can still be loaded"
bare olive-genconn -q -o net.h5 --cells 500 --generator gaussian --density 8 --sigma 3 --seed 4
bare olive-simulate net.h5 -o run --time 200 --pulse 50:150:6 -q
"$BIN/olive-simulate" net.h5 -o ref --time 200 --pulse 50:150:6 -q
venv/bin/python "$TESTS/same_datasets.py" ref run spikes.h5 state.h5 || fail "the wheel's olive-simulate differs from the build's"
echo "ok the wheel's olive-genconn and olive-simulate: the build's spikes.h5"
check_readme_example bare "$venv/bin/python"
check_pynn_script bare "$venv/bin/python"
echo "make wheel: ok"

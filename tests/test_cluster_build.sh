#!/usr/bin/env bash
# The build on a cluster without Debian's pkg-config names:
# `make CC=mpicc HDF5_DIR=... PKG_CONFIG=false CUDA=0` into a fresh build
# directory, HDF5_DIR laid out as an HDF5 install prefix (include/, lib/);
# its programs give the same bits as the regular build's (json-c from
# JSONC_DIR, a prefix of its own). Then CAIRO=0: an
# olive-analyze without plot, which says so.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$BUILD" = build-san ]; then echo "cluster build: checked in the normal build only"; exit 0; fi
mkdir -p hdf5
ln -s /usr/include/hdf5/openmpi hdf5/include
ln -s /usr/lib/x86_64-linux-gnu/hdf5/openmpi hdf5/lib
mkdir -p jsonc/include jsonc/lib   # json-c installed under a prefix of its own
ln -s /usr/include/json-c jsonc/include/json-c
ln -s /usr/lib/x86_64-linux-gnu/libjson-c.so* jsonc/lib/
B="$PWD/cb"
progs=("$B"/bin/olive-{genconn,disperse,simulate,analyze})
# -O1: this checks the build's configuration; the bits do not depend on -O
# (-ffp-contract=off, no fast-math), which the comparison below confirms.
make -s -C "$TOP" -j2 BUILD="$B" CC=mpicc HDF5_DIR="$PWD/hdf5" JSONC_DIR="$PWD/jsonc" PKG_CONFIG=false CUDA=0 OPT=-O1 "${progs[@]}" \
  >make.log 2>&1 || { tail -20 make.log; fail "cluster-style build"; }
readelf -d "$B/bin/olive-simulate" | grep -E "RUNPATH|RPATH" | grep -q "$PWD/hdf5/lib" || fail "no run path to HDF5_DIR/lib"
readelf -d "$B/bin/olive-genconn" | grep -E "RUNPATH|RPATH" | grep -q "$PWD/jsonc/lib" || fail "no run path to JSONC_DIR/lib"
"$B/bin/olive-genconn" -q -o net.h5 --cells 200 --generator uniform --density 6 --conductance 0.01:0.04 --gcal 0.6:1.2
"$BIN/olive-genconn" -q -o ref.h5 --cells 200 --generator uniform --density 6 --conductance 0.01:0.04 --gcal 0.6:1.2
for d in gap_junctions/row_ptr gap_junctions/col gap_junctions/conductance cells/g_CaL; do
  h5diff -q net.h5 ref.h5 /$d || fail "the cluster build's network differs in /$d"
done
"$B/bin/olive-simulate" -q net.h5 -o a --steps 800 --noise 0,0.5,10 --record v_dend
"$BIN/olive-simulate" -q net.h5 -o b --steps 800 --noise 0,0.5,10 --record v_dend
"$B/bin/olive-analyze" compare -q a b || fail "the cluster build's run differs from the regular build's"
# Random123 missing (-nostdinc hides the system's copy): the build stops at
# once and says how to point R123_DIR at it.
rc=0; make -s -C "$TOP" BUILD="$PWD/nr" CC="gcc -nostdinc" R123_DIR="$PWD/no-r123" "$PWD/nr/bin/olive-simulate" \
  >make3.log 2>&1 || rc=$?
[ $rc != 0 ] && grep -q "Random123 headers (Random123/philox.h) not found in R123_DIR=$PWD/no-r123/include" make3.log \
  && grep -q "build with R123_DIR=/path/to/Random123" make3.log && [ ! -d nr/obj/common ] || { cat make3.log; fail "no Random123: message"; }
# json-c missing: the build stops at once and says how to point JSONC_DIR at it.
rc=0; make -s -C "$TOP" BUILD="$PWD/nj" JSONC_DIR="$PWD/no-jsonc" "$PWD/nj/obj/tools/genconn/sonata/json.o" >make4.log 2>&1 || rc=$?
[ $rc != 0 ] && grep -q "json-c headers (json_tokener.h) not found in JSONC_DIR=$PWD/no-jsonc/include/json-c" make4.log \
  && grep -q "apt-get install libjson-c-dev" make4.log && [ ! -e nj/obj/tools/genconn/sonata/json.o ] || { cat make4.log; fail "no json-c: message"; }
# CAIRO=0
make -s -C "$TOP" -j2 BUILD="$PWD/nc" CUDA=0 CAIRO=0 OPT=-O1 "$PWD/nc/bin/olive-analyze" >make2.log 2>&1 || { tail make2.log; fail "CAIRO=0 build"; }
"$PWD/nc/bin/olive-analyze" summary a >/dev/null || fail "CAIRO=0: summary"
rc=0; "$PWD/nc/bin/olive-analyze" plot a -o p.png --kind raster 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "built without cairo" err.txt && [ ! -e p.png ] || fail "CAIRO=0: plot"
echo "cluster build: ok"

#!/usr/bin/env bash
# Pack the shared libraries a Debian 12 build of olive needs at run time
# (Open MPI, parallel HDF5 and hdf5-tools, json-c, and what they pull in)
# into DIR with a setup.sh, for a GPU host that lacks them and cannot
# install packages. The CUDA runtime is linked statically.
#   bash scripts/gpu-runtime.sh .gpurt          (here: downloads the .deb files)
#   bash .gpurt/setup.sh && . /opt/olive-rt/env.sh   (on the host, beside build/bin)
# setup.sh unpacks the packages under /opt/olive-rt (never over /) and
# writes env.sh (PATH, LD_LIBRARY_PATH, Open MPI's prefix, mpirun as root).
set -euo pipefail
dir=${1:?usage: gpu-runtime.sh DIR}
mkdir -p "$dir"
pkgs="openmpi-bin openmpi-common libopenmpi3 libhdf5-openmpi-103-1 libhdf5-103-1 hdf5-tools libjson-c5
 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7 libaec0 libsz2
 libfabric1 libucx0 libibverbs1 librdmacm1 libpsm2-2 libpsm-infinipath1 libnl-3-200
 libnl-route-3-200 libmunge2 libxnvctrl0 libnuma1 libltdl7 libcurl4 libnghttp2-14 librtmp1
 libssh2-1 libpsl5 libldap-2.5-0 libsasl2-2 libbrotli1 libunistring2 libidn2-0 libgnutls30
 libnettle8 libhogweed6 libtasn1-6 libp11-kit0 libffi8 libgmp10"
[ -n "$(ls /var/lib/apt/lists 2>/dev/null | grep -v lock)" ] || apt-get update -qq
# shellcheck disable=SC2086
(cd "$dir" && apt-get download $pkgs >/dev/null 2>&1) || { echo "gpu-runtime.sh: apt-get download failed" >&2; exit 1; }
cat > "$dir/setup.sh" <<'EOF'
#!/usr/bin/env bash
# Unpack the packed runtime under /opt/olive-rt and write its env.sh.
set -euo pipefail
rt=/opt/olive-rt
mkdir -p "$rt"
for f in "$(dirname "$0")"/*.deb; do dpkg -x "$f" "$rt"; done
cat > "$rt/env.sh" <<EOT
export OPAL_PREFIX=$rt/usr
export PATH=$rt/usr/bin:\$PATH
export LD_LIBRARY_PATH=$rt/usr/lib/x86_64-linux-gnu:$rt/usr/lib/x86_64-linux-gnu/openmpi/lib:$rt/usr/lib/x86_64-linux-gnu/hdf5/openmpi:$rt/lib/x86_64-linux-gnu:\${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PMIX_MCA_pcompress_base_silence_warning=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
EOT
echo "setup.sh: runtime in $rt; run: . $rt/env.sh"
EOF
echo "gpu-runtime.sh: $(ls "$dir"/*.deb | wc -l) packages, $(du -sh "$dir" | cut -f1) in $dir"

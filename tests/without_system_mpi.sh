# Sourced by tests/test_wheel.sh: without_system_mpi CMD... runs CMD in a private mount namespace
# (unshare -m; needs root) where the system's Open MPI, PMIx, HDF5 and the libraries olive's wheel
# vendors besides them are empty files, and the compilers, headers and CUDA toolkit empty folders:
# a machine with the base system only, as far as olive's programs can tell.
without_system_mpi() {
  unshare -m bash -c '
    set -e
    empty=$(mktemp -d)
    for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/lib/x86_64-linux-gnu/hdf5 \
             /usr/share/openmpi /etc/openmpi /usr/include /usr/local/cuda /usr/lib/gcc; do
      [ -d "$d" ] && mount --bind "$empty" "$(readlink -f "$d")"
    done
    for f in /usr/lib/x86_64-linux-gnu/lib{mpi,open-rte,open-pal,hdf5,pmix,hwloc,event,json-c,sz,aec,gomp,curl}*.so* \
             /usr/bin/{orted,orterun,mpirun,mpicc,gcc,cc,c99,nvcc} /usr/bin/x86_64-linux-gnu-gcc*; do
      [ -e "$f" ] && mount --bind /dev/null "$(readlink -f "$f")"
    done
    exec "$@"' hide "$@"
}

#!/usr/bin/env bash
# Install the Debian packages olive needs, only those that are missing.
# Run by `make deps` (and so by `make demo` and `make check`).
# --fuzz: only what `make fuzz` needs besides those (clang with libFuzzer and
# its sanitizer runtimes); `make check` never installs it.
# --peers: the peer simulators `make check` compares with (Brian2, Debian's
# python3-brian, which compiles its C++ standalone code with g++; scipy for
# the statistical tests).
set -euo pipefail
pkgs=(build-essential pkg-config libhdf5-openmpi-dev hdf5-tools openmpi-bin libopenmpi-dev
      zlib1g-dev librandom123-dev libjson-c-dev libcairo2-dev python3 python3-h5py python3-numpy python3-venv
      help2man procps)
[ "${1:-}" = --fuzz ] && pkgs=(clang libclang-rt-14-dev)
[ "${1:-}" = --peers ] && pkgs=(python3-brian python3-scipy g++)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "olive: installing missing Debian packages: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2

#!/bin/sh
# Installs what the build needs on a Debian machine, when run as root and
# something is missing: compilers, CMake, the OpenCL headers and ICD loader,
# PoCL (OpenCL on the CPU), OpenBLAS, CLBlast, stb, cJSON. Elsewhere it only says
# what is missing; the build then leaves out what it cannot find.
set -eu
pkgs="gcc make cmake pkg-config libomp-dev opencl-c-headers opencl-headers ocl-icd-opencl-dev
      pocl-opencl-icd clinfo libopenblas-dev libclblast-dev libstb-dev libcjson-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
    echo "setup: missing Debian packages:$missing (run 'make setup' as root to install them)" >&2
fi

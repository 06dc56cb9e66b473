#!/bin/sh
# Installs what the build needs on a Debian machine, when run as root and
# something is missing: compilers, CMake, the OpenCL headers and ICD loader,
# PoCL (OpenCL on the CPU), OpenBLAS, CLBlast, stb, cJSON (result files), giflib
# (--gif), the Vulkan loader and headers, Mesa's lavapipe (Vulkan on the CPU),
# EGL and the OpenGL headers with Mesa's llvmpipe (OpenGL on the CPU), shaderc with the static glslang and SPIRV-Tools libraries it links with, Open
# MPI (coalesce-mpi); for the tests python3-opencv, numpy, pytest, jsonschema, PIL
# and chromium (the report). Elsewhere it only says what is missing; the build then leaves out
# what it cannot find.
set -eu
pkgs="gcc make cmake pkg-config libomp-dev opencl-c-headers opencl-headers ocl-icd-opencl-dev
      pocl-opencl-icd clinfo libopenblas-dev libclblast-dev libstb-dev libcjson-dev libgif-dev
      libvulkan-dev mesa-vulkan-drivers libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
      libshaderc-dev glslang-dev spirv-tools vulkan-tools
      python3-numpy python3-pytest python3-opencv python3-jsonschema python3-pil chromium
      clang-format libopenmpi-dev openmpi-bin"
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

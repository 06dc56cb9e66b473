#!/bin/sh
# Downloads Open MPI (Debian's: openmpi-bin, libopenmpi3, libopenmpi-dev) and the runtime
# libraries it links that a GPU machine may lack, as .deb files, into DIR (default .mpi),
# with mpi-env.sh beside them. Run where Debian's packages can be reached; carry DIR to
# the machine (keep it out of git: /.mpi/ is in .gitignore) and there
#   source DIR/mpi-env.sh
# which unpacks them (dpkg -x) under a prefix and sets PATH, LD_LIBRARY_PATH, OPAL_PREFIX,
# PMIX_INSTALL_PREFIX and CMAKE_PREFIX_PATH, so that CMake finds MPI and mpirun runs.
set -eu
dir=${1:-.mpi}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
apt-get update -qq >/dev/null 2>&1 || true
# What libmpi, the MCA components, mpirun and PMIx link (ldd), less the base system
# (libc6, zlib1g, libudev1, libuuid1).
pkgs="openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15
      libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1
      ibverbs-providers librdmacm1 libpsm2-2 libpsm-infinipath1 libnl-3-200 libnl-route-3-200
      libmunge2 libnuma1 libatomic1"
(cd "$dir" && chmod 777 . && apt-get download -qq $pkgs 2>/dev/null)
cp "$here/mpi-env.sh" "$dir/"
du -sh "$dir"

# Source this (bash) on a machine without Open MPI: `source .mpi/mpi-env.sh`, the .deb files
# of scripts/mpi-debs.sh beside it. Unpacks them under /opt/mpideps (once; MPI_ROOT to choose
# another place) and points the shell at them: mpirun and mpicc on PATH, the libraries on
# LD_LIBRARY_PATH, OPAL_PREFIX (Open MPI finds its components and help files under it) and
# PMIX_INSTALL_PREFIX (PMIx its plugins), CMAKE_PREFIX_PATH and MPI_HOME for FindMPI.
_mpi_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_root=${MPI_ROOT:-/opt/mpideps}
if [ ! -d "$_root/usr/lib/x86_64-linux-gnu/openmpi" ]; then
  mkdir -p "$_root"
  for f in "$_mpi_dir"/*.deb; do dpkg -x "$f" "$_root"; done
  # Debian makes mpicc, mpirun and mpiexec with update-alternatives, which dpkg -x does not run.
  for t in mpicc mpirun mpiexec; do
    [ -e "$_root/usr/bin/$t" ] || ln -s "$t.openmpi" "$_root/usr/bin/$t"
  done
  # The same for the development symlink of libmpi.
  _ompi=$_root/usr/lib/x86_64-linux-gnu/openmpi
  [ -e "$_root/usr/lib/x86_64-linux-gnu/libmpi.so" ] || ln -s openmpi/lib/libmpi.so "$_root/usr/lib/x86_64-linux-gnu/libmpi.so"
fi
_lib=$_root/usr/lib/x86_64-linux-gnu
export OPAL_PREFIX="$_root/usr"
export PMIX_INSTALL_PREFIX="$_lib/pmix2"
export PATH="$_root/usr/bin:$PATH"
export LD_LIBRARY_PATH="$_lib:$_lib/openmpi/lib:$_lib/pmix2/lib:$_lib/libfabric${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CMAKE_PREFIX_PATH="$_root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export MPI_HOME="$_lib/openmpi"
# mpirun as root (the lent machines): Open MPI refuses to start without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset _mpi_dir _root _lib _ompi

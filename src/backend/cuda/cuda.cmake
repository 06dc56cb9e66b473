# The cuda backend and the cuBLAS and NPP anchors, include()d from the top
# CMakeLists.txt before the library target is made. Only headers are needed
# at build time (none for NPP): libcuda, libnvrtc, libcublas and libnppif are
# opened with dlopen when the program runs. Without cuda.h and nvrtc.h the
# backend is a stub that says so.
#
# In:  COALESCE_SOURCES, COALESCE_DEFINITIONS, COALESCE_LIBS (lists, appended to)
# Out: COALESCE_CUDA_HEADERS  the CUDA include directory, or empty if not found
#      COALESCE_HAVE_CUDA     ON when the real backend is built
set(_co_cuda_dir ${CMAKE_CURRENT_LIST_DIR})
get_filename_component(_co_src_dir ${_co_cuda_dir}/../.. ABSOLUTE)

find_package(CUDAToolkit QUIET)
find_path(COALESCE_CUDA_INCLUDE_DIR cuda.h
          HINTS ${CUDAToolkit_INCLUDE_DIRS} $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include
                /usr/local/cuda/include /opt/cuda/include)

set(COALESCE_CUDA_HEADERS "")
set(COALESCE_HAVE_CUDA OFF)
if(COALESCE_CUDA_INCLUDE_DIR AND EXISTS ${COALESCE_CUDA_INCLUDE_DIR}/nvrtc.h)
  set(COALESCE_CUDA_HEADERS ${COALESCE_CUDA_INCLUDE_DIR})
  set(COALESCE_HAVE_CUDA ON)
  set(_co_cuda_files ${_co_cuda_dir}/cuda.c ${_co_src_dir}/anchors/cublas.c)
  list(APPEND COALESCE_SOURCES ${_co_cuda_files} ${_co_src_dir}/anchors/npp.c)
  list(APPEND COALESCE_DEFINITIONS COALESCE_HAVE_CUDA)
  # The CUDA include directory only for these files: older toolkits ship
  # their own CL/cl.h, which must not shadow the OpenCL headers elsewhere.
  set_property(SOURCE ${_co_cuda_files} APPEND PROPERTY INCLUDE_DIRECTORIES
               ${COALESCE_CUDA_INCLUDE_DIR})
  if(EXISTS ${COALESCE_CUDA_INCLUDE_DIR}/cublas_v2.h)
    set_property(SOURCE ${_co_src_dir}/anchors/cublas.c APPEND PROPERTY COMPILE_DEFINITIONS
                 COALESCE_HAVE_CUBLAS)
  endif()
else()
  # No headers: the stub backend, and the anchor's own stub (no COALESCE_HAVE_CUBLAS).
  list(APPEND COALESCE_SOURCES ${_co_cuda_dir}/cuda_stub.c ${_co_src_dir}/anchors/cublas.c
       ${_co_src_dir}/anchors/npp.c)
endif()
list(APPEND COALESCE_LIBS ${CMAKE_DL_LIBS})

# The opengl backend, include()d from the top CMakeLists.txt after
# glsl.cmake (the shader compiler it needs). Built needs the EGL and OpenGL
# headers (libegl-dev, libgl-dev); libEGL.so.1 is opened with dlopen when
# the program runs, so a machine without it lists the backend as
# unavailable. Without the headers or the shader compiler the backend is a
# stub that says which is missing.
#
# In:  COALESCE_SOURCES, COALESCE_DEFINITIONS, COALESCE_LIBS (lists, appended to),
#      COALESCE_HAVE_GLSL, COALESCE_GLSL_MISSING
# Out: COALESCE_HAVE_OPENGL  ON when the real backend is built
set(_co_gl_dir ${CMAKE_CURRENT_LIST_DIR})
find_path(COALESCE_EGL_INCLUDE_DIR EGL/egl.h)
find_path(COALESCE_GLCOREARB_INCLUDE_DIR GL/glcorearb.h)

set(COALESCE_HAVE_OPENGL OFF)
if(COALESCE_EGL_INCLUDE_DIR AND COALESCE_GLCOREARB_INCLUDE_DIR AND COALESCE_HAVE_GLSL)
  set(COALESCE_HAVE_OPENGL ON)
  list(APPEND COALESCE_SOURCES ${_co_gl_dir}/opengl.c)
  list(APPEND COALESCE_DEFINITIONS COALESCE_HAVE_OPENGL)
else()
  set(_co_gl_why "${COALESCE_GLSL_MISSING}")
  if(NOT COALESCE_EGL_INCLUDE_DIR OR NOT COALESCE_GLCOREARB_INCLUDE_DIR)
    string(APPEND _co_gl_why "no EGL or OpenGL headers (libegl-dev, libgl-dev); ")
  endif()
  string(REGEX REPLACE "; $" "" _co_gl_why "${_co_gl_why}")
  list(APPEND COALESCE_SOURCES ${_co_gl_dir}/opengl_stub.c)
  set_property(SOURCE ${_co_gl_dir}/opengl_stub.c APPEND PROPERTY COMPILE_DEFINITIONS
               "COALESCE_OPENGL_MISSING=\"${_co_gl_why}\"")
endif()

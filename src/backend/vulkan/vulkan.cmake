# The vulkan backend, include()d from the top CMakeLists.txt after
# glsl.cmake (the shader compiler it needs) and before the library target
# is made. Built needs the Vulkan headers; the loader libvulkan.so.1 is
# opened with dlopen when the program runs, so a machine without it lists
# the backend as unavailable. Without the headers or the shader compiler
# the backend is a stub that says which is missing.
#
# In:  COALESCE_SOURCES, COALESCE_DEFINITIONS, COALESCE_LIBS (lists, appended to),
#      COALESCE_HAVE_GLSL, COALESCE_GLSL_MISSING
# Out: COALESCE_HAVE_VULKAN  ON when the real backend is built
set(_co_vk_dir ${CMAKE_CURRENT_LIST_DIR})
find_path(COALESCE_VULKAN_INCLUDE_DIR vulkan/vulkan.h)

set(COALESCE_HAVE_VULKAN OFF)
if(COALESCE_VULKAN_INCLUDE_DIR AND COALESCE_HAVE_GLSL)
  set(COALESCE_HAVE_VULKAN ON)
  list(APPEND COALESCE_SOURCES ${_co_vk_dir}/vulkan.c)
  list(APPEND COALESCE_DEFINITIONS COALESCE_HAVE_VULKAN)
else()
  set(_co_vk_why "${COALESCE_GLSL_MISSING}")
  if(NOT COALESCE_VULKAN_INCLUDE_DIR)
    string(APPEND _co_vk_why "no Vulkan headers (libvulkan-dev); ")
  endif()
  string(REGEX REPLACE "; $" "" _co_vk_why "${_co_vk_why}")
  list(APPEND COALESCE_SOURCES ${_co_vk_dir}/vulkan_stub.c)
  set_property(SOURCE ${_co_vk_dir}/vulkan_stub.c APPEND PROPERTY COMPILE_DEFINITIONS
               "COALESCE_VULKAN_MISSING=\"${_co_vk_why}\"")
endif()
list(APPEND COALESCE_LIBS ${CMAKE_DL_LIBS})

# The vulkan backend, include()d from the top CMakeLists.txt before the
# library target is made. Built needs the Vulkan headers and shaderc (its
# static libraries: Bookworm's shared libshaderc.so lacks glslang's symbols);
# the loader libvulkan.so.1 is opened with dlopen when the program runs, so a
# machine without it lists the backend as unavailable. Without the headers or
# shaderc the backend is a stub that says which is missing.
#
# In:  COALESCE_SOURCES, COALESCE_DEFINITIONS, COALESCE_LIBS (lists, appended to)
# Out: COALESCE_HAVE_VULKAN  ON when the real backend is built
set(_co_vk_dir ${CMAKE_CURRENT_LIST_DIR})
find_path(COALESCE_VULKAN_INCLUDE_DIR vulkan/vulkan.h)
find_path(COALESCE_SHADERC_INCLUDE_DIR shaderc/shaderc.h)
find_library(COALESCE_SHADERC_LIBRARY NAMES libshaderc_combined.a shaderc_combined)
# `coalesce il`'s disassembler: SPIRV-Tools' C API (its static library is
# linked for shaderc already) and the SPIR-V enums.
find_path(COALESCE_SPIRV_TOOLS_INCLUDE_DIR spirv-tools/libspirv.h)
find_path(COALESCE_SPIRV_HEADERS_INCLUDE_DIR spirv/unified1/spirv.h)
set(_co_vk_static glslang SPIRV MachineIndependent OSDependent OGLCompiler GenericCodeGen
                  SPIRV-Tools-opt SPIRV-Tools)
set(_co_vk_libs "")
set(_co_vk_missing "")
foreach(lib IN LISTS _co_vk_static)
  find_library(COALESCE_VK_${lib} NAMES lib${lib}.a ${lib})
  if(COALESCE_VK_${lib})
    list(APPEND _co_vk_libs ${COALESCE_VK_${lib}})
  else()
    list(APPEND _co_vk_missing ${lib})
  endif()
endforeach()

set(COALESCE_HAVE_VULKAN OFF)
if(COALESCE_VULKAN_INCLUDE_DIR AND COALESCE_SHADERC_INCLUDE_DIR AND COALESCE_SHADERC_LIBRARY
   AND COALESCE_SPIRV_TOOLS_INCLUDE_DIR AND COALESCE_SPIRV_HEADERS_INCLUDE_DIR
   AND NOT _co_vk_missing)
  set(COALESCE_HAVE_VULKAN ON)
  list(APPEND COALESCE_SOURCES ${_co_vk_dir}/vulkan.c ${_co_vk_dir}/shaderc.c
       ${_co_vk_dir}/spirv.c)
  list(APPEND COALESCE_DEFINITIONS COALESCE_HAVE_VULKAN)
  # glslang's libraries refer to one another: one group, resolved together.
  list(APPEND COALESCE_LIBS -Wl,--start-group ${COALESCE_SHADERC_LIBRARY} ${_co_vk_libs}
       -Wl,--end-group stdc++ pthread)
else()
  set(_co_vk_why "")
  if(NOT COALESCE_VULKAN_INCLUDE_DIR)
    string(APPEND _co_vk_why "no Vulkan headers (libvulkan-dev); ")
  endif()
  if(NOT COALESCE_SHADERC_INCLUDE_DIR OR NOT COALESCE_SHADERC_LIBRARY)
    string(APPEND _co_vk_why "no shaderc (libshaderc-dev); ")
  endif()
  if(NOT COALESCE_SPIRV_TOOLS_INCLUDE_DIR OR NOT COALESCE_SPIRV_HEADERS_INCLUDE_DIR)
    string(APPEND _co_vk_why "no SPIRV-Tools or SPIR-V headers (spirv-tools, spirv-headers); ")
  endif()
  if(_co_vk_missing)
    string(APPEND _co_vk_why "no static ${_co_vk_missing} (glslang-dev, spirv-tools); ")
  endif()
  string(REGEX REPLACE "; $" "" _co_vk_why "${_co_vk_why}")
  list(APPEND COALESCE_SOURCES ${_co_vk_dir}/vulkan_stub.c)
  set_property(SOURCE ${_co_vk_dir}/vulkan_stub.c APPEND PROPERTY COMPILE_DEFINITIONS
               "COALESCE_VULKAN_MISSING=\"${_co_vk_why}\"")
endif()
list(APPEND COALESCE_LIBS ${CMAKE_DL_LIBS})

# What the GLSL backends (vulkan, opengl) share, include()d from the top
# CMakeLists.txt before them: shaderc to compile the shaders at run time
# (its static libraries: Bookworm's shared libshaderc.so lacks glslang's
# symbols) and SPIRV-Tools' C API with the SPIR-V enums to read modules.
#
# In:  COALESCE_SOURCES, COALESCE_LIBS (lists, appended to)
# Out: COALESCE_HAVE_GLSL  ON when shaders can be compiled;
#      COALESCE_GLSL_MISSING  what is missing otherwise (for the stubs)
set(_co_glsl_dir ${CMAKE_CURRENT_LIST_DIR})
find_path(COALESCE_SHADERC_INCLUDE_DIR shaderc/shaderc.h)
find_library(COALESCE_SHADERC_LIBRARY NAMES libshaderc_combined.a shaderc_combined)
find_path(COALESCE_SPIRV_TOOLS_INCLUDE_DIR spirv-tools/libspirv.h)
find_path(COALESCE_SPIRV_HEADERS_INCLUDE_DIR spirv/unified1/spirv.h)
set(_co_glsl_static glslang SPIRV MachineIndependent OSDependent OGLCompiler GenericCodeGen
                    SPIRV-Tools-opt SPIRV-Tools)
set(_co_glsl_libs "")
set(_co_glsl_missing "")
foreach(lib IN LISTS _co_glsl_static)
  find_library(COALESCE_VK_${lib} NAMES lib${lib}.a ${lib})
  if(COALESCE_VK_${lib})
    list(APPEND _co_glsl_libs ${COALESCE_VK_${lib}})
  else()
    list(APPEND _co_glsl_missing ${lib})
  endif()
endforeach()

set(COALESCE_HAVE_GLSL OFF)
set(COALESCE_GLSL_MISSING "")
if(COALESCE_SHADERC_INCLUDE_DIR AND COALESCE_SHADERC_LIBRARY AND COALESCE_SPIRV_TOOLS_INCLUDE_DIR
   AND COALESCE_SPIRV_HEADERS_INCLUDE_DIR AND NOT _co_glsl_missing)
  set(COALESCE_HAVE_GLSL ON)
  list(APPEND COALESCE_SOURCES ${_co_glsl_dir}/shaderc.c ${_co_glsl_dir}/spirv.c
       ${_co_glsl_dir}/glsl.c)
  # glslang's libraries refer to one another: one group, resolved together;
  # libm after it (a program that uses no maths itself links too).
  list(APPEND COALESCE_LIBS -Wl,--start-group ${COALESCE_SHADERC_LIBRARY} ${_co_glsl_libs}
       -Wl,--end-group stdc++ m pthread)
else()
  if(NOT COALESCE_SHADERC_INCLUDE_DIR OR NOT COALESCE_SHADERC_LIBRARY)
    string(APPEND COALESCE_GLSL_MISSING "no shaderc (libshaderc-dev); ")
  endif()
  if(NOT COALESCE_SPIRV_TOOLS_INCLUDE_DIR OR NOT COALESCE_SPIRV_HEADERS_INCLUDE_DIR)
    string(APPEND COALESCE_GLSL_MISSING
           "no SPIRV-Tools or SPIR-V headers (spirv-tools, spirv-headers); ")
  endif()
  if(_co_glsl_missing)
    string(APPEND COALESCE_GLSL_MISSING "no static ${_co_glsl_missing} (glslang-dev, spirv-tools); ")
  endif()
endif()

# What `cmake --install` puts in place, include()d at the end of the top
# CMakeLists.txt (after every backend has added to COALESCE_LIBS):
#
#   include/coalesce.h                       the API
#   lib/libcoalesce.so.0.1.0, .so.0, .so     soname libcoalesce.so.0
#   lib/libcoalesce.a                        the static library
#   lib/pkgconfig/coalesce.pc                pkg-config (Libs.private for --static)
#   lib/cmake/coalesce/                      find_package(coalesce): coalesce::coalesce,
#                                            coalesce::coalesce_static, a version file
#   bin/coalesce, share/man/man1/coalesce.1  the CLI and its man page
#
# In: COALESCE_LIBS (what the library links: targets, paths, names, flags).
include(CMakePackageConfigHelpers)

# COALESCE_LIBS as plain link items, for a client that links the static
# library: in pkg-config form (-L/-l, "pc") and in CMake form (full paths,
# names and flags, "cmake"). Imported targets resolve to their files, so a
# backend section that appends a target to COALESCE_LIBS needs nothing here.
function(_co_link_items pc_out cmake_out)
  set(pc "")
  set(cm "")
  foreach(item IN LISTS ARGN)
    if(item STREQUAL "OpenMP::OpenMP_C")
      # The compiler's own flag, not the runtime library it resolves to.
      separate_arguments(flags UNIX_COMMAND "${OpenMP_C_FLAGS}")
      list(APPEND pc ${flags})
      list(APPEND cm ${flags})
      continue()
    endif()
    set(path "")
    if(TARGET ${item})
      get_target_property(type ${item} TYPE)
      if(type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(deps ${item} INTERFACE_LINK_LIBRARIES)
        if(deps)
          _co_link_items(dpc dcm ${deps})
          list(APPEND pc ${dpc})
          list(APPEND cm ${dcm})
        endif()
        continue()
      endif()
      get_target_property(path ${item} IMPORTED_LOCATION)
      if(NOT path)
        get_target_property(configs ${item} IMPORTED_CONFIGURATIONS)
        if(configs)
          list(GET configs 0 config)
          get_target_property(path ${item} IMPORTED_LOCATION_${config})
        endif()
      endif()
      if(NOT path)
        # Not fatal: only a client's static link would miss it.
        message(WARNING "coalesce.pc, coalesce::coalesce_static: cannot tell which file the "
                        "target ${item} links; static clients must add it themselves")
        continue()
      endif()
    elseif(IS_ABSOLUTE "${item}")
      set(path "${item}")
    elseif(item MATCHES "^-")
      list(APPEND pc "${item}")
      list(APPEND cm "${item}")
      continue()
    else()
      list(APPEND pc "-l${item}")
      list(APPEND cm "${item}")
      continue()
    endif()
    list(APPEND cm "${path}")
    get_filename_component(dir "${path}" DIRECTORY)
    get_filename_component(file "${path}" NAME)
    string(REGEX REPLACE "^lib" "" name "${file}")
    string(REGEX REPLACE "\\.(so[.0-9]*|a)$" "" name "${name}")
    if(NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      list(APPEND pc "-L${dir}")
    endif()
    list(APPEND pc "-l${name}")
  endforeach()
  set(${pc_out} "${pc}" PARENT_SCOPE)
  set(${cmake_out} "${cm}" PARENT_SCOPE)
endfunction()

_co_link_items(_co_pc_libs _co_cmake_libs ${COALESCE_LIBS})
list(REMOVE_DUPLICATES _co_pc_libs)
list(REMOVE_DUPLICATES _co_cmake_libs)
target_link_libraries(coalesce_static PUBLIC "$<INSTALL_INTERFACE:${_co_cmake_libs}>")

# ---- pkg-config: relocatable (prefix from the .pc file's own place) ----
# Libs.private lists libraries, never Requires.private: the static library
# needs the shared OpenCL, CLBlast and OpenBLAS, and openblas.pc's own
# Libs.private (-lgfortran, for a static OpenBLAS) would be demanded too.
string(REPLACE ";" " " COALESCE_PC_LIBS_PRIVATE "${_co_pc_libs}")
set(_co_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
foreach(_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(COALESCE_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(COALESCE_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${_co_pcdir}")
  set(COALESCE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _rel /${_co_pcdir} /)
  string(REGEX REPLACE "/$" "" _rel "${_rel}")
  set(COALESCE_PC_PREFIX "\${pcfiledir}/${_rel}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/coalesce.pc.in ${CMAKE_BINARY_DIR}/coalesce.pc @ONLY)

# ---- install rules ----
install(TARGETS coalesce_shared coalesce_static EXPORT coalesceTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/coalesce.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS coalesce RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_BINARY_DIR}/coalesce.pc DESTINATION ${_co_pcdir})
install(FILES ${CMAKE_SOURCE_DIR}/docs/coalesce.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# ---- the CMake package: find_package(coalesce [0.1]) ----
set(_co_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/coalesce)
install(EXPORT coalesceTargets NAMESPACE coalesce:: DESTINATION ${_co_cmakedir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/coalesceConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/coalesceConfig.cmake
                              INSTALL_DESTINATION ${_co_cmakedir})
# Same major version: what the soname promises.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/coalesceConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/coalesceConfig.cmake
              ${CMAKE_BINARY_DIR}/coalesceConfigVersion.cmake
        DESTINATION ${_co_cmakedir})

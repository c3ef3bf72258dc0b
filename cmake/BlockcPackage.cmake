# blockc as a CMake package for users' projects, from the build tree
# (-Dblockc_DIR=<build dir>) and from `cmake --install`: blockc::runtime for the
# architecture this build targets, and blockc_add_kernels (BlockcKernels.cmake), which
# compiles with the host blockc. Included once from the top-level CMakeLists.txt after
# the runtime; the config files are written at the end of the top directory, when it
# is known whether this build has a compiler.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(BLOCKC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/blockc)
# BlockcKernels.cmake looks for a host blockc in this checkout's build folder.
set(BLOCKC_SOURCE_DIR ${PROJECT_SOURCE_DIR})

set_target_properties(blockc_runtime PROPERTIES EXPORT_NAME runtime)
install(TARGETS blockc_runtime EXPORT blockcTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
export(EXPORT blockcTargets NAMESPACE blockc:: FILE ${PROJECT_BINARY_DIR}/blockcTargets.cmake)
install(EXPORT blockcTargets NAMESPACE blockc:: DESTINATION ${BLOCKC_INSTALL_CMAKEDIR})

write_basic_package_version_file(${PROJECT_BINARY_DIR}/blockcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
configure_file(${CMAKE_CURRENT_LIST_DIR}/BlockcKernels.cmake
  ${PROJECT_BINARY_DIR}/BlockcKernels.cmake COPYONLY)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/BlockcKernels.cmake
  ${PROJECT_BINARY_DIR}/blockcConfigVersion.cmake DESTINATION ${BLOCKC_INSTALL_CMAKEDIR})

function(_blockc_write_package_config)
  # The compiler the package's blockc_add_kernels uses: this build's own blockc, or,
  # in a build without one (cross builds), the host blockc it was given.
  if(TARGET blockc AND NOT CMAKE_CROSSCOMPILING)
    install(TARGETS blockc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    set(build_compiler "$<TARGET_FILE:blockc>")
    set(install_compiler "\${_blockc_prefix}/${CMAKE_INSTALL_BINDIR}/blockc")
  else()
    if(NOT BLOCKC_COMPILER)
      find_program(BLOCKC_COMPILER blockc NO_CMAKE_FIND_ROOT_PATH
                   HINTS ${PROJECT_SOURCE_DIR}/build/bin ${PROJECT_SOURCE_DIR}/build/tools/blockc
                   DOC "The host blockc that compiles .bir files for blockc_add_kernels")
    endif()
    set(build_compiler "${BLOCKC_COMPILER}")
    set(install_compiler "${BLOCKC_COMPILER}")
  endif()
  set(template ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/blockcConfig.cmake.in)
  set(staging ${PROJECT_BINARY_DIR}/CMakeFiles/blockc-package)

  set(BLOCKC_CONFIG_KIND "the build tree's package (${PROJECT_BINARY_DIR})")
  set(BLOCKC_CONFIG_TO_PREFIX ".")
  set(BLOCKC_CONFIG_COMPILER "${build_compiler}")
  set(BLOCKC_CONFIG_SOURCE_DIR "${PROJECT_SOURCE_DIR}")
  configure_file(${template} ${staging}/build/blockcConfig.cmake @ONLY)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/blockcConfig.cmake
       INPUT ${staging}/build/blockcConfig.cmake)

  set(BLOCKC_CONFIG_KIND "installed by cmake --install")
  file(RELATIVE_PATH BLOCKC_CONFIG_TO_PREFIX /${BLOCKC_INSTALL_CMAKEDIR} /)
  set(BLOCKC_CONFIG_COMPILER "${install_compiler}")
  set(BLOCKC_CONFIG_SOURCE_DIR "")
  configure_file(${template} ${staging}/install/blockcConfig.cmake @ONLY)
  install(FILES ${staging}/install/blockcConfig.cmake DESTINATION ${BLOCKC_INSTALL_CMAKEDIR})
endfunction()
cmake_language(DEFER CALL _blockc_write_package_config)

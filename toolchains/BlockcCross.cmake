# Shared by the toolchain files in this folder (not a toolchain file itself).
#
# blockc_cross_toolchain(ARCH <arch> PREFIX <gnu triple>
#                        QEMU <program> SLEEF_DIR <third_party subfolder>
#                        TARGET <blockc target> TEST_TARGET <blockc target>)
# sets the cross compilers, the sysroot that find_* and QEMU use, the blockc targets,
# where SLEEF for the architecture lives, and checks that each exists: a missing piece
# stops the configuration with an error naming it and the Debian package that has it.
# The caller then sets CMAKE_CROSSCOMPILING_EMULATOR from BLOCKC_QEMU_PROGRAM, the
# sysroot and BLOCKC_SLEEF_LIBRARY_DIR.

get_filename_component(BLOCKC_REPO_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

function(blockc_toolchain_fail what variable value package)
  message(FATAL_ERROR
    "blockc toolchain ${CMAKE_CURRENT_LIST_FILE}: ${what} '${value}' not found "
    "(set by ${variable}). Install the Debian package ${package}, or point ${variable} "
    "at another one.")
endfunction()

# blockc_default_sleef_root(<out> <third_party subfolder>): where scripts/setup put
# SLEEF for the target: third_party/ of the build folder that holds the host blockc
# (BLOCKC_COMPILER, any folder above it), else of $BLOCKC_BUILD_DIR (as scripts/setup
# and scripts/build read it), else of this checkout's build/.
function(blockc_default_sleef_root out subfolder)
  set(candidates)
  if(BLOCKC_COMPILER)
    get_filename_component(folder "${BLOCKC_COMPILER}" DIRECTORY)
    while(folder AND NOT folder STREQUAL "/")
      list(APPEND candidates "${folder}")
      get_filename_component(parent "${folder}" DIRECTORY)
      if(parent STREQUAL folder)
        break()
      endif()
      set(folder "${parent}")
    endwhile()
  endif()
  if(DEFINED ENV{BLOCKC_BUILD_DIR})
    list(APPEND candidates "$ENV{BLOCKC_BUILD_DIR}")
  endif()
  list(APPEND candidates "${BLOCKC_REPO_DIR}/build")
  foreach(candidate IN LISTS candidates)
    if(EXISTS "${candidate}/third_party/${subfolder}/usr")
      set(${out} "${candidate}/third_party/${subfolder}/usr" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  # Nothing found: the checkout's default, which the missing-SLEEF error names.
  set(${out} "${BLOCKC_REPO_DIR}/build/third_party/${subfolder}/usr" PARENT_SCOPE)
endfunction()

macro(blockc_cross_toolchain)
  cmake_parse_arguments(_bc "" "ARCH;PREFIX;QEMU;SLEEF_DIR;TARGET;TEST_TARGET" ""
                        ${ARGN})
  set(CMAKE_SYSTEM_NAME Linux)
  set(CMAKE_SYSTEM_PROCESSOR ${_bc_ARCH})

  set(BLOCKC_TARGET ${_bc_TARGET} CACHE STRING
      "blockc --target of the kernels blockc_add_kernels builds (the code users deploy)")
  set(BLOCKC_TEST_TARGET ${_bc_TEST_TARGET} CACHE STRING
      "blockc --target of the kernels that ctest runs under QEMU")
  set(BLOCKC_SYSROOT /usr/${_bc_PREFIX} CACHE PATH
      "Target libraries and headers: find_* search here, QEMU loads from here (-L)")
  set(BLOCKC_QEMU ${_bc_QEMU} CACHE STRING
      "QEMU user-mode emulator that runs the tests; empty: none (ctest cannot run them)")
  blockc_default_sleef_root(_bc_sleef_root ${_bc_SLEEF_DIR})
  set(BLOCKC_SLEEF_ROOT "${_bc_sleef_root}" CACHE PATH
      "SLEEF for the target (lib/${_bc_PREFIX}/libsleef.so); scripts/setup fetches it into BUILD_DIR/third_party")
  # try_compile projects read this file again: give them the same choices.
  list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES BLOCKC_SYSROOT BLOCKC_QEMU BLOCKC_SLEEF_ROOT)

  # Compilers: the cross GCC, whose libgomp is OpenMP on the target (clang's -fopenmp
  # would need a target libomp, which Debian 12 lacks).
  foreach(_bc_lang C CXX)
    if(_bc_lang STREQUAL "C")
      set(_bc_name ${_bc_PREFIX}-gcc)
      set(_bc_package gcc-${_bc_PREFIX})
    else()
      set(_bc_name ${_bc_PREFIX}-g++)
      set(_bc_package g++-${_bc_PREFIX})
    endif()
    if(NOT CMAKE_${_bc_lang}_COMPILER)
      find_program(_bc_found ${_bc_name} NO_CACHE)
      if(NOT _bc_found)
        blockc_toolchain_fail("cross compiler" CMAKE_${_bc_lang}_COMPILER ${_bc_name} ${_bc_package})
      endif()
      set(CMAKE_${_bc_lang}_COMPILER ${_bc_found})
      unset(_bc_found)
    endif()
  endforeach()

  if(NOT EXISTS "${BLOCKC_SYSROOT}/lib")
    blockc_toolchain_fail("sysroot" BLOCKC_SYSROOT "${BLOCKC_SYSROOT}"
                          "libc6-dev-${_bc_ARCH}-cross (installed with g++-${_bc_PREFIX})")
  endif()
  set(CMAKE_FIND_ROOT_PATH ${BLOCKC_SYSROOT})
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

  unset(BLOCKC_QEMU_PROGRAM)
  if(NOT BLOCKC_QEMU STREQUAL "")
    find_program(BLOCKC_QEMU_PROGRAM ${BLOCKC_QEMU} NO_CACHE)
    if(NOT BLOCKC_QEMU_PROGRAM)
      blockc_toolchain_fail("QEMU emulator" BLOCKC_QEMU "${BLOCKC_QEMU}" "qemu-user")
    endif()
  endif()
  # Not checked here: only kernels need SLEEF, and blockc_add_kernels says where it
  # looked when it is missing. The runtime library alone builds without it.
  set(BLOCKC_SLEEF_LIBRARY_DIR "${BLOCKC_SLEEF_ROOT}/lib/${_bc_PREFIX}")
endmacro()

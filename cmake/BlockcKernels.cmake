# blockc_add_kernels: ahead-of-time compiled Block IR kernels in a CMake target.
#
#   find_package(blockc REQUIRED)
#   add_executable(app main.c)
#   blockc_add_kernels(TARGET app
#                      SOURCES kernels/softmax.bir kernels/vector_add.bir
#                      DEFINES BLOCK=1024              # -D for every source (optional)
#                      BLOCKC_TARGET spacemit-k1       # default: ${BLOCKC_TARGET}, else host
#                      OPTIONS --fast-math)            # more `blockc compile` flags (optional)
#
# At build time each FILE.bir becomes FILE.o and FILE.h (`blockc compile --emit=obj` and
# `--emit=header`) in ${CMAKE_CURRENT_BINARY_DIR}/blockc/<target>/; editing a .bir, or a
# new blockc, rebuilds them. The objects are linked into TARGET, the folder of headers
# is on its include path (`#include "softmax.h"`), and TARGET links blockc::runtime
# (whose static library brings OpenMP), SLEEF for the architecture (blockc::sleef) and
# libm. Kernels that need different -D values, or another target, take another call
# (each .bir once per TARGET: its kernels' symbols are the kernels' names).
#
# Variables read (cache variables the toolchain files in blockc's toolchains/ set):
#   BLOCKC_COMPILER    the host blockc binary; default: the one this package was built
#                      with, else <blockc source>/build/bin/blockc or
#                      build/tools/blockc/blockc, else `blockc` on PATH
#   BLOCKC_TARGET      default --target; without it `host` (native builds only)
#   BLOCKC_SLEEF_ROOT  SLEEF's prefix (holding lib/<multiarch>/libsleef.so); empty or
#                      unset: the system's SLEEF (libsleef-dev)

# The host blockc. A native build of blockc itself uses its own `blockc` target, so
# that a rebuilt compiler recompiles the kernels; anything else looks for a binary.
function(_blockc_resolve_compiler out_command out_depends)
  if(NOT BLOCKC_COMPILER AND TARGET blockc AND NOT CMAKE_CROSSCOMPILING)
    set(${out_command} "$<TARGET_FILE:blockc>" PARENT_SCOPE)
    set(${out_depends} blockc PARENT_SCOPE)
    return()
  endif()
  if(NOT BLOCKC_COMPILER)
    set(hints "")
    if(BLOCKC_PACKAGE_COMPILER)
      get_filename_component(dir "${BLOCKC_PACKAGE_COMPILER}" DIRECTORY)
      list(APPEND hints "${dir}")
    endif()
    if(BLOCKC_SOURCE_DIR)
      list(APPEND hints "${BLOCKC_SOURCE_DIR}/build/bin" "${BLOCKC_SOURCE_DIR}/build/tools/blockc")
    endif()
    find_program(BLOCKC_COMPILER blockc HINTS ${hints} NO_CMAKE_FIND_ROOT_PATH
                 DOC "The host blockc that compiles .bir files for blockc_add_kernels")
  endif()
  if(NOT BLOCKC_COMPILER OR NOT EXISTS "${BLOCKC_COMPILER}")
    message(FATAL_ERROR
      "blockc_add_kernels: no host blockc compiler (BLOCKC_COMPILER is '${BLOCKC_COMPILER}'). "
      "Build one first (scripts/build in the blockc checkout makes build/tools/blockc/blockc), "
      "then pass -DBLOCKC_COMPILER=/path/to/blockc or put it on PATH.")
  endif()
  set(${out_command} "${BLOCKC_COMPILER}" PARENT_SCOPE)
  set(${out_depends} "${BLOCKC_COMPILER}" PARENT_SCOPE)
endfunction()

# blockc::sleef: the SLEEF library kernels call for vector math, for the architecture
# being built (cross builds must not pick up the host's).
function(_blockc_resolve_sleef)
  if(TARGET blockc::sleef)
    return()
  endif()
  set(root "${BLOCKC_SLEEF_ROOT}")
  if(NOT DEFINED BLOCKC_SLEEF_ROOT AND BLOCKC_PACKAGE_SLEEF_ROOT)
    set(root "${BLOCKC_PACKAGE_SLEEF_ROOT}")
  endif()
  if(root)
    file(GLOB multiarch_dirs LIST_DIRECTORIES true "${root}/lib/*-linux-gnu*")
    find_library(BLOCKC_SLEEF_LIBRARY sleef PATHS ${multiarch_dirs} "${root}/lib" "${root}/lib64"
                 NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
    set(where "in ${root}/lib (BLOCKC_SLEEF_ROOT); scripts/setup in the blockc checkout "
              "fetches SLEEF for riscv64 and arm64 into build/third_party/")
  else()
    find_library(BLOCKC_SLEEF_LIBRARY sleef)
    set(where "on the system (Debian package libsleef-dev), nor is BLOCKC_SLEEF_ROOT set")
  endif()
  if(NOT BLOCKC_SLEEF_LIBRARY)
    message(FATAL_ERROR "blockc_add_kernels: kernels call SLEEF, and no libsleef was found "
                        ${where})
  endif()
  add_library(blockc::sleef UNKNOWN IMPORTED GLOBAL)
  set_target_properties(blockc::sleef PROPERTIES IMPORTED_LOCATION "${BLOCKC_SLEEF_LIBRARY}")
endfunction()

function(blockc_add_kernels)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;BLOCKC_TARGET" "SOURCES;DEFINES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "blockc_add_kernels: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TARGET OR NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "blockc_add_kernels: TARGET '${arg_TARGET}' is not a target")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "blockc_add_kernels(TARGET ${arg_TARGET}): no SOURCES")
  endif()
  set(target "${arg_BLOCKC_TARGET}")
  if(NOT target)
    set(target "${BLOCKC_TARGET}")
  endif()
  if(NOT target)
    set(target "${BLOCKC_PACKAGE_TARGET}")
  endif()
  if(NOT target)
    if(CMAKE_CROSSCOMPILING)
      message(FATAL_ERROR "blockc_add_kernels(TARGET ${arg_TARGET}): cross compiling, and no "
                          "blockc target: set BLOCKC_TARGET (the toolchain files in blockc's "
                          "toolchains/ do) or pass BLOCKC_TARGET to the call")
    endif()
    set(target host)
  endif()

  _blockc_resolve_compiler(compiler compiler_depends)
  _blockc_resolve_sleef()

  set(flags --target ${target})
  foreach(define IN LISTS arg_DEFINES)
    list(APPEND flags -D ${define})
  endforeach()
  list(APPEND flags ${arg_OPTIONS})

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/blockc/${arg_TARGET}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(outputs "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${source}" NAME_WE)
    set(object "${out_dir}/${name}.o")
    set(header "${out_dir}/${name}.h")
    add_custom_command(
      OUTPUT "${object}" "${header}"
      COMMAND ${compiler} compile "${source}" ${flags} --emit=obj -o "${object}"
      COMMAND ${compiler} compile "${source}" ${flags} --emit=header -o "${header}"
      DEPENDS "${source}" ${compiler_depends}
      COMMENT "blockc: ${name}.bir for ${target}"
      VERBATIM)
    set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    list(APPEND outputs "${object}" "${header}")
  endforeach()

  target_sources(${arg_TARGET} PRIVATE ${outputs})
  target_include_directories(${arg_TARGET} PRIVATE "${out_dir}")
  target_link_libraries(${arg_TARGET} PRIVATE blockc::runtime blockc::sleef m)
endfunction()

# Builds blockc itself (the compiler, the JIT, `blockc`) for a Debian 13 machine of
# another architecture, riscv64 or aarch64 (a SpacemiT K1 with Debian 13 or Bianbu, an
# Arm server), from x86-64, against that machine's userland:
#   scripts/setup          # unpacks build/third_party/debian13-{riscv64,arm64}
#   cmake -B build-rv -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/debian13-blockc.cmake \
#         -DBLOCKC_HOST_ARCH=riscv64 -DBLOCKC_BUILD_TESTS=OFF -DBLOCKC_BUILD_BENCHMARKS=OFF
#   cmake --build build-rv --target blockc
# The result runs on the board, or here under QEMU with the same userland:
#   qemu-riscv64 -cpu rv64,v=true,vlen=256 -L build/third_party/debian13-riscv64 \
#     build-rv/tools/blockc/blockc targets
# On the board itself no toolchain file is needed: scripts/setup and scripts/build
# (docs/k1.md, "Developing on the board").
#
#   BLOCKC_HOST_ARCH   riscv64, aarch64, or x86_64 (Debian 13 on this architecture)
#   BLOCKC_USERLAND    the unpacked Debian 13 root (default: third_party/debian13-ARCH
#                      of this checkout's build folder, as scripts/setup makes it)

set(BLOCKC_HOST_ARCH "riscv64" CACHE STRING
    "The architecture blockc is built for: riscv64, aarch64 or x86_64")
set_property(CACHE BLOCKC_HOST_ARCH PROPERTY STRINGS riscv64 aarch64 x86_64)
if(BLOCKC_HOST_ARCH STREQUAL "riscv64")
  set(debian_arch riscv64)
  set(triple riscv64-linux-gnu)
elseif(BLOCKC_HOST_ARCH STREQUAL "aarch64")
  set(debian_arch arm64)
  set(triple aarch64-linux-gnu)
elseif(BLOCKC_HOST_ARCH STREQUAL "x86_64")
  # This machine's architecture, another release: blockc and its Python module for
  # Debian 13's Python 3.13, NumPy 2 and torch 2 (tests/host, label python-modern).
  set(debian_arch amd64)
  set(triple x86_64-linux-gnu)
else()
  message(FATAL_ERROR "blockc toolchain ${CMAKE_CURRENT_LIST_FILE}: BLOCKC_HOST_ARCH is "
                      "'${BLOCKC_HOST_ARCH}'; expected riscv64, aarch64 or x86_64")
endif()
get_filename_component(repo "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(BLOCKC_USERLAND "${repo}/build/third_party/debian13-${debian_arch}" CACHE PATH
    "The Debian 13 userland blockc is built against")
foreach(piece usr/lib/llvm-22/lib/cmake/llvm/LLVMConfig.cmake
              usr/lib/${triple}/libsleef.so usr/lib/${triple}/libomp.so)
  if(NOT EXISTS "${BLOCKC_USERLAND}/${piece}")
    message(FATAL_ERROR "blockc toolchain ${CMAKE_CURRENT_LIST_FILE}: '${BLOCKC_USERLAND}/${piece}' "
                        "not found (BLOCKC_USERLAND). Run scripts/setup, which unpacks the "
                        "Debian 13 userland there, or point BLOCKC_USERLAND at one.")
  endif()
endforeach()

# try_compile projects read this file again: they must see the same choices.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES BLOCKC_HOST_ARCH BLOCKC_USERLAND)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${BLOCKC_HOST_ARCH})
set(CMAKE_SYSROOT "${BLOCKC_USERLAND}")
# clang builds for any target; the userland brings the target's libraries, GCC's
# start files and libstdc++. lld links, as binutils here link x86 only.
set(CMAKE_C_COMPILER clang-22)
set(CMAKE_CXX_COMPILER clang++-22)
set(CMAKE_C_COMPILER_TARGET ${triple})
set(CMAKE_CXX_COMPILER_TARGET ${triple})
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-fuse-ld=lld")
endforeach()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The whole compiler, as on an x86 host; not the board-only runtime build.
set(BLOCKC_BUILD_COMPILER ON CACHE BOOL "" FORCE)
set(BLOCKC_BUILD_FUZZERS OFF CACHE BOOL "" FORCE)

# Cross build for AArch64 with SVE from x86-64.
#   cmake -B build-arm -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-sve.cmake \
#         -DBLOCKC_BUILD_COMPILER=OFF -DBLOCKC_BUILD_TESTS=OFF
# Cross-built tests (a later step: none exists yet) will run through QEMU with
# BLOCKC_QEMU_SVE_BITS-bit vectors, the emulator set below.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_C_FLAGS_INIT "-march=armv8.2-a+sve")
set(CMAKE_CXX_FLAGS_INIT "-march=armv8.2-a+sve")
set(BLOCKC_QEMU_SVE_BITS 256 CACHE STRING "SVE vector length QEMU emulates for ctest")
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-aarch64 -cpu max,sve${BLOCKC_QEMU_SVE_BITS}=on -L /usr/aarch64-linux-gnu)

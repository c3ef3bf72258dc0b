# Cross build for the SpacemiT K1 (riscv64, RVV 1.0, VLEN 256) from x86-64.
#   cmake -B build-k1 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/riscv64-k1.cmake \
#         -DBLOCKC_BUILD_COMPILER=OFF -DBLOCKC_BUILD_TESTS=OFF
# builds what a board needs (frontend, runtime), without LLVM. Cross-built tests
# (a later step; GoogleTest must then be built for the target) run through
# QEMU; BLOCKC_QEMU_VLEN picks the vector length it emulates (128, 256, 512).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(CMAKE_C_COMPILER riscv64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER riscv64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/riscv64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The K1's ISA minus zicond, which QEMU 7.2 cannot run (ENVIRONMENT.md).
set(CMAKE_C_FLAGS_INIT "-march=rv64gcv_zba_zbb_zbs_zbc_zfh")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gcv_zba_zbb_zbs_zbc_zfh")
set(BLOCKC_QEMU_VLEN 256 CACHE STRING "RVV vector length QEMU emulates for ctest")
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-riscv64 -cpu rv64,v=true,vlen=${BLOCKC_QEMU_VLEN},elen=64,vext_spec=v1.0,zba=true,zbb=true,zbc=true,zbs=true,Zfh=true,Zfhmin=true
    -L /usr/riscv64-linux-gnu)

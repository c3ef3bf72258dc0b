# Cross build for the SpacemiT K1 (8 X60 cores, riscv64 RVV 1.0 at VLEN 256, IME)
# from x86-64, with the Debian cross GCC, its libgomp for OpenMP, and SLEEF 3.6 (RVV):
#   scripts/setup && scripts/build      # the host blockc that compiles the kernels
#   cmake -B build-k1 -DCMAKE_TOOLCHAIN_FILE=toolchains/riscv64-spacemit-k1.cmake
#   cmake --build build-k1 && ctest --test-dir build-k1
# builds the runtime (no LLVM) and the examples AOT-compiled for BLOCKC_TEST_TARGET, and
# runs them under QEMU at BLOCKC_QEMU_VLEN. Users' projects take the same file and
# find_package(blockc) (docs/k1.md).
#
# Two blockc targets, because QEMU 7.2 cannot run two extensions the K1 has:
#   BLOCKC_TARGET       spacemit-k1: the board's full ISA (zicond, xsmtvdot/IME); what
#                       blockc_add_kernels compiles by default, the code you deploy.
#   BLOCKC_TEST_TARGET  spacemit-k1-qemu: the same minus zicond and xsmtvdot; what this
#                       project's own ctest compiles, since it runs under QEMU. A user
#                       project run under QEMU passes -DBLOCKC_TARGET=spacemit-k1-qemu.
include(${CMAKE_CURRENT_LIST_DIR}/BlockcCross.cmake)
blockc_cross_toolchain(ARCH riscv64 PREFIX riscv64-linux-gnu QEMU qemu-riscv64
                       SLEEF_DIR sleef-riscv64
                       TARGET spacemit-k1 TEST_TARGET spacemit-k1-qemu)

# C and C++ code (the runtime, the app): the K1's ISA minus zicond, which GCC 12 does
# not know and QEMU 7.2 cannot run; it costs C code nothing measurable.
set(CMAKE_C_FLAGS_INIT "-march=rv64gcv_zba_zbb_zbs_zbc_zfh")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gcv_zba_zbb_zbs_zbc_zfh")

set(BLOCKC_QEMU_VLEN 256 CACHE STRING "RVV vector length in bits QEMU emulates: 128, 256 or 512")
set_property(CACHE BLOCKC_QEMU_VLEN PROPERTY STRINGS 128 256 512)
# spacemit-k1 and spacemit-k1-qemu assume VLEN >= 256 (zvl256b), as the K1 has;
# rv64gcv is the vector-length agnostic target that is correct at 128 too.
if(BLOCKC_QEMU_VLEN LESS 256 AND BLOCKC_TEST_TARGET MATCHES "^spacemit-k1")
  message(FATAL_ERROR
    "blockc toolchain ${CMAKE_CURRENT_LIST_FILE}: BLOCKC_QEMU_VLEN=${BLOCKC_QEMU_VLEN}, but "
    "BLOCKC_TEST_TARGET=${BLOCKC_TEST_TARGET} is compiled for VLEN >= 256 (zvl256b, like the "
    "K1) and may compute wrong results below it; at VLEN 128 test with "
    "-DBLOCKC_TEST_TARGET=rv64gcv")
endif()
if(BLOCKC_QEMU_PROGRAM)
  # The X60's extensions QEMU 7.2 has (no zicond, no xsmtvdot); no spacemit-x60 CPU model.
  set(CMAKE_CROSSCOMPILING_EMULATOR
      ${BLOCKC_QEMU_PROGRAM}
      -cpu rv64,v=true,vlen=${BLOCKC_QEMU_VLEN},elen=64,vext_spec=v1.0,zba=true,zbb=true,zbc=true,zbs=true,Zfh=true,Zfhmin=true
      -L ${BLOCKC_SYSROOT} -E LD_LIBRARY_PATH=${BLOCKC_SLEEF_LIBRARY_DIR})
endif()

# Cross build for AArch64 with SVE (Armv8.2-A) from x86-64, with the Debian cross GCC,
# its libgomp for OpenMP, and SLEEF 3.5 for arm64 (AdvSIMD and SVE variants):
#   scripts/setup && scripts/build      # the host blockc that compiles the kernels
#   cmake -B build-arm -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-sve.cmake
#   cmake --build build-arm && ctest --test-dir build-arm
# runs the AOT-compiled examples under QEMU with BLOCKC_QEMU_SVE_BITS-bit vectors.
# BLOCKC_TARGET: armv8.2-a+sve, vector-length agnostic, so the same code runs on any SVE
# width; neoverse-v1 (SVE 256) or armv8-a (NEON only) are the other AArch64 targets.
include(${CMAKE_CURRENT_LIST_DIR}/BlockcCross.cmake)
blockc_cross_toolchain(ARCH aarch64 PREFIX aarch64-linux-gnu QEMU qemu-aarch64
                       SLEEF_DIR sleef-aarch64
                       TARGET armv8.2-a+sve TEST_TARGET armv8.2-a+sve)

set(CMAKE_C_FLAGS_INIT "-march=armv8.2-a+sve")
set(CMAKE_CXX_FLAGS_INIT "-march=armv8.2-a+sve")

set(BLOCKC_QEMU_SVE_BITS 256 CACHE STRING "SVE vector length in bits QEMU emulates: 128 to 2048")
set_property(CACHE BLOCKC_QEMU_SVE_BITS PROPERTY STRINGS 128 256 512)
if(BLOCKC_QEMU_PROGRAM)
  # LD_LIBRARY_PATH names the sysroot's lib first: should arm64 libraries also be
  # installed through multiarch, -L alone loads a mismatched libc and threads hang.
  set(CMAKE_CROSSCOMPILING_EMULATOR
      ${BLOCKC_QEMU_PROGRAM} -cpu max,sve${BLOCKC_QEMU_SVE_BITS}=on
      -L ${BLOCKC_SYSROOT} -E LD_LIBRARY_PATH=${BLOCKC_SYSROOT}/lib:${BLOCKC_SLEEF_LIBRARY_DIR})
endif()

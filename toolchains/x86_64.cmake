# Native x86-64 build with the compilers blockc is tested with (clang-22, its libomp)
# and the system's SLEEF (libsleef-dev):
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/x86_64.cmake
# BLOCKC_TARGET is what blockc_add_kernels compiles for: x86-64-v3 (AVX2 + FMA) runs on
# any x86-64 of the last decade; x86-64-v4 (AVX-512), sapphirerapids (AMX) or host (this
# machine's CPU) are faster where they run. No emulator: tests run natively.
foreach(_bc_compiler clang-22 clang++-22)
  find_program(_bc_found ${_bc_compiler} NO_CACHE)
  if(NOT _bc_found)
    message(FATAL_ERROR "blockc toolchain ${CMAKE_CURRENT_LIST_FILE}: compiler '${_bc_compiler}' "
                        "not found. Install the Debian package clang-22.")
  endif()
  unset(_bc_found)
endforeach()
set(CMAKE_C_COMPILER clang-22)
set(CMAKE_CXX_COMPILER clang++-22)
set(BLOCKC_TARGET x86-64-v3 CACHE STRING
    "blockc --target of the kernels blockc_add_kernels builds (x86-64-v3, x86-64-v4, host, ...)")
set(BLOCKC_TEST_TARGET ${BLOCKC_TARGET} CACHE STRING
    "blockc --target of the kernels this project's ctest runs (natively here)")
set(BLOCKC_SLEEF_ROOT "" CACHE PATH "SLEEF's prefix; empty: the system's (libsleef-dev)")

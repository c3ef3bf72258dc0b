# Native x86-64 build with the compilers blockc is tested with (clang-22).
set(CMAKE_C_COMPILER clang-22)
set(CMAKE_CXX_COMPILER clang++-22)

# Precompiled headers for the targets whose sources spend most of their compile time
# parsing the same headers: a lowering source preprocesses to about 100,000 lines, most
# of them LLVM's IR headers, and a test source adds GoogleTest's 60,000. Parsing them
# once per target took a lowering source from 2.6 s to 1.6 s on the 2-core CI machine,
# where the test command builds blockc five times (plain, two sanitizers, two boards).
#
# BLOCKC_PRECOMPILED_HEADERS=OFF compiles every source on its own includes alone. The
# ThreadSanitizer build of scripts/test turns it off, so a source that compiles only
# because a precompiled header brought in what it forgot to include still fails there.
option(BLOCKC_PRECOMPILED_HEADERS
       "Parse LLVM's and GoogleTest's headers once per target (precompiled headers)" ON)

# What nearly every source of the compiler's libraries reaches through its own headers.
set(BLOCKC_LLVM_PRECOMPILED_HEADERS
    <algorithm> <functional> <map> <memory> <optional> <string> <unordered_map> <vector>
    <llvm/ADT/STLExtras.h> <llvm/ADT/SmallVector.h> <llvm/IR/Constants.h>
    <llvm/IR/IRBuilder.h> <llvm/IR/Intrinsics.h> <llvm/IR/Module.h>
    <llvm/Support/raw_ostream.h>)
set(BLOCKC_GTEST_PRECOMPILED_HEADERS <gtest/gtest.h>)

# blockc_precompile_headers(TARGET HEADER...): TARGET's sources see HEADERs parsed once.
function(blockc_precompile_headers target)
  if(BLOCKC_PRECOMPILED_HEADERS)
    # C sources of a mixed target (runtime_tests) get none; a header's closing '>'
    # inside a generator expression is spelled $<ANGLE-R>.
    list(TRANSFORM ARGN REPLACE "^<(.+)>$" "$<$<COMPILE_LANGUAGE:CXX>:<\\1$<ANGLE-R>>")
    target_precompile_headers(${target} PRIVATE ${ARGN})
    # No header timestamps in the precompiled header, so that ccache can hash it.
    target_compile_options(${target} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
  endif()
endfunction()

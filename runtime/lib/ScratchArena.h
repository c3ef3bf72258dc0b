//===- ScratchArena.h - Per-thread memory for scratch beyond the stack -*- C++ -*-===//
//
// A kernel whose scratch is larger than BLOCKC_MAX_STACK_SCRATCH_BYTES takes
// it from the arena of the thread running the program, through
// blockc_scratch_arena, once per program. The launcher grows each thread's
// arena before that thread's first program, so that programs never allocate;
// an arena only grows, serves every later launch on its thread, and is freed
// when the thread exits.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc::runtime {

/// Makes the calling thread's arena hold at least `bytes`: 0, or the errno of
/// the failed allocation (the arena is then empty).
int reserveScratchArena(uint64_t bytes);

/// The largest request blockc_scratch_arena could not serve on this thread
/// since the last call (0: none), for the launcher to report; clears it.
uint64_t takeScratchArenaShortfall();

/// Arenas allocated in this process so far, for tests of "no allocation per
/// launch".
uint64_t scratchArenaAllocations();

} // namespace blockc::runtime

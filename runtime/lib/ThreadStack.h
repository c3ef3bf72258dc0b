//===- ThreadStack.h - How much stack the calling thread has left -*- C++ -*-===//
//
// A program's scratch lives on the stack of the thread that runs it: the
// calling thread for one-thread launches, else an OpenMP worker, whose stack
// OMP_STACKSIZE sets (the OpenMP runtime's default otherwise). The launcher
// measures the real stack rather than trusting a documented default.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc::runtime {

/// Bytes between the caller's frame and the lowest usable address of the
/// calling thread's stack; UINT64_MAX when the stack cannot be measured.
uint64_t stackBytesLeft();

} // namespace blockc::runtime

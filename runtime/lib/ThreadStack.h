//===- ThreadStack.h - The calling thread's stack: room left, and its origin -*- C++ -*-===//
//
// A program's stack scratch lives on the stack of the thread that runs it: the
// launching thread (OpenMP's primary thread), else an OpenMP worker. The
// launcher measures the real stack rather than trusting a documented default,
// and when it is too small says what sizes it, which differs by thread.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc::runtime {

/// Bytes between the caller's frame and the lowest usable address of the
/// calling thread's stack; UINT64_MAX when the stack cannot be measured.
uint64_t stackBytesLeft();

/// Bytes of the calling thread's stack above the caller's frame; 0 when the
/// stack cannot be measured.
uint64_t stackBytesUsed();

/// What decides the size of a thread's stack.
enum class StackOrigin {
  StackLimit,   ///< the process's main thread: `ulimit -s` (RLIMIT_STACK)
  OpenMP,       ///< an OpenMP worker thread: OMP_STACKSIZE
  ThreadCreator ///< another thread: whoever created it (by default, glibc uses the stack limit)
};

StackOrigin stackOriginOfCallingThread();

} // namespace blockc::runtime

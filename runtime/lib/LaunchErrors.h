//===- LaunchErrors.h - Why threads of a launch ran no program -*- C++ -*-===//
//
// Each thread of a launch checks, before its first program, that it can run
// one: pinned where asked, with stack enough. What fails is gathered inside
// the parallel region and reported after it, on the launching thread, with
// advice that names what sizes the failing thread's stack: that differs by
// thread, and advice that does not work is worse than none.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>

namespace blockc::runtime {

/// What each thread found, by kind; of each kind the first thread to report
/// it is kept, except that the launching thread's stack is kept apart, as its
/// advice differs from the workers'.
class ThreadFailures {
public:
  void pinning(int thread, int core, int error);
  void stack(int thread, uint64_t left);
  /// Whether any thread has failed (as seen after a barrier).
  bool any() const { return any_.load(std::memory_order_relaxed); }
  /// BLOCKC_SUCCESS, or the status and message of the failure that matters
  /// most: a pin, then the launching thread's stack, then a worker's. `name`
  /// is the kernel's (null: unknown); `stackScratch` its scratch on the stack.
  int report(const char *name, uint64_t stackScratch) const;

private:
  std::atomic<bool> any_{false};
  std::atomic<int> pinThread_{-1};
  int pinCore_ = 0, pinError_ = 0;
  // Written by the launching thread only.
  bool launchingStackShort_ = false;
  uint64_t launchingStackLeft_ = 0;
  std::atomic<int> workerStackThread_{-1};
  uint64_t workerStackLeft_ = 0;
};

} // namespace blockc::runtime

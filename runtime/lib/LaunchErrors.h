//===- LaunchErrors.h - Why threads of a launch ran no program -*- C++ -*-===//
//
// Each thread of a launch checks, before its first program, that it can run
// one: pinned where asked, with stack enough, and with its scratch arena grown
// to the kernel's need (its programs could still find it short when the
// launch was not told the need). What fails is gathered inside
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
  /// The thread's scratch arena could not hold `bytes`: errno `error`.
  void arena(int thread, uint64_t bytes, int error);
  /// As arena(), found after the thread's programs ran (a kernel launched
  /// without its size grows the arena itself): not counted by any().
  void arenaShortfall(int thread, uint64_t bytes, int error);
  /// Whether a thread failed before its programs. Read after a barrier, it
  /// is the same for every thread of the team: later failures must not count.
  bool any() const { return any_.load(std::memory_order_relaxed); }
  /// BLOCKC_SUCCESS, or the status and message of the failure that matters
  /// most: a pin, then the launching thread's stack, a worker's, an arena. `name`
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
  std::atomic<int> arenaThread_{-1};
  uint64_t arenaBytes_ = 0;
  int arenaError_ = 0;
};

} // namespace blockc::runtime

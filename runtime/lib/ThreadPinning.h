//===- ThreadPinning.h - Pin a thread to a core for one launch -*- C++ -*-===//
//
// Affinity applies to one launch only: the OpenMP thread pool outlives the
// launch and serves other parallel regions of the application, so each thread
// puts its own CPU mask back when its part of the launch is done. Linux only;
// elsewhere every pinning request fails with ENOSYS.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

#if defined(__linux__)
#include <sched.h>
#endif

namespace blockc::runtime {

#if defined(__linux__)
using CpuMask = cpu_set_t;
#else
struct CpuMask {};
#endif

/// The cores the calling thread may run on; returns 0 or an errno value.
int getCallingThreadCores(CpuMask &cores);

bool hasCore(const CpuMask &cores, int core);

/// Writes `cores` as ranges ("0-3,6") into `text`, truncated to `size`.
void formatCores(const CpuMask &cores, char *text, size_t size);

/// Pins the calling thread to one core for the lifetime of the object and
/// restores the thread's previous mask on destruction.
class ThreadPin {
public:
  /// A negative core pins nothing.
  explicit ThreadPin(int core);
  ~ThreadPin();
  ThreadPin(const ThreadPin &) = delete;
  ThreadPin &operator=(const ThreadPin &) = delete;

  /// 0, or the errno value of the failed attempt to pin.
  int error() const { return error_; }

private:
  CpuMask saved_;
  bool pinned_ = false;
  int error_ = 0;
};

} // namespace blockc::runtime

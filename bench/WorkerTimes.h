//===- WorkerTimes.h - Where a launch's time goes, thread by thread -*- C++ -*-===//
//
// Wraps a kernel so that every program records, on the OpenMP thread running
// it, when it started and ended. After a launch, summarize() says how long the
// last thread took to start its first program (start-up), how busy the
// busiest and the average thread were (balance), and how long the launch went
// on after the last program ended (the join). A kernel function takes no user
// data, so the wrapped kernel is process-wide: one timed launch at a time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <omp.h>

namespace blockc::bench {

class WorkerTimes {
public:
  struct Summary {
    double launchUs = 0;   ///< blockc_launch, call to return
    double startupUs = 0;  ///< latest first program start, from the call
    double busiestUs = 0;  ///< most time one thread spent in programs
    double meanBusyUs = 0; ///< average over the threads that ran any
    double lastEndUs = 0;  ///< latest program end, from the call
    int threadsUsed = 0;
  };

  /// The function to launch in place of `kernel`.
  static blockc_kernel_fn wrap(blockc_kernel_fn kernel) {
    state().kernel = kernel;
    return &timedProgram;
  }

  /// Launches the wrapped kernel once and summarizes it; returns the
  /// launch's status in `status`.
  static Summary timeLaunch(void **args, blockc_grid grid, const blockc_launch_options *options,
                            int &status) {
    State &s = state();
    s.threads.fill(Thread{});
    s.begin = now();
    status = blockc_launch(&timedProgram, args, grid, options);
    int64_t end = now();
    Summary summary;
    summary.launchUs = double(end - s.begin) / 1e3;
    double busyTotal = 0;
    for (const Thread &t : s.threads) {
      if (t.programs == 0)
        continue;
      ++summary.threadsUsed;
      summary.startupUs = std::max(summary.startupUs, double(t.firstStart - s.begin) / 1e3);
      summary.lastEndUs = std::max(summary.lastEndUs, double(t.lastEnd - s.begin) / 1e3);
      summary.busiestUs = std::max(summary.busiestUs, double(t.busy) / 1e3);
      busyTotal += double(t.busy) / 1e3;
    }
    if (summary.threadsUsed)
      summary.meanBusyUs = busyTotal / summary.threadsUsed;
    return summary;
  }

private:
  static constexpr int kMaxThreads = 512;
  struct alignas(64) Thread {
    int64_t firstStart = 0, lastEnd = 0, busy = 0, programs = 0;
  };
  struct State {
    blockc_kernel_fn kernel = nullptr;
    int64_t begin = 0;
    std::array<Thread, kMaxThreads> threads;
  };
  static State &state() {
    static State s;
    return s;
  }
  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  static void timedProgram(void **args, int32_t x, int32_t y, int32_t z, int32_t gx, int32_t gy,
                           int32_t gz) {
    int64_t start = now();
    state().kernel(args, x, y, z, gx, gy, gz);
    int64_t end = now();
    Thread &t = state().threads[omp_get_thread_num() % kMaxThreads];
    if (t.programs++ == 0)
      t.firstStart = start;
    t.lastEnd = end;
    t.busy += end - start;
  }
};

} // namespace blockc::bench

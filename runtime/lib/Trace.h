//===- Trace.h - Recording launches for blockc_trace_* and BLOCKC_TRACE -*- C++ -*-===//
//
// A launch asks traceMayBeOn() once; only when it is true does it go through
// LaunchTrace, whose buffers are sized before the parallel region so that the
// threads only write into memory of their own while programs run. The
// process-wide trace takes the launch's records under a mutex afterwards.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

namespace blockc::runtime {

enum TraceState : int {
  kTraceUnread = 0, // BLOCKC_TRACE not read yet: the first launch reads it
  kTraceOff = 1,
  kTraceOn = 2,
  kTraceBroken = 3, // BLOCKC_TRACE names a file that cannot be written
};

extern std::atomic<int> traceState;

/// The one check a launch makes while no trace records. Relaxed: a launch that
/// overlaps blockc_trace_start may or may not be traced either way.
inline bool traceMayBeOn() {
  return traceState.load(std::memory_order_relaxed) != kTraceOff;
}

inline int64_t traceClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Forgets that BLOCKC_TRACE was read, after ending any trace: the next launch
/// reads the variable again. For tests, which change it within one process.
void rereadTraceEnvironmentForTesting();

/// Caps the spans of one launch at `spans` (0: the default cap), so that a
/// test can fill a buffer with a small grid.
void setMaxSpansPerLaunchForTesting(int64_t spans);

/// The kernel thread id of the calling thread, cached: the track of the trace
/// viewer it draws on.
int64_t osThreadId();

struct TraceSpan {
  int64_t first, programs, startNs, endNs;
};

/// One thread's spans in one launch, each thread on its own cache line.
struct alignas(64) ThreadSpans {
  TraceSpan *spans = nullptr;
  int64_t capacity = 0, used = 0;
  int64_t untraced = 0; // programs run after the buffer was full
  int64_t osThread = 0;
};

/// A launch being traced, on the launching thread's stack.
class LaunchTrace {
public:
  LaunchTrace() = default;
  LaunchTrace(const LaunchTrace &) = delete;
  LaunchTrace &operator=(const LaunchTrace &) = delete;
  ~LaunchTrace();

  /// Reads BLOCKC_TRACE at the process's first launch. Returns its error while
  /// the variable names an unwritable file; else succeeds, recording() saying
  /// whether this launch is traced.
  int begin(const char *kernel, blockc_grid grid, int64_t programs,
            const blockc_launch_options &options);
  bool recording() const { return recording_; }

  /// Sizes each thread's buffer from the chunks that thread can take (the
  /// schedule's), before the parallel region.
  void reserve(int threads, int64_t programs, int32_t schedule, int32_t chunk);
  ThreadSpans &thread(int thread) { return threads_[size_t(thread)]; }
  void setTeamSize(int threads) { team_ = threads; }

  /// Hands the launch's records to the trace, unless it restarted meanwhile.
  void end(int status);

private:
  bool recording_ = false;
  uint64_t generation_ = 0;
  int64_t startNs_ = 0;
  int team_ = 1;
  const char *kernel_ = nullptr;
  blockc_grid grid_{};
  int64_t programs_ = 0;
  const blockc_launch_options *options_ = nullptr;
  std::vector<ThreadSpans> threads_;
  std::vector<TraceSpan> spans_;
};

/// What a launch's loop does per program while not tracing: nothing.
struct NoSpanRecorder {
  NoSpanRecorder(LaunchTrace *, int) {}
  void program(int64_t) {}
  void finish() {}
};

/// Turns the flat indices a thread runs into spans of consecutive ones: per
/// program one compare; per span one clock read.
class SpanRecorder {
public:
  SpanRecorder(LaunchTrace *trace, int thread) : mine_(trace->thread(thread)) {
    mine_.osThread = osThreadId();
  }
  void program(int64_t flat) {
    if (flat != next_)
      startSpan(flat);
    next_ = flat + 1;
  }
  void finish() {
    if (next_ >= 0)
      close(traceClockNs());
  }

private:
  void startSpan(int64_t flat) {
    int64_t now = traceClockNs();
    if (next_ >= 0)
      close(now);
    first_ = flat;
    open_ = mine_.used < mine_.capacity ? &mine_.spans[mine_.used++] : nullptr;
    if (open_)
      *open_ = {flat, 0, now, 0};
  }
  void close(int64_t now) {
    if (open_) {
      open_->programs = next_ - first_;
      open_->endNs = now;
    } else {
      mine_.untraced += next_ - first_;
    }
  }

  ThreadSpans &mine_;
  int64_t next_ = -1, first_ = 0;
  TraceSpan *open_ = nullptr;
};

} // namespace blockc::runtime

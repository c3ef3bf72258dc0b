//===- launcher.hpp - C++ conveniences over blockc/runtime.h -----*- C++ -*-===//
//
// Options with chainable setters, and a launch that takes the kernel's
// arguments directly and builds the `void **args` array on the stack. Errors
// stay status codes, as in the C API: the runtime also serves builds without
// exceptions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <initializer_list>

namespace blockc {

class LaunchOptions {
public:
  LaunchOptions() { blockc_launch_options_init(&raw_); }

  LaunchOptions &threads(int32_t count) {
    raw_.num_threads = count;
    return *this;
  }
  LaunchOptions &order(blockc_grid_order order) {
    raw_.order = order;
    return *this;
  }
  LaunchOptions &grouped(int32_t groupSize) {
    raw_.order = BLOCKC_ORDER_GROUPED;
    raw_.group_size = groupSize;
    return *this;
  }
  LaunchOptions &schedule(blockc_schedule schedule, int32_t chunk = 0) {
    raw_.schedule = schedule;
    raw_.chunk_size = chunk;
    return *this;
  }
  /// More than BLOCKC_MAX_AFFINITY_CORES cores are not stored; the count still
  /// says how many were given, so that the launch reports the error.
  LaunchOptions &affinity(std::initializer_list<int32_t> cores) {
    raw_.num_affinity_cores = int32_t(cores.size());
    int32_t i = 0;
    for (int32_t core : cores)
      if (i < BLOCKC_MAX_AFFINITY_CORES)
        raw_.affinity_cores[i++] = core;
    return *this;
  }

  /// Overrides fields from the BLOCKC_* environment variables; see
  /// blockc_launch_options_from_env.
  int readEnvironment(const char **errorMessage = nullptr) {
    return blockc_launch_options_from_env(&raw_, errorMessage);
  }

  const blockc_launch_options &raw() const { return raw_; }
  blockc_launch_options &raw() { return raw_; }

private:
  blockc_launch_options raw_;
};

/// Runs `kernel` over `grid` with `args...` as its arguments, in order. The
/// launch is synchronous, so temporaries may be passed.
template <typename... Args>
int launch(blockc_kernel_fn kernel, blockc_grid grid, const LaunchOptions &options,
           const Args &...args) {
  // One extra slot keeps the array legal for a kernel without arguments.
  void *pointers[sizeof...(Args) + 1] = {const_cast<void *>(static_cast<const void *>(&args))...};
  return blockc_launch(kernel, pointers, grid, &options.raw());
}

} // namespace blockc

//===- Launcher.cpp - blockc_launch: the grid as one OpenMP loop ----------===//
//
// The whole grid is one flat loop, so OpenMP's schedule balances over all
// programs at once whatever the grid's shape; the grid order is only how a
// flat index is decoded. Nothing here allocates: options are read in place,
// the decoder and each thread's pinning state live on the stack; only a
// thread's scratch arena grows, when a kernel needs more than it holds. A traced
// launch is the same code instantiated with a SpanRecorder (Trace.h); the
// choice is made once per launch.
//
//===----------------------------------------------------------------------===//
#include "CoreRequirements.h"
#include "GridOrder.h"
#include "LastError.h"
#include "LaunchErrors.h"
#include "OperandCache.h"
#include "ScratchArena.h"
#include "ThreadPinning.h"
#include "ThreadStack.h"
#include "Trace.h"
#include "blockc/runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <omp.h>

using namespace blockc::runtime;

namespace {

struct Launch {
  blockc_kernel_fn kernel;
  void **args;
  int32_t gridX, gridY, gridZ;
  int64_t programs;
  const blockc_launch_options &options;
  uint64_t scratchBytes; // 0: unknown, nothing checked
  const char *name;      // null: unknown
  LaunchTrace *trace;    // null: not traced
  uint64_t epoch;        // names the launch to blockc_packed_operand

  /// The kernel's scratch on each program's stack, and in its thread's arena:
  /// one of them is 0 (blockc_scratch_arena in runtime.h).
  uint64_t stackScratchBytes() const {
    return scratchBytes <= BLOCKC_MAX_STACK_SCRATCH_BYTES ? scratchBytes : 0;
  }
  uint64_t arenaBytes() const {
    return scratchBytes > BLOCKC_MAX_STACK_SCRATCH_BYTES ? scratchBytes : 0;
  }
};

/// Whether this thread's stack holds a program of the launch.
bool stackFits(const Launch &launch, uint64_t &left) {
  if (launch.scratchBytes == 0)
    return true;
  left = stackBytesLeft();
  return left >= launch.stackScratchBytes() + BLOCKC_STACK_RESERVE_BYTES;
}

template <typename Order>
void runProgram(const Launch &launch, const Order &order, int64_t flat, OperandCacheScope &cache) {
  ProgramId id = order(flat);
  cache.programStarts();
  launch.kernel(launch.args, id.x, id.y, id.z, launch.gridX, launch.gridY, launch.gridZ);
}

/// The schedule kind is OpenMP syntax, hence one loop per kind. The
/// alternative, schedule(runtime) after omp_set_schedule, would overwrite a
/// setting that belongs to the application.
template <typename Order, typename Recorder>
void runShareOfLoop(const Launch &launch, const Order &order, Recorder &recorder) {
  OperandCacheScope cache(launch.epoch);
  const int64_t programs = launch.programs;
  const int chunk = launch.options.chunk_size;
  switch (launch.options.schedule) {
  case BLOCKC_SCHEDULE_AUTO: {
    // About eight chunks per thread: enough for the fast cores to take over
    // from a slow one, few enough that the shared counter costs nothing.
    const int64_t share = programs / (int64_t(omp_get_num_threads()) * 8);
    const int autoChunk = chunk > 0 ? chunk : int(std::clamp<int64_t>(share, 1, INT32_MAX));
#pragma omp for schedule(dynamic, autoChunk) nowait
    for (int64_t flat = 0; flat < programs; ++flat) {
      recorder.program(flat);
      runProgram(launch, order, flat, cache);
    }
    break;
  }
  case BLOCKC_SCHEDULE_DYNAMIC: {
    const int dynamicChunk = std::max(chunk, 1); // OpenMP's default chunk is 1
#pragma omp for schedule(dynamic, dynamicChunk) nowait
    for (int64_t flat = 0; flat < programs; ++flat) {
      recorder.program(flat);
      runProgram(launch, order, flat, cache);
    }
    break;
  }
  case BLOCKC_SCHEDULE_GUIDED: {
    const int minimumChunk = std::max(chunk, 1); // OpenMP's default minimum is 1
#pragma omp for schedule(guided, minimumChunk) nowait
    for (int64_t flat = 0; flat < programs; ++flat) {
      recorder.program(flat);
      runProgram(launch, order, flat, cache);
    }
    break;
  }
  default:
    // Without a chunk, static gives each thread one contiguous range: a
    // different schedule from any chunk size, not a default chunk.
    if (chunk == 0) {
#pragma omp for schedule(static) nowait
      for (int64_t flat = 0; flat < programs; ++flat) {
        recorder.program(flat);
        runProgram(launch, order, flat, cache);
      }
    } else {
#pragma omp for schedule(static, chunk) nowait
      for (int64_t flat = 0; flat < programs; ++flat) {
        recorder.program(flat);
        runProgram(launch, order, flat, cache);
      }
    }
    break;
  }
  recorder.finish();
}

void skipProgram(void **, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {}

/// For a thread that cannot run programs: OpenMP requires every thread of a
/// team to meet each worksharing loop (libomp's dispatch state goes out of
/// step otherwise, and a later launch on the same team fails an assertion),
/// so it takes its share of the loop and runs none of it.
template <typename Order> void skipShareOfLoop(const Launch &launch, const Order &order) {
  Launch idle = launch;
  idle.kernel = skipProgram;
  NoSpanRecorder untraced(nullptr, 0);
  runShareOfLoop(idle, order, untraced);
}

/// -1 when the launch pins nothing.
int coreOfThread(const blockc_launch_options &options, int thread) {
  int count = options.num_affinity_cores;
  return count > 0 ? options.affinity_cores[thread % count] : -1;
}

/// Whether this thread may run programs of the launch: pinned where asked and
/// with stack enough for one; records what failed otherwise.
bool threadIsReady(const Launch &launch, int thread, int core, const ThreadPin &pin,
                   ThreadFailures &failures) {
  if (pin.error()) {
    failures.pinning(thread, core, pin.error());
    return false;
  }
  uint64_t left = 0;
  if (!stackFits(launch, left)) {
    failures.stack(thread, left);
    return false;
  }
  if (int error = reserveScratchArena(launch.arenaBytes())) {
    failures.arena(thread, launch.arenaBytes(), error);
    return false;
  }
  // A kernel launched without its size grows the arena itself, and can fail.
  takeScratchArenaShortfall();
  return true;
}

/// After a thread's programs: whether any found its scratch arena short.
void checkArenaShortfall(int thread, ThreadFailures &failures) {
  if (uint64_t bytes = takeScratchArenaShortfall())
    failures.arenaShortfall(thread, bytes, ENOMEM);
}

template <typename Order, typename Recorder>
int runOnCallingThread(const Launch &launch, const Order &order) {
  int core = coreOfThread(launch.options, 0);
  ThreadPin pin(core);
  ThreadFailures failures;
  if (!threadIsReady(launch, 0, core, pin, failures))
    return failures.report(launch.name, launch.stackScratchBytes());
  Recorder recorder(launch.trace, 0);
  OperandCacheScope cache(launch.epoch);
  for (int64_t flat = 0; flat < launch.programs; ++flat) {
    recorder.program(flat);
    runProgram(launch, order, flat, cache);
  }
  recorder.finish();
  checkArenaShortfall(0, failures);
  return failures.report(launch.name, launch.stackScratchBytes());
}

template <typename Order, typename Recorder>
int runInParallel(const Launch &launch, const Order &order, int threads) {
  const bool pinning = launch.options.num_affinity_cores > 0;
  ThreadFailures failures;

#pragma omp parallel num_threads(threads)
  {
    int thread = omp_get_thread_num();
    Recorder recorder(launch.trace, thread);
    if (launch.trace && thread == 0)
      launch.trace->setTeamSize(omp_get_num_threads());
    int core = coreOfThread(launch.options, thread);
    ThreadPin pin(core);
    bool ready = threadIsReady(launch, thread, core, pin, failures);
    if (pinning) {
      // Every thread decides after this barrier, from the same flag, so that a
      // failed pin means that no program ran rather than some of them.
#pragma omp barrier
      if (!failures.any()) {
        runShareOfLoop(launch, order, recorder);
        checkArenaShortfall(thread, failures);
      }
    } else if (ready) {
      // No barrier for the stack or the arena alone: it would cost every
      // launch about 2 us at 16 threads (bench/LauncherBench.cpp) for a
      // configuration error. A thread that cannot run a program runs none;
      // the launch then fails.
      runShareOfLoop(launch, order, recorder);
      checkArenaShortfall(thread, failures);
    } else {
      skipShareOfLoop(launch, order);
    }
  }
  return failures.report(launch.name, launch.stackScratchBytes());
}

template <typename Order> int run(const Launch &launch, const Order &order) {
  const blockc_launch_options &options = launch.options;
  int64_t threads = options.num_threads > 0          ? options.num_threads
                    : options.num_affinity_cores > 0 ? options.num_affinity_cores
                                                     : omp_get_max_threads();
  // Threads beyond one per program would only wait at the barrier.
  threads = std::min(threads, launch.programs);
  if (launch.trace) {
    launch.trace->reserve(int(threads), launch.programs, options.schedule, options.chunk_size);
    if (threads <= 1)
      return runOnCallingThread<Order, SpanRecorder>(launch, order);
    return runInParallel<Order, SpanRecorder>(launch, order, int(threads));
  }
  if (threads <= 1)
    return runOnCallingThread<Order, NoSpanRecorder>(launch, order);
  return runInParallel<Order, NoSpanRecorder>(launch, order, int(threads));
}

template <typename Index> int runInOrder(const Launch &launch) {
  Index x = Index(launch.gridX), y = Index(launch.gridY), z = Index(launch.gridZ);
  switch (launch.options.order) {
  case BLOCKC_ORDER_Z_FASTEST:
    return run(launch, ZFastestOrder<Index>{y, z});
  case BLOCKC_ORDER_GROUPED: {
    Index group = Index(std::min<int64_t>(launch.options.group_size, launch.gridY));
    return run(launch, GroupedOrder<Index>{x, y, group});
  }
  default:
    return run(launch, XFastestOrder<Index>{x, y});
  }
}

int runInOrder(const Launch &launch) {
  if (launch.programs <= int64_t(UINT32_MAX))
    return runInOrder<uint32_t>(launch);
  return runInOrder<int64_t>(launch);
}

int countPrograms(const blockc_grid &grid, int64_t &programs) {
  const int64_t sizes[3] = {grid.x, grid.y, grid.z};
  const char axes[3] = {'x', 'y', 'z'};
  for (int axis = 0; axis < 3; ++axis)
    if (sizes[axis] < 0 || sizes[axis] > INT32_MAX)
      return fail(BLOCKC_ERROR_INVALID_ARGUMENT,
                  "grid.%c = %lld: expected 0 to %d (program ids are int32)", axes[axis],
                  (long long)sizes[axis], INT32_MAX);
  int64_t plane = grid.x * grid.y; // < 2^62: each factor is below 2^31
  if (plane != 0 && grid.z > INT64_MAX / plane)
    return fail(BLOCKC_ERROR_INVALID_ARGUMENT,
                "grid %lld x %lld x %lld: more than 2^63-1 programs in all", (long long)grid.x,
                (long long)grid.y, (long long)grid.z);
  programs = plane * grid.z;
  return BLOCKC_SUCCESS;
}

/// Out of line, so that an untraced launch pays only for the check.
__attribute__((noinline)) int runTraced(Launch &launch, const blockc_grid &grid) {
  LaunchTrace trace;
  if (int status = trace.begin(launch.name, grid, launch.programs, launch.options))
    return status;
  if (trace.recording())
    launch.trace = &trace;
  int status = launch.programs == 0 ? succeed() : runInOrder(launch);
  trace.end(status);
  return status;
}

} // namespace

extern "C" int blockc_launch(blockc_kernel_fn kernel, void **args, blockc_grid grid,
                             const blockc_launch_options *options) {
  return blockc_launch_kernel(kernel, args, grid, options, nullptr);
}

extern "C" int blockc_launch_with_stack(blockc_kernel_fn kernel, void **args, blockc_grid grid,
                                        const blockc_launch_options *options,
                                        uint64_t scratch_bytes) {
  blockc_kernel_info info = BLOCKC_KERNEL_INFO(nullptr, scratch_bytes, 0);
  return blockc_launch_kernel(kernel, args, grid, options, &info);
}

extern "C" int blockc_launch_kernel(blockc_kernel_fn kernel, void **args, blockc_grid grid,
                                    const blockc_launch_options *options,
                                    const blockc_kernel_info *info) {
  // The fields this version knows; a caller built against a later header
  // passes a larger struct, whose extra fields this launcher cannot honour
  // and so ignores.
  blockc_kernel_info known = BLOCKC_KERNEL_INFO(nullptr, 0, 0);
  if (info) {
    if (info->struct_size < sizeof known)
      return fail(
          BLOCKC_ERROR_INVALID_ARGUMENT,
          "info->struct_size = %llu: expected sizeof(blockc_kernel_info) = %zu or more (set "
          "it with BLOCKC_KERNEL_INFO)",
          (unsigned long long)info->struct_size, sizeof known);
    std::memcpy(&known, info, sizeof known);
  }
  if (!kernel)
    return fail(BLOCKC_ERROR_INVALID_ARGUMENT, "kernel is NULL");
  int64_t programs = 0;
  if (int status = countPrograms(grid, programs))
    return status;

  blockc_launch_options fromEnvironment;
  if (!options) {
    blockc_launch_options_init(&fromEnvironment);
    if (int status = blockc_launch_options_from_env(&fromEnvironment, nullptr))
      return status;
    options = &fromEnvironment;
  }
  if (int status = blockc_launch_options_check(options))
    return status;
  if (int status = checkOperandCacheEnvironment())
    return status;
  // Before the empty-grid return, as the options are: a kernel that cannot
  // run on this machine is reported at its first launch, whatever its grid.
  blockc_launch_options placed;
  const blockc_launch_options *effective = options;
  if (int status =
          placeByRequirements(known.name, known.core_requirements, *options, placed, effective))
    return status;
  Launch launch{kernel,          args,     int32_t(grid.x), int32_t(grid.y),
                int32_t(grid.z), programs, *effective,      known.scratch_bytes,
                known.name,      nullptr,  newLaunchEpoch()};
  if (__builtin_expect(traceMayBeOn(), 0))
    return runTraced(launch, grid);
  if (programs == 0)
    return succeed();
  return runInOrder(launch);
}

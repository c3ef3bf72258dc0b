//===- LaunchErrors.cpp ---------------------------------------------------===//
#include "LaunchErrors.h"

#include "LastError.h"
#include "ThreadStack.h"
#include "blockc/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace blockc::runtime {

namespace {

/// Rounded up, without wrapping for a size near 2^64.
uint64_t kibibytes(uint64_t bytes) {
  return (bytes >> 10) + ((bytes & 1023) != 0);
}

/// Twice the need: the frames below the kernel's own vary with the caller.
unsigned long long advisedWorkerKiB(uint64_t needKiB) {
  return 2 * needKiB;
}

/// How to give OpenMP's worker threads `needKiB` of stack. Unset,
/// OMP_STACKSIZE leaves the size to the OpenMP runtime, which with glibc
/// (libomp and libgomp alike) gives its workers the stack limit.
void workerAdvice(char *out, size_t size, uint64_t needKiB) {
  const char *current = std::getenv("OMP_STACKSIZE");
  if (current && *current)
    std::snprintf(out, size, "raise OMP_STACKSIZE (now %s; e.g. OMP_STACKSIZE=%lluK)", current,
                  advisedWorkerKiB(needKiB));
  else
    std::snprintf(out, size,
                  "set OMP_STACKSIZE, the stack size of OpenMP's worker threads (unset, they "
                  "get the OpenMP runtime's default; e.g. OMP_STACKSIZE=%lluK)",
                  advisedWorkerKiB(needKiB));
}

int workerStackTooSmall(const char *need, uint64_t needKiB, int thread, uint64_t left) {
  char advice[192];
  workerAdvice(advice, sizeof advice, needKiB);
  return fail(BLOCKC_ERROR_STACK,
              "%s, but OpenMP thread %d has %llu KiB left; %s, or use smaller blocks; the launch "
              "is incomplete",
              need, thread, (unsigned long long)(left >> 10), advice);
}

/// The launching thread reports this itself: what sizes its stack is a
/// property of the calling thread. `workersShort`: some worker failed too.
int launchingStackTooSmall(const char *need, uint64_t needKiB, uint64_t left, bool workersShort) {
  // Its callers' frames are on its stack as well.
  const uint64_t wholeKiB = kibibytes(stackBytesUsed()) + needKiB;
  const unsigned long long advisedKiB = (2 * wholeKiB + 1023) / 1024 * 1024;
  const unsigned long long leftKiB = left >> 10;
  char workers[256] = "";
  if (workersShort) {
    char advice[192];
    workerAdvice(advice, sizeof advice, needKiB);
    std::snprintf(workers, sizeof workers, "; OpenMP's worker threads are short too: %s", advice);
  }
  switch (stackOriginOfCallingThread()) {
  case StackOrigin::StackLimit:
    return fail(BLOCKC_ERROR_STACK,
                "%s, but the launching thread has %llu KiB left: it is the process's main "
                "thread, whose stack is the stack limit, `ulimit -s`, not OMP_STACKSIZE; start "
                "the program with a larger limit (e.g. `ulimit -s %llu`) or use smaller "
                "blocks%s; the launch is incomplete",
                need, leftKiB, advisedKiB, workers);
  case StackOrigin::OpenMP:
    return fail(BLOCKC_ERROR_STACK,
                "%s, but the launching thread, an OpenMP worker of an enclosing parallel region, "
                "has %llu KiB left; raise OMP_STACKSIZE (e.g. OMP_STACKSIZE=%lluK) or use "
                "smaller blocks; the launch is incomplete",
                need, leftKiB, advisedKiB);
  case StackOrigin::ThreadCreator:
    break;
  }
  return fail(BLOCKC_ERROR_STACK,
              "%s, but the launching thread has %llu KiB left: its stack size was set where the "
              "thread was created (pthread_attr_setstacksize, Python's threading.stack_size; by "
              "default the stack limit, `ulimit -s`), not by OMP_STACKSIZE; give it %llu KiB or "
              "use smaller blocks%s; the launch is incomplete",
              need, leftKiB, advisedKiB, workers);
}

int arenaFailed(const char *name, int thread, uint64_t bytes, int error) {
  const bool named = name && *name;
  char who[32] = "the launching thread";
  if (thread > 0)
    std::snprintf(who, sizeof who, "OpenMP thread %d", thread);
  return fail(BLOCKC_ERROR_OUT_OF_MEMORY,
              "%s%s needs %llu bytes (%.1f MiB) of scratch memory per program, and %s could not "
              "allocate them for its scratch arena: %s; use smaller blocks, or fewer threads "
              "(each keeps an arena of its own); the launch is incomplete",
              named ? "kernel " : "this kernel", named ? name : "", (unsigned long long)bytes,
              double(bytes) / (1 << 20), who, std::strerror(error));
}

} // namespace

void ThreadFailures::pinning(int thread, int core, int error) {
  int none = -1;
  if (pinThread_.compare_exchange_strong(none, thread)) {
    pinCore_ = core;
    pinError_ = error;
  }
  any_.store(true, std::memory_order_relaxed);
}

void ThreadFailures::stack(int thread, uint64_t left) {
  if (thread == 0) {
    launchingStackShort_ = true;
    launchingStackLeft_ = left;
  } else if (int none = -1; workerStackThread_.compare_exchange_strong(none, thread)) {
    workerStackLeft_ = left;
  }
  any_.store(true, std::memory_order_relaxed);
}

void ThreadFailures::arena(int thread, uint64_t bytes, int error) {
  arenaShortfall(thread, bytes, error);
  any_.store(true, std::memory_order_relaxed);
}

void ThreadFailures::arenaShortfall(int thread, uint64_t bytes, int error) {
  if (int none = -1; arenaThread_.compare_exchange_strong(none, thread)) {
    arenaBytes_ = bytes;
    arenaError_ = error;
  }
}

int ThreadFailures::report(const char *name, uint64_t stackScratch) const {
  if (!any() && arenaThread_.load() < 0)
    return succeed();
  if (int thread = pinThread_.load(); thread >= 0)
    return fail(BLOCKC_ERROR_AFFINITY,
                "pinning OpenMP thread %d to core %d failed: %s; no program ran", thread, pinCore_,
                std::strerror(pinError_));
  const int worker = workerStackThread_.load();
  if (!launchingStackShort_ && worker < 0)
    return arenaFailed(name, arenaThread_.load(), arenaBytes_, arenaError_);
  const bool named = name && *name;
  const uint64_t needKiB = kibibytes(stackScratch) + (BLOCKC_STACK_RESERVE_BYTES >> 10);
  char need[192];
  std::snprintf(need, sizeof need,
                "a program of %s%s needs %llu KiB of stack (%llu KiB of scratch and %d KiB for "
                "calls)",
                named ? "kernel " : "this kernel", named ? name : "", (unsigned long long)needKiB,
                (unsigned long long)kibibytes(stackScratch), BLOCKC_STACK_RESERVE_BYTES >> 10);
  if (launchingStackShort_)
    return launchingStackTooSmall(need, needKiB, launchingStackLeft_, worker >= 0);
  return workerStackTooSmall(need, needKiB, worker, workerStackLeft_);
}

} // namespace blockc::runtime

//===- ThreadStack.cpp ----------------------------------------------------===//
#include "ThreadStack.h"

#include <omp.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace blockc::runtime {

namespace {

/// Lowest usable and highest address of a thread's stack; 0 when unknown.
struct StackRange {
  uintptr_t floor = 0, top = 0;
};

/// Measured once per thread: pthread_getattr_np reads /proc for the main thread.
StackRange measureStack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return {};
  void *low = nullptr;
  size_t size = 0, guard = 0;
  int status = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_getguardsize(&attr, &guard);
  pthread_attr_destroy(&attr);
  if (status != 0)
    return {};
  // glibc's stack range for a new thread excludes its guard page(s) already;
  // skipping them again only makes the estimate safer.
  auto base = reinterpret_cast<uintptr_t>(low);
  return {base + guard, base + size};
}

const StackRange &callingThreadStack() {
  thread_local StackRange range = measureStack();
  return range;
}

} // namespace

uint64_t stackBytesLeft() {
  const StackRange &range = callingThreadStack();
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (range.floor == 0)
    return UINT64_MAX;
  return here > range.floor ? here - range.floor : 0;
}

uint64_t stackBytesUsed() {
  const StackRange &range = callingThreadStack();
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return range.top > here ? range.top - here : 0;
}

StackOrigin stackOriginOfCallingThread() {
  if (getpid() == pid_t(syscall(SYS_gettid)))
    return StackOrigin::StackLimit;
  // A thread OpenMP created is a non-primary member of some enclosing team;
  // a thread that is the primary at every level was created by someone else.
  for (int level = omp_get_level(); level > 0; --level)
    if (omp_get_ancestor_thread_num(level) > 0)
      return StackOrigin::OpenMP;
  return StackOrigin::ThreadCreator;
}

} // namespace blockc::runtime

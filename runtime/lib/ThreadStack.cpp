//===- ThreadStack.cpp ----------------------------------------------------===//
#include "ThreadStack.h"

#include <pthread.h>

namespace blockc::runtime {

namespace {

/// The lowest usable address of this thread's stack, above its guard; 0 when
/// unknown. Measured once per thread: pthread_getattr_np reads /proc for the
/// main thread.
uintptr_t measureStackFloor() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return 0;
  void *low = nullptr;
  size_t size = 0, guard = 0;
  int status = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_getguardsize(&attr, &guard);
  pthread_attr_destroy(&attr);
  // glibc's stack range for a new thread excludes its guard page(s) already;
  // skipping them again only makes the estimate safer.
  return status == 0 ? reinterpret_cast<uintptr_t>(low) + guard : 0;
}

} // namespace

uint64_t stackBytesLeft() {
  thread_local uintptr_t floor = measureStackFloor();
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (floor == 0)
    return UINT64_MAX;
  return here > floor ? here - floor : 0;
}

} // namespace blockc::runtime

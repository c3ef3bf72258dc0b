//===- ThreadPinning.cpp --------------------------------------------------===//
#include "ThreadPinning.h"

#include "CoreFeatures.h"
#include "blockc/runtime.h"

#include <cerrno>
#include <cstdio>

namespace blockc::runtime {

#if defined(__linux__)

int getCallingThreadCores(CpuMask &cores) {
  CPU_ZERO(&cores);
  return sched_getaffinity(0, sizeof cores, &cores) == 0 ? 0 : errno;
}

bool hasCore(const CpuMask &cores, int core) {
  return core >= 0 && core < CPU_SETSIZE && CPU_ISSET(core, &cores);
}

ThreadPin::ThreadPin(int core) {
  if (core < 0)
    return;
  if (sched_getaffinity(0, sizeof saved_, &saved_) != 0) {
    error_ = errno;
    return;
  }
  CpuMask only;
  CPU_ZERO(&only);
  CPU_SET(core, &only);
  if (sched_setaffinity(0, sizeof only, &only) != 0) {
    error_ = errno;
    return;
  }
  pinned_ = true;
}

ThreadPin::~ThreadPin() {
  // A failure here leaves a pool thread pinned: slower later regions, never a
  // wrong result, and a destructor has no one to report to.
  if (pinned_)
    sched_setaffinity(0, sizeof saved_, &saved_);
}

#else

int getCallingThreadCores(CpuMask &) {
  return ENOSYS;
}
bool hasCore(const CpuMask &, int) {
  return false;
}
ThreadPin::ThreadPin(int core) : error_(core < 0 ? 0 : ENOSYS) {}
ThreadPin::~ThreadPin() = default;

#endif

void formatCores(const CpuMask &cores, char *text, size_t size) {
  CoreSet set;
  for (int core = 0; core <= BLOCKC_MAX_CORE_ID; ++core)
    if (hasCore(cores, core))
      set.set(size_t(core));
  formatCoreSet(set, text, size);
}

} // namespace blockc::runtime

//===- CoreRequirements.cpp -----------------------------------------------===//
#include "CoreRequirements.h"

#include "CoreFeatures.h"
#include "LastError.h"
#include "ThreadPinning.h"

#include <cstdio>
#include <cstring>

namespace blockc::runtime {

namespace {

constexpr uint64_t kKnownRequirements = BLOCKC_REQUIRES_SPACEMIT_IME;

/// "kernel NAME" or "this kernel", for the start of a message.
struct KernelName {
  char text[160];
  explicit KernelName(const char *name) {
    if (name && *name)
      std::snprintf(text, sizeof text, "kernel %s", name);
    else
      std::snprintf(text, sizeof text, "this kernel");
  }
};

CoreSet allowedCores(const CpuMask &mask) {
  CoreSet cores;
  for (int core = 0; core <= BLOCKC_MAX_CORE_ID; ++core)
    if (hasCore(mask, core))
      cores.set(size_t(core));
  return cores;
}

} // namespace

int placeByRequirements(const char *name, uint64_t requirements,
                        const blockc_launch_options &options, blockc_launch_options &placed,
                        const blockc_launch_options *&effective) {
  effective = &options;
  if (requirements == 0)
    return BLOCKC_SUCCESS;
  KernelName kernel(name);
  if (uint64_t unknown = requirements & ~kKnownRequirements)
    return fail(BLOCKC_ERROR_CORE_REQUIREMENT,
                "%s requires core features 0x%llx that this runtime does not know; link it with "
                "the blockc runtime of the compiler that built it",
                kernel.text, (unsigned long long)unknown);

  const ImeCores *ime = nullptr;
  if (int status = machineImeCores(ime))
    return status;
  char imeText[256];
  formatCoreSet(ime->cores, imeText, sizeof imeText);
  if (ime->cores.none())
    return fail(BLOCKC_ERROR_CORE_REQUIREMENT,
                "%s uses the SpacemiT IME (smt.vmadot), which no core of this machine has (%s); "
                "compile it for spacemit-k1-qemu or rv64gcv to run it here, or, on a K1 whose IME "
                "cores blockc did not recognise, set BLOCKC_IME_CORES=0-3; no program ran",
                kernel.text,
                ime->evidence == ImeEvidence::Environment
                    ? "BLOCKC_IME_CORES lists none"
                    : "no core reports the X60's mvendorid and marchid in /proc/cpuinfo");

  // Pinned by the caller: every listed core must have the unit.
  for (int i = 0; i < options.num_affinity_cores; ++i) {
    int core = options.affinity_cores[i];
    if (!ime->cores.test(size_t(core)))
      return fail(BLOCKC_ERROR_CORE_REQUIREMENT,
                  "%s uses the SpacemiT IME (smt.vmadot), but affinity core %d "
                  "(affinity_cores[%d]) has none: only cores %s have it; no program ran",
                  kernel.text, core, i, imeText);
  }
  if (options.num_affinity_cores > 0)
    return BLOCKC_SUCCESS;

  // Not pinned: pin to the IME cores the calling thread may use.
  CpuMask mask;
  if (int error = getCallingThreadCores(mask))
    return fail(BLOCKC_ERROR_CORE_REQUIREMENT,
                "%s uses the SpacemiT IME (smt.vmadot), which only cores %s have, and the calling "
                "thread's CPU affinity mask cannot be read to pin it there: %s; no program ran",
                kernel.text, imeText, std::strerror(error));
  CoreSet usable = ime->cores & allowedCores(mask);
  if (usable.none()) {
    char allowedText[256];
    formatCoreSet(allowedCores(mask), allowedText, sizeof allowedText);
    return fail(BLOCKC_ERROR_CORE_REQUIREMENT,
                "%s uses the SpacemiT IME (smt.vmadot), which only cores %s have, and the calling "
                "thread may run on none of them (allowed: %s); no program ran",
                kernel.text, imeText, allowedText);
  }
  std::memcpy(&placed, &options, sizeof placed);
  int32_t count = 0;
  for (int core = 0; core <= BLOCKC_MAX_CORE_ID && count < BLOCKC_MAX_AFFINITY_CORES; ++core)
    if (usable.test(size_t(core)))
      placed.affinity_cores[count++] = core;
  placed.num_affinity_cores = count;
  effective = &placed;
  return BLOCKC_SUCCESS;
}

} // namespace blockc::runtime

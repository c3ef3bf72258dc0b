//===- LaunchOptions.cpp - Defaults and checks of blockc_launch_options ---===//
#include "LastError.h"
#include "ThreadPinning.h"
#include "blockc/runtime.h"

#include <bitset>
#include <cstring>

using namespace blockc::runtime;

namespace {

int checkAffinity(const blockc_launch_options &options) {
  int count = options.num_affinity_cores;
  if (count < 0 || count > BLOCKC_MAX_AFFINITY_CORES)
    return fail(BLOCKC_ERROR_INVALID_OPTION, "num_affinity_cores = %d: expected 0 to %d", count,
                BLOCKC_MAX_AFFINITY_CORES);
  if (count == 0)
    return BLOCKC_SUCCESS;

  std::bitset<BLOCKC_MAX_CORE_ID + 1> listed;
  for (int i = 0; i < count; ++i) {
    int core = options.affinity_cores[i];
    if (core < 0 || core > BLOCKC_MAX_CORE_ID)
      return fail(BLOCKC_ERROR_INVALID_OPTION,
                  "affinity_cores[%d] = %d: expected a core id from 0 to %d", i, core,
                  BLOCKC_MAX_CORE_ID);
    if (listed.test(size_t(core)))
      return fail(BLOCKC_ERROR_INVALID_OPTION, "affinity_cores[%d] = %d: core %d is listed twice",
                  i, core, core);
    listed.set(size_t(core));
  }

  CpuMask allowed;
  if (int error = getCallingThreadCores(allowed))
    return fail(BLOCKC_ERROR_INVALID_OPTION,
                "affinity_cores: cannot read the calling thread's CPU affinity mask: %s",
                std::strerror(error));
  for (int i = 0; i < count; ++i) {
    int core = options.affinity_cores[i];
    if (!hasCore(allowed, core)) {
      char allowedText[256];
      formatCores(allowed, allowedText, sizeof allowedText);
      return fail(BLOCKC_ERROR_INVALID_OPTION,
                  "affinity_cores[%d] = %d: core %d is not in the calling thread's CPU affinity "
                  "mask (allowed: %s)",
                  i, core, core, allowedText);
    }
  }
  return BLOCKC_SUCCESS;
}

} // namespace

extern "C" const char *blockc_grid_order_name(int32_t order) {
  switch (order) {
  case BLOCKC_ORDER_X_FASTEST:
    return "x";
  case BLOCKC_ORDER_Z_FASTEST:
    return "z";
  case BLOCKC_ORDER_GROUPED:
    return "grouped";
  default:
    return "?";
  }
}

extern "C" const char *blockc_schedule_name(int32_t schedule) {
  switch (schedule) {
  case BLOCKC_SCHEDULE_STATIC:
    return "static";
  case BLOCKC_SCHEDULE_DYNAMIC:
    return "dynamic";
  case BLOCKC_SCHEDULE_GUIDED:
    return "guided";
  case BLOCKC_SCHEDULE_AUTO:
    return "auto";
  default:
    return "?";
  }
}

extern "C" void blockc_launch_options_init(blockc_launch_options *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof *options);
  options->num_threads = 0;
  options->order = BLOCKC_ORDER_X_FASTEST;
  options->group_size = 8; // Triton's usual GROUP_M
  options->schedule = BLOCKC_SCHEDULE_AUTO;
  options->chunk_size = 0;
  options->num_affinity_cores = 0;
}

extern "C" int blockc_launch_options_check(const blockc_launch_options *options) {
  if (!options)
    return fail(BLOCKC_ERROR_INVALID_ARGUMENT, "options is NULL");
  const blockc_launch_options &o = *options;
  if (o.num_threads < 0 || o.num_threads > BLOCKC_MAX_THREADS)
    return fail(BLOCKC_ERROR_INVALID_OPTION, "num_threads = %d: expected 0 (the default) to %d",
                o.num_threads, BLOCKC_MAX_THREADS);
  if (o.order != BLOCKC_ORDER_X_FASTEST && o.order != BLOCKC_ORDER_Z_FASTEST &&
      o.order != BLOCKC_ORDER_GROUPED)
    return fail(BLOCKC_ERROR_INVALID_OPTION,
                "order = %d: expected BLOCKC_ORDER_X_FASTEST (0), BLOCKC_ORDER_Z_FASTEST (1) or "
                "BLOCKC_ORDER_GROUPED (2)",
                o.order);
  if (o.order == BLOCKC_ORDER_GROUPED && o.group_size < 1)
    return fail(BLOCKC_ERROR_INVALID_OPTION,
                "group_size = %d: the grouped order needs a group size of at least 1",
                o.group_size);
  if (o.schedule != BLOCKC_SCHEDULE_STATIC && o.schedule != BLOCKC_SCHEDULE_DYNAMIC &&
      o.schedule != BLOCKC_SCHEDULE_GUIDED && o.schedule != BLOCKC_SCHEDULE_AUTO)
    return fail(BLOCKC_ERROR_INVALID_OPTION,
                "schedule = %d: expected BLOCKC_SCHEDULE_STATIC (0), BLOCKC_SCHEDULE_DYNAMIC (1), "
                "BLOCKC_SCHEDULE_GUIDED (2) or BLOCKC_SCHEDULE_AUTO (3)",
                o.schedule);
  if (o.chunk_size < 0)
    return fail(BLOCKC_ERROR_INVALID_OPTION,
                "chunk_size = %d: expected 0 (the schedule's default) or more", o.chunk_size);
  if (int status = checkAffinity(o))
    return status;
  return succeed();
}

//===- LaunchAllocationTest.cpp - A launch does not allocate --------------===//
//
// Replaces the global operator new for the whole test binary, to count calls:
// the launch path must not use new, std::vector or std::string. The OpenMP
// runtime's own thread pool is allocated with malloc when it first starts,
// hence a warm-up launch before counting.
//
//===----------------------------------------------------------------------===//
#include "CoreFeatures.h"
#include "blockc/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <gtest/gtest.h>
#include <new>
#include <sched.h>

namespace {
std::atomic<int64_t> newCalls{0};
} // namespace

void *operator new(size_t size) {
  newCalls.fetch_add(1, std::memory_order_relaxed);
  if (void *memory = std::malloc(size ? size : 1))
    return memory;
  throw std::bad_alloc();
}
void operator delete(void *memory) noexcept {
  std::free(memory);
}
void operator delete(void *memory, size_t) noexcept {
  std::free(memory);
}

namespace {

void countCalls(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  static_cast<std::atomic<int64_t> *>(args[0])->fetch_add(1, std::memory_order_relaxed);
}

TEST(Launcher, AllocatesNothingPerLaunch) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = 2;
  cpu_set_t cores;
  if (sched_getaffinity(0, sizeof cores, &cores) == 0 && CPU_ISSET(0, &cores) &&
      CPU_ISSET(1, &cores)) {
    options.num_affinity_cores = 2;
    options.affinity_cores[0] = 0;
    options.affinity_cores[1] = 1;
  }
  std::atomic<int64_t> calls{0};
  void *args[] = {&calls};
  ASSERT_EQ(blockc_launch(countCalls, args, {64, 64, 1}, &options), BLOCKC_SUCCESS);

  int64_t before = newCalls.load();
  for (int32_t order : {BLOCKC_ORDER_X_FASTEST, BLOCKC_ORDER_Z_FASTEST, BLOCKC_ORDER_GROUPED})
    for (int32_t schedule : {BLOCKC_SCHEDULE_STATIC, BLOCKC_SCHEDULE_DYNAMIC,
                             BLOCKC_SCHEDULE_GUIDED, BLOCKC_SCHEDULE_AUTO}) {
      options.order = order;
      options.schedule = schedule;
      EXPECT_EQ(blockc_launch(countCalls, args, {64, 64, 3}, &options), BLOCKC_SUCCESS);
    }
  EXPECT_EQ(blockc_launch(countCalls, args, {1, 1, 1}, &options), BLOCKC_SUCCESS);
  EXPECT_EQ(blockc_launch(countCalls, args, {100, 1, 1}, nullptr), BLOCKC_SUCCESS);
  options.num_threads = -1;
  EXPECT_EQ(blockc_launch(countCalls, args, {100, 1, 1}, &options), BLOCKC_ERROR_INVALID_OPTION);
  EXPECT_EQ(newCalls.load() - before, 0);
  EXPECT_EQ(calls.load(), 64 * 64 + 12 * 64 * 64 * 3 + 1 + 100);
}

// A kernel that needs the IME is placed on the IME cores with the options
// copied on the stack: no allocation either, once the cores are known.
TEST(Launcher, AllocatesNothingPerLaunchOfAnImeKernel) {
  cpu_set_t cores;
  ASSERT_EQ(sched_getaffinity(0, sizeof cores, &cores), 0);
  blockc::runtime::CoreSet ime;
  for (int core = 0; core < CPU_SETSIZE && ime.count() < 2; ++core)
    if (CPU_ISSET(core, &cores))
      ime.set(size_t(core));
  blockc::runtime::injectImeCoresForTesting(&ime);
  std::atomic<int64_t> calls{0};
  void *args[] = {&calls};
  blockc_kernel_info info = BLOCKC_KERNEL_INFO("ime", 4096, BLOCKC_REQUIRES_SPACEMIT_IME);
  ASSERT_EQ(blockc_launch_kernel(countCalls, args, {64, 1, 1}, nullptr, &info), BLOCKC_SUCCESS)
      << blockc_last_error();

  int64_t before = newCalls.load();
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  EXPECT_EQ(blockc_launch_kernel(countCalls, args, {64, 64, 1}, &options, &info), BLOCKC_SUCCESS);
  EXPECT_EQ(blockc_launch_kernel(countCalls, args, {1, 1, 1}, nullptr, &info), BLOCKC_SUCCESS);
  blockc::runtime::CoreSet none;
  blockc::runtime::injectImeCoresForTesting(&none);
  EXPECT_EQ(blockc_launch_kernel(countCalls, args, {4, 1, 1}, &options, &info),
            BLOCKC_ERROR_CORE_REQUIREMENT);
  EXPECT_EQ(newCalls.load() - before, 0);
  blockc::runtime::injectImeCoresForTesting(nullptr);
  EXPECT_EQ(calls.load(), 64 + 64 * 64 + 1);
}

} // namespace

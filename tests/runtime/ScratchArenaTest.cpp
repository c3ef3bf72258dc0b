//===- ScratchArenaTest.cpp - Scratch beyond the stack, per thread --------===//
//
// Kernels here stand in for compiled ones whose scratch is larger than
// BLOCKC_MAX_STACK_SCRATCH_BYTES: each program asks blockc_scratch_arena for
// its scratch, as generated code does once per program, and writes all of it.
//
//===----------------------------------------------------------------------===//
#include "ScratchArena.h"

#include "blockc/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <mutex>
#include <set>
#include <string>

using blockc::runtime::scratchArenaAllocations;

namespace {

struct ArenaUse {
  explicit ArenaUse(uint64_t bytes) : bytes(bytes) {}
  uint64_t bytes;
  std::atomic<int> programs{0};
  std::atomic<int> withoutScratch{0};
  std::mutex mutex;
  std::set<void *> arenas;
};

void useArena(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto &use = *static_cast<ArenaUse *>(args[0]);
  void *scratch = blockc_scratch_arena(use.bytes);
  if (!scratch) {
    use.withoutScratch.fetch_add(1);
    return;
  }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(scratch) % 64, 0u);
  std::memset(scratch, 0x5a, use.bytes);
  {
    std::lock_guard<std::mutex> lock(use.mutex);
    use.arenas.insert(scratch);
  }
  use.programs.fetch_add(1);
}

/// Static: every thread of the team runs programs, so uses its arena.
blockc_launch_options withThreads(int threads) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = threads;
  options.schedule = BLOCKC_SCHEDULE_STATIC;
  return options;
}

int launchWithSize(ArenaUse &use, int threads, uint64_t scratch, const char *name = "big") {
  void *args[] = {&use};
  blockc_launch_options options = withThreads(threads);
  blockc_kernel_info info = BLOCKC_KERNEL_INFO(name, scratch, 0);
  return blockc_launch_kernel(useArena, args, {64, 1, 1}, &options, &info);
}

constexpr uint64_t kMiB = uint64_t(1) << 20;

// Each thread's arena is allocated at its first launch and reused by every
// later one: the same memory, no allocation.
TEST(ScratchArena, LaunchesReuseEachThreadsArena) {
  for (int threads : {1, 4}) {
    ArenaUse use(3 * kMiB + 100);
    ASSERT_EQ(launchWithSize(use, threads, use.bytes), BLOCKC_SUCCESS) << blockc_last_error();
    std::set<void *> first = use.arenas;
    EXPECT_LE(first.size(), size_t(threads));
    uint64_t allocated = scratchArenaAllocations();
    for (int launch = 0; launch < 10; ++launch)
      ASSERT_EQ(launchWithSize(use, threads, use.bytes), BLOCKC_SUCCESS) << blockc_last_error();
    EXPECT_EQ(scratchArenaAllocations(), allocated) << threads << " threads";
    EXPECT_EQ(use.arenas, first) << threads << " threads";
    EXPECT_EQ(use.programs.load(), 11 * 64);
  }
}

// A larger need grows an arena once; a smaller one uses it as it is.
TEST(ScratchArena, GrowsOnlyForALargerNeed) {
  ArenaUse small(2 * kMiB), large(9 * kMiB);
  ASSERT_EQ(launchWithSize(small, 1, small.bytes), BLOCKC_SUCCESS) << blockc_last_error();
  uint64_t before = scratchArenaAllocations();
  ASSERT_EQ(launchWithSize(large, 1, large.bytes), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(scratchArenaAllocations(), before + 1);
  for (ArenaUse *use : {&small, &large, &small})
    ASSERT_EQ(launchWithSize(*use, 1, use->bytes), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(scratchArenaAllocations(), before + 1);
}

// blockc_launch does not know the kernel's scratch: each thread's first
// program grows the arena, and later launches allocate nothing.
TEST(ScratchArena, PlainLaunchGrowsOnFirstUse) {
  ArenaUse use(17 * kMiB);
  void *args[] = {&use};
  blockc_launch_options options = withThreads(4);
  ASSERT_EQ(blockc_launch(useArena, args, {64, 1, 1}, &options), BLOCKC_SUCCESS)
      << blockc_last_error();
  uint64_t allocated = scratchArenaAllocations();
  for (int launch = 0; launch < 5; ++launch)
    ASSERT_EQ(blockc_launch(useArena, args, {64, 1, 1}, &options), BLOCKC_SUCCESS);
  EXPECT_EQ(scratchArenaAllocations(), allocated);
  EXPECT_EQ(use.programs.load(), 6 * 64);
}

// More than the address space holds: an error naming the kernel and the
// bytes, and no program runs on a thread without its arena (on any, when
// every thread fails). Sizes near 2^64 must not wrap into a small arena.
TEST(ScratchArena, ScratchThatCannotBeAllocatedIsAnError) {
  for (uint64_t scratch : {uint64_t(1) << 60, UINT64_MAX, UINT64_MAX - 1000})
    for (int threads : {1, 4}) {
      ArenaUse use(1024);
      EXPECT_EQ(launchWithSize(use, threads, scratch, "matmul_softmax"), BLOCKC_ERROR_OUT_OF_MEMORY)
          << scratch << " on " << threads;
      EXPECT_EQ(use.programs.load(), 0);
      std::string message = blockc_last_error();
      EXPECT_EQ(
          message.rfind("kernel matmul_softmax needs " + std::to_string(scratch) + " bytes", 0), 0u)
          << message;
      EXPECT_NE(message.find("could not allocate them for its scratch arena"), std::string::npos)
          << message;
    }
  // The arenas that failed hold nothing now, and grow again when asked.
  ArenaUse use(2 * kMiB);
  EXPECT_EQ(launchWithSize(use, 4, use.bytes), BLOCKC_SUCCESS) << blockc_last_error();
}

// A kernel launched without its size that cannot get its scratch: its
// programs do nothing, and the launch says so rather than succeeding.
TEST(ScratchArena, KernelThatCannotGetItsScratchFailsThePlainLaunch) {
  for (int threads : {1, 4}) {
    ArenaUse use(uint64_t(1) << 60);
    void *args[] = {&use};
    blockc_launch_options options = withThreads(threads);
    EXPECT_EQ(blockc_launch(useArena, args, {8, 1, 1}, &options), BLOCKC_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(use.programs.load(), 0);
    EXPECT_EQ(use.withoutScratch.load(), 8);
    std::string message = blockc_last_error();
    EXPECT_EQ(message.rfind("this kernel needs 1152921504606846976 bytes", 0), 0u) << message;
  }
  // The failure was this launch's: the next one succeeds.
  ArenaUse use(2 * kMiB);
  void *args[] = {&use};
  EXPECT_EQ(blockc_launch(useArena, args, {8, 1, 1}, nullptr), BLOCKC_SUCCESS);
}

} // namespace

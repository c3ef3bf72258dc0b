//===- StackTest.cpp - The stack check and what its errors advise ---------===//
//
// A thread whose stack cannot hold a program runs none, and the error names
// what sizes that thread's stack: `ulimit -s` for the process's main thread
// (tests/driver/HardeningTest.cpp runs one under `ulimit -s 256`),
// OMP_STACKSIZE for OpenMP's workers, the thread's creator for the others.
//
//===----------------------------------------------------------------------===//
#include "blockc/runtime.h"

#include <atomic>
#include <cstdint>
#include <gtest/gtest.h>
#include <pthread.h>
#include <string>

namespace {

std::atomic<int> stackProgramsRun{0};
void countStackProgram(void **, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  stackProgramsRun.fetch_add(1, std::memory_order_relaxed);
}

blockc_launch_options withThreads(int threads) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = threads;
  return options;
}

struct SmallStackLaunch {
  SmallStackLaunch(uint64_t scratch, int threads) : scratch(scratch), threads(threads) {}
  uint64_t scratch;
  int threads;
  int status = -1;
  std::string message;
};

void *launchOnThisThread(void *argument) {
  auto *launch = static_cast<SmallStackLaunch *>(argument);
  blockc_launch_options options = withThreads(launch->threads);
  launch->status =
      blockc_launch_with_stack(countStackProgram, nullptr, {8, 1, 1}, &options, launch->scratch);
  launch->message = blockc_last_error();
  return nullptr;
}

/// Runs `launch` on a thread of the application with a 256 KiB stack.
void launchFromSmallThread(SmallStackLaunch &launch) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, launchOnThisThread, &launch), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// An application's thread: neither `ulimit -s` (after the fact) nor
// OMP_STACKSIZE sizes it, but whoever created it. Its workers, with the
// OpenMP runtime's default stacks, run their programs.
TEST(Stack, ApplicationThreadErrorNamesItsCreator) {
  for (int threads : {1, 2}) {
    SmallStackLaunch launch(200 * 1024, threads);
    stackProgramsRun = 0;
    launchFromSmallThread(launch);
    EXPECT_EQ(launch.status, BLOCKC_ERROR_STACK) << launch.message;
    EXPECT_NE(launch.message.find("the launching thread has"), std::string::npos) << launch.message;
    EXPECT_NE(launch.message.find("pthread_attr_setstacksize"), std::string::npos)
        << launch.message;
    if (threads == 1)
      EXPECT_EQ(stackProgramsRun.load(), 0);
  }
}

// Scratch beyond BLOCKC_MAX_STACK_SCRATCH_BYTES is in the arena: a small
// stack holds such a kernel's programs, whatever their scratch. A size near
// 2^64 must not wrap the stack check into a pass either.
TEST(Stack, ArenaScratchNeedsNoStack) {
  for (int threads : {1, 2}) {
    SmallStackLaunch launch(64 << 20, threads);
    stackProgramsRun = 0;
    launchFromSmallThread(launch);
    EXPECT_EQ(launch.status, BLOCKC_SUCCESS) << launch.message;
    EXPECT_EQ(stackProgramsRun.load(), 8);
  }
  SmallStackLaunch huge(UINT64_MAX, 1);
  launchFromSmallThread(huge);
  EXPECT_EQ(huge.status, BLOCKC_ERROR_OUT_OF_MEMORY) << huge.message;
}

TEST(Stack, ScratchThatFitsRunsEveryProgram) {
  blockc_launch_options options = withThreads(4);
  stackProgramsRun = 0;
  ASSERT_EQ(blockc_launch_with_stack(countStackProgram, nullptr, {64, 1, 1}, &options, 64 * 1024),
            BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(stackProgramsRun.load(), 64);
}

} // namespace

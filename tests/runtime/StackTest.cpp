//===- StackTest.cpp - The stack check and what its errors advise ---------===//
//
// A thread whose stack cannot hold a program runs none, and the error names
// what sizes that thread's stack: `ulimit -s` for the process's main thread,
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

// A kernel whose scratch no thread's stack holds: no program runs on a thread
// that failed the check (on every thread when each fails). A scratch size near
// 2^64 must not wrap the check into a pass.
TEST(Stack, ScratchLargerThanAnyThreadStackIsAnError) {
  for (uint64_t scratch : {uint64_t(1) << 40, UINT64_MAX, UINT64_MAX - 1000})
    for (int threads : {1, 4}) {
      blockc_launch_options options = withThreads(threads);
      stackProgramsRun = 0;
      EXPECT_EQ(blockc_launch_with_stack(countStackProgram, nullptr, {64, 1, 1}, &options, scratch),
                BLOCKC_ERROR_STACK)
          << scratch << " on " << threads;
      EXPECT_EQ(stackProgramsRun.load(), 0);
      std::string message = blockc_last_error();
      // Any thread may be the one reported; each message names OMP_STACKSIZE,
      // the main thread's to say that it does not help there.
      EXPECT_NE(message.find("OMP_STACKSIZE"), std::string::npos) << message;
      if (threads == 1)
        EXPECT_NE(message.find("the launching thread has"), std::string::npos) << message;
    }
}

// The test's main thread launches: its stack is the stack limit.
TEST(Stack, MainThreadErrorAdvisesUlimit) {
  blockc_launch_options options = withThreads(1);
  ASSERT_EQ(blockc_launch_with_stack(countStackProgram, nullptr, {1, 1, 1}, &options, UINT64_MAX),
            BLOCKC_ERROR_STACK);
  std::string message = blockc_last_error();
  EXPECT_NE(message.find("the process's main thread"), std::string::npos) << message;
  EXPECT_NE(message.find("`ulimit -s "), std::string::npos) << message;
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

TEST(Stack, ScratchThatFitsRunsEveryProgram) {
  blockc_launch_options options = withThreads(4);
  stackProgramsRun = 0;
  ASSERT_EQ(blockc_launch_with_stack(countStackProgram, nullptr, {64, 1, 1}, &options, 64 * 1024),
            BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(stackProgramsRun.load(), 64);
}

} // namespace

//===- LauncherTest.cpp - Every program of a grid runs exactly once -------===//
//
// Kernels here are plain C functions with the blockc_kernel_fn signature that
// record what they saw: how often each program ran, on which thread and core.
//
//===----------------------------------------------------------------------===//
#include "blockc/launcher.hpp"

#include "blockc/runtime.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

// Defined in RuntimeHeaderC.c.
extern "C" int blockcRuntimeHeaderRunFromC(int32_t *data, int32_t count);
extern "C" int blockcRuntimeHeaderRunKernelFromC(int32_t *data, int32_t count);

namespace {

//===- Counting programs --------------------------------------------------===//

/// One byte per program, so that 2^24 programs cost 16 MiB and one pass.
struct ProgramCounts {
  explicit ProgramCounts(blockc_grid grid)
      : grid(grid), counts(new std::atomic<uint8_t>[size_t(grid.x * grid.y * grid.z)]()) {}

  blockc_grid grid;
  std::unique_ptr<std::atomic<uint8_t>[]> counts;
  std::atomic<int64_t> badIds{0};

  /// Empty if every program ran exactly once, else the first offender.
  std::string firstProblem() const {
    if (badIds.load())
      return std::to_string(badIds.load()) + " calls with an id or grid size out of range";
    int64_t total = grid.x * grid.y * grid.z;
    for (int64_t i = 0; i < total; ++i)
      if (counts[size_t(i)].load() != 1)
        return "program " + std::to_string(i) + " ran " + std::to_string(counts[size_t(i)].load()) +
               " times";
    return "";
  }
};

void countProgram(void **args, int32_t x, int32_t y, int32_t z, int32_t gridX, int32_t gridY,
                  int32_t gridZ) {
  auto &record = *static_cast<ProgramCounts *>(args[0]);
  const blockc_grid &grid = record.grid;
  if (gridX != grid.x || gridY != grid.y || gridZ != grid.z || x < 0 || x >= gridX || y < 0 ||
      y >= gridY || z < 0 || z >= gridZ) {
    record.badIds.fetch_add(1);
    return;
  }
  int64_t index = x + int64_t(gridX) * (y + int64_t(gridY) * z);
  record.counts[size_t(index)].fetch_add(1, std::memory_order_relaxed);
}

std::string runAndCheckEachOnce(blockc_grid grid, const blockc::LaunchOptions &options) {
  ProgramCounts record(grid);
  if (int status = blockc::launch(countProgram, grid, options, record))
    return "launch failed (" + std::to_string(status) + "): " + blockc_last_error();
  return record.firstProblem();
}

//===- Every order and schedule -------------------------------------------===//

using OrderScheduleChunkThreads = std::tuple<blockc_grid_order, blockc_schedule, int, int>;

class EveryOrderAndSchedule : public testing::TestWithParam<OrderScheduleChunkThreads> {};

TEST_P(EveryOrderAndSchedule, RunsEachProgramOfAnOddGridOnce) {
  auto [order, schedule, chunk, threads] = GetParam();
  blockc::LaunchOptions options;
  options.order(order).schedule(schedule, chunk).threads(threads);
  options.raw().group_size = 2; // 5 rows: the last group is short
  EXPECT_EQ(runAndCheckEachOnce({7, 5, 3}, options), "");
}

INSTANTIATE_TEST_SUITE_P(
    Launcher, EveryOrderAndSchedule,
    testing::Combine(testing::Values(BLOCKC_ORDER_X_FASTEST, BLOCKC_ORDER_Z_FASTEST,
                                     BLOCKC_ORDER_GROUPED),
                     testing::Values(BLOCKC_SCHEDULE_STATIC, BLOCKC_SCHEDULE_DYNAMIC,
                                     BLOCKC_SCHEDULE_GUIDED, BLOCKC_SCHEDULE_AUTO),
                     testing::Values(0, 4), testing::Values(0, 1, 2, 3)),
    [](const testing::TestParamInfo<OrderScheduleChunkThreads> &info) {
      // std::get, not a structured binding: its commas would split the macro argument.
      return std::string(blockc_grid_order_name(std::get<0>(info.param))) + "_" +
             blockc_schedule_name(std::get<1>(info.param)) + "_chunk" +
             std::to_string(std::get<2>(info.param)) + "_threads" +
             std::to_string(std::get<3>(info.param));
    });

//===- The sequence each order defines -------------------------------------===//

struct Sequence {
  std::vector<std::array<int32_t, 3>> ids;
};

void recordSequence(void **args, int32_t x, int32_t y, int32_t z, int32_t, int32_t, int32_t) {
  static_cast<Sequence *>(args[0])->ids.push_back({x, y, z});
}

/// One thread runs the flat loop in order, so the calls show the decoding.
std::vector<std::array<int32_t, 3>> sequenceOf(blockc_grid grid, blockc::LaunchOptions options) {
  Sequence sequence;
  options.threads(1);
  EXPECT_EQ(blockc::launch(recordSequence, grid, options, sequence), BLOCKC_SUCCESS)
      << blockc_last_error();
  return sequence.ids;
}

TEST(GridOrder, XFastestVariesXThenYThenZ) {
  std::vector<std::array<int32_t, 3>> expected;
  for (int32_t z = 0; z < 3; ++z)
    for (int32_t y = 0; y < 5; ++y)
      for (int32_t x = 0; x < 7; ++x)
        expected.push_back({x, y, z});
  EXPECT_EQ(sequenceOf({7, 5, 3}, blockc::LaunchOptions().order(BLOCKC_ORDER_X_FASTEST)), expected);
}

TEST(GridOrder, ZFastestVariesZThenYThenX) {
  std::vector<std::array<int32_t, 3>> expected;
  for (int32_t x = 0; x < 7; ++x)
    for (int32_t y = 0; y < 5; ++y)
      for (int32_t z = 0; z < 3; ++z)
        expected.push_back({x, y, z});
  EXPECT_EQ(sequenceOf({7, 5, 3}, blockc::LaunchOptions().order(BLOCKC_ORDER_Z_FASTEST)), expected);
}

/// Triton's matmul tutorial, with pid_m = y (tile row) and pid_n = x (column).
std::array<int32_t, 2> tritonGroupedPid(int64_t pid, int64_t numPidN, int64_t numPidM,
                                        int64_t groupM) {
  int64_t numPidInGroup = groupM * numPidN;
  int64_t groupId = pid / numPidInGroup;
  int64_t firstPidM = groupId * groupM;
  int64_t groupSizeM = std::min(numPidM - firstPidM, groupM);
  int64_t pidM = firstPidM + ((pid % numPidInGroup) % groupSizeM);
  int64_t pidN = (pid % numPidInGroup) / groupSizeM;
  return {int32_t(pidN), int32_t(pidM)};
}

TEST(GridOrder, GroupedMatchesTritonAndIsABijection) {
  for (int32_t gridZ = 1; gridZ <= 2; ++gridZ)
    for (int32_t gridY = 1; gridY <= 9; ++gridY)
      for (int32_t gridX = 1; gridX <= 8; ++gridX)
        for (int32_t group = 1; group <= 10; ++group) {
          SCOPED_TRACE("grid " + std::to_string(gridX) + "x" + std::to_string(gridY) + "x" +
                       std::to_string(gridZ) + ", group " + std::to_string(group));
          std::vector<std::array<int32_t, 3>> expected;
          for (int32_t z = 0; z < gridZ; ++z)
            for (int64_t pid = 0; pid < int64_t(gridX) * gridY; ++pid) {
              auto [x, y] = tritonGroupedPid(pid, gridX, gridY, group);
              expected.push_back({x, y, z});
            }
          blockc_grid grid{gridX, gridY, gridZ};
          blockc::LaunchOptions options;
          options.grouped(group);
          ASSERT_EQ(sequenceOf(grid, options), expected);
          options.threads(2).schedule(BLOCKC_SCHEDULE_DYNAMIC);
          ASSERT_EQ(runAndCheckEachOnce(grid, options), "");
        }
}

//===- Grid sizes: one program, none, 2^24 ---------------------------------===//

struct Caller {
  pthread_t thread;
  std::atomic<int> calls{0};
  int openmpLevel = -1;
};

void recordCaller(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto &caller = *static_cast<Caller *>(args[0]);
  caller.calls.fetch_add(1);
  caller.thread = pthread_self();
  caller.openmpLevel = omp_get_level();
}

TEST(GridSize, OneProgramRunsOnTheCallingThreadOutsideOpenMP) {
  for (int32_t threads : {0, 1, 4}) {
    Caller caller;
    ASSERT_EQ(
        blockc::launch(recordCaller, {1, 1, 1}, blockc::LaunchOptions().threads(threads), caller),
        BLOCKC_SUCCESS)
        << blockc_last_error();
    EXPECT_EQ(caller.calls.load(), 1);
    EXPECT_TRUE(pthread_equal(caller.thread, pthread_self()));
    EXPECT_EQ(caller.openmpLevel, 0) << "the kernel ran inside an OpenMP parallel region";
  }
}

TEST(GridSize, EmptyGridIsANoOp) {
  for (blockc_grid grid :
       {blockc_grid{0, 5, 3}, blockc_grid{7, 0, 3}, blockc_grid{7, 5, 0}, blockc_grid{0, 0, 0}}) {
    Caller caller;
    EXPECT_EQ(blockc::launch(recordCaller, grid, blockc::LaunchOptions(), caller), BLOCKC_SUCCESS);
    EXPECT_STREQ(blockc_last_error(), "");
    EXPECT_EQ(caller.calls.load(), 0);
  }
}

TEST(GridSize, EmptyGridStillChecksItsOptions) {
  Caller caller;
  EXPECT_EQ(blockc::launch(recordCaller, {0, 1, 1}, blockc::LaunchOptions().threads(-1), caller),
            BLOCKC_ERROR_INVALID_OPTION);
}

TEST(GridSize, TwoToThe24ProgramsRunOnceEachInXFastestOrder) {
  EXPECT_EQ(runAndCheckEachOnce({1 << 12, 1 << 6, 1 << 6}, blockc::LaunchOptions()), "");
}

TEST(GridSize, TwoToThe24ProgramsRunOnceEachInGroupedOrder) {
  // 4093 rows are not a multiple of the group; 4099 x 4093 is just above 2^24.
  blockc::LaunchOptions options;
  options.grouped(8).schedule(BLOCKC_SCHEDULE_DYNAMIC, 256);
  EXPECT_EQ(runAndCheckEachOnce({4099, 4093, 1}, options), "");
}

//===- Threads --------------------------------------------------------------===//

struct ThreadsSeen {
  std::atomic<uint64_t> threadIds{0};
  std::atomic<int> teamSize{0};
};

void recordThread(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto &seen = *static_cast<ThreadsSeen *>(args[0]);
  seen.threadIds.fetch_or(uint64_t(1) << (omp_get_thread_num() % 64));
  seen.teamSize.store(omp_get_num_threads());
}

int popcount(uint64_t bits) {
  return __builtin_popcountll(bits);
}

/// OpenMP may give a team fewer threads than asked; then counts cannot be checked.
bool openmpMayShrinkTeamsBelow(int threads) {
  return omp_get_dynamic() || omp_get_thread_limit() < threads || omp_get_max_active_levels() < 1;
}

TEST(Threads, RequestedCountIsHonoredEvenAboveTheCoreCount) {
  if (openmpMayShrinkTeamsBelow(3))
    GTEST_SKIP() << "OMP_DYNAMIC, OMP_THREAD_LIMIT or OMP_MAX_ACTIVE_LEVELS lets OpenMP give "
                    "fewer threads than asked";
  // Static scheduling gives every thread a share of 1000 programs.
  for (int32_t threads : {1, 2, 3}) {
    ThreadsSeen seen;
    blockc::LaunchOptions options;
    options.threads(threads).schedule(BLOCKC_SCHEDULE_STATIC);
    ASSERT_EQ(blockc::launch(recordThread, {10, 10, 10}, options, seen), BLOCKC_SUCCESS)
        << blockc_last_error();
    EXPECT_EQ(popcount(seen.threadIds.load()), threads) << threads << " threads requested";
    EXPECT_EQ(seen.teamSize.load(), threads);
  }
}

TEST(Threads, DefaultIsOpenMPsThreadCount) {
  if (openmpMayShrinkTeamsBelow(omp_get_max_threads()))
    GTEST_SKIP() << "the OpenMP environment lets OpenMP give fewer threads than asked";
  ThreadsSeen seen;
  ASSERT_EQ(blockc::launch(recordThread, {1000, 1, 1}, blockc::LaunchOptions(), seen),
            BLOCKC_SUCCESS);
  EXPECT_EQ(seen.teamSize.load(), omp_get_max_threads());
}

TEST(Threads, TeamIsNoLargerThanTheGrid) {
  if (openmpMayShrinkTeamsBelow(2))
    GTEST_SKIP() << "the OpenMP environment lets OpenMP give fewer threads than asked";
  ThreadsSeen seen;
  ASSERT_EQ(blockc::launch(recordThread, {2, 1, 1}, blockc::LaunchOptions().threads(3), seen),
            BLOCKC_SUCCESS);
  EXPECT_EQ(seen.teamSize.load(), 2);
}

TEST(Threads, ConcurrentLaunchesFromApplicationThreadsEachRunTheirGrid) {
  blockc::LaunchOptions options;
  options.threads(2).schedule(BLOCKC_SCHEDULE_DYNAMIC);
  std::string problems[3];
  std::thread launchers[3];
  for (int i = 0; i < 3; ++i)
    launchers[i] =
        std::thread([&, i] { problems[i] = runAndCheckEachOnce({31, 17, i + 1}, options); });
  for (auto &launcher : launchers)
    launcher.join();
  for (const std::string &problem : problems)
    EXPECT_EQ(problem, "");
}

TEST(Threads, LaunchFromInsideAParallelRegionRunsEachProgramOnce) {
  std::string problems[2];
#pragma omp parallel num_threads(2)
  problems[omp_get_thread_num()] =
      runAndCheckEachOnce({13, 11, 2}, blockc::LaunchOptions().threads(2).grouped(3));
  EXPECT_EQ(problems[0], "");
  EXPECT_EQ(problems[1], "");
}

//===- Affinity -------------------------------------------------------------===//

cpu_set_t callingThreadCores() {
  cpu_set_t cores;
  CPU_ZERO(&cores);
  EXPECT_EQ(sched_getaffinity(0, sizeof cores, &cores), 0);
  return cores;
}

bool processMayUse(int core) {
  cpu_set_t cores = callingThreadCores();
  return CPU_ISSET(core, &cores);
}

/// Which cores each OpenMP thread ran programs on, as bitmasks (cores < 64).
struct CoresSeen {
  std::atomic<uint64_t> coresOfThread[4] = {};
  std::atomic<int> teamSize{0};
  std::atomic<int> openmpLevel{-1};
};

void recordCore(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto &seen = *static_cast<CoresSeen *>(args[0]);
  int core = sched_getcpu();
  seen.coresOfThread[omp_get_thread_num() % 4].fetch_or(uint64_t(1) << (core % 64));
  seen.teamSize.store(omp_get_num_threads());
  seen.openmpLevel.store(omp_get_level());
}

uint64_t allCoresSeen(const CoresSeen &seen) {
  uint64_t all = 0;
  for (const auto &cores : seen.coresOfThread)
    all |= cores.load();
  return all;
}

/// The CPU masks of the calling thread (index 0) and of up to two OpenMP pool
/// threads. Pool threads keep their masks between regions, and OMP_PROC_BIND
/// gives each its own, so each is compared with itself before the launch.
struct TeamMasks {
  cpu_set_t ofThread[3];
  int threads = 0; // OMP_DYNAMIC or OMP_THREAD_LIMIT may give fewer than 3

  static TeamMasks now() {
    TeamMasks masks;
#pragma omp parallel num_threads(3)
    {
      sched_getaffinity(0, sizeof(cpu_set_t), &masks.ofThread[omp_get_thread_num()]);
#pragma omp single
      masks.threads = omp_get_num_threads();
    }
    return masks;
  }
};

void expectMasksRestored(const TeamMasks &before) {
  TeamMasks after = TeamMasks::now();
  for (int thread = 0; thread < std::min(before.threads, after.threads); ++thread)
    EXPECT_TRUE(CPU_EQUAL(&after.ofThread[thread], &before.ofThread[thread]))
        << "OpenMP thread " << thread << " stayed pinned";
}

class PinnedToOneCore : public testing::TestWithParam<int> {};

TEST_P(PinnedToOneCore, EveryProgramRunsOnThatCore) {
  int core = GetParam();
  if (!processMayUse(core))
    GTEST_SKIP() << "core " << core << " is not in this process's CPU affinity mask";
  TeamMasks before = TeamMasks::now();
  for (int32_t threads : {0, 1, 2, 3}) {
    for (blockc_grid grid : {blockc_grid{1, 1, 1}, blockc_grid{64, 4, 1}}) {
      CoresSeen seen;
      blockc::LaunchOptions options;
      options.threads(threads).affinity({core});
      ASSERT_EQ(blockc::launch(recordCore, grid, options, seen), BLOCKC_SUCCESS)
          << blockc_last_error();
      EXPECT_EQ(allCoresSeen(seen), uint64_t(1) << core) << threads << " threads";
      expectMasksRestored(before);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Affinity, PinnedToOneCore, testing::Values(0, 1));

TEST(Affinity, ThreadTRunsOnTheTthListedCore) {
  if (!processMayUse(0) || !processMayUse(1))
    GTEST_SKIP() << "needs cores 0 and 1 in this process's CPU affinity mask";
  TeamMasks before = TeamMasks::now();
  CoresSeen seen;
  blockc::LaunchOptions options;
  options.affinity({1, 0}).schedule(BLOCKC_SCHEDULE_STATIC);
  ASSERT_EQ(blockc::launch(recordCore, {256, 1, 1}, options, seen), BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(seen.teamSize.load(), 2) << "no thread count given: one thread per listed core";
  EXPECT_EQ(seen.coresOfThread[0].load(), uint64_t(1) << 1);
  EXPECT_EQ(seen.coresOfThread[1].load(), uint64_t(1) << 0);
  expectMasksRestored(before);
}

TEST(Affinity, OneListedCoreMeansOneThreadOutsideOpenMP) {
  if (!processMayUse(0))
    GTEST_SKIP() << "core 0 is not in this process's CPU affinity mask";
  CoresSeen seen;
  ASSERT_EQ(blockc::launch(recordCore, {100, 1, 1}, blockc::LaunchOptions().affinity({0}), seen),
            BLOCKC_SUCCESS);
  EXPECT_EQ(seen.openmpLevel.load(), 0);
}

TEST(Affinity, CoreOutsideTheProcessMaskIsAnError) {
  int forbidden = 0;
  while (forbidden < CPU_SETSIZE && processMayUse(forbidden))
    ++forbidden;
  if (forbidden > BLOCKC_MAX_CORE_ID)
    GTEST_SKIP() << "every core id blockc accepts is in this process's CPU affinity mask";
  CoresSeen seen;
  EXPECT_EQ(
      blockc::launch(recordCore, {8, 1, 1}, blockc::LaunchOptions().affinity({forbidden}), seen),
      BLOCKC_ERROR_INVALID_OPTION);
  std::string expected = "affinity_cores[0] = " + std::to_string(forbidden) + ": core " +
                         std::to_string(forbidden) +
                         " is not in the calling thread's CPU affinity mask (allowed: ";
  EXPECT_EQ(std::string(blockc_last_error()).rfind(expected, 0), 0u) << blockc_last_error();
  EXPECT_EQ(allCoresSeen(seen), 0u) << "a kernel ran despite the error";
}

//===- The C++ layer and the C API ------------------------------------------===//

void addScaled(void **args, int32_t x, int32_t, int32_t, int32_t, int32_t, int32_t) {
  float *out = *static_cast<float **>(args[0]);
  const float *in = *static_cast<const float **>(args[1]);
  float scale = *static_cast<const float *>(args[2]);
  out[x] += scale * in[x];
}

TEST(CppLayer, LaunchPassesEachArgumentByAddress) {
  std::vector<float> in(100, 2.0f), out(100, 1.0f);
  float *outData = out.data();
  const float *inData = in.data();
  ASSERT_EQ(blockc::launch(addScaled, {100, 1, 1}, blockc::LaunchOptions().threads(2), outData,
                           inData, 0.5f),
            BLOCKC_SUCCESS);
  EXPECT_EQ(std::count(out.begin(), out.end(), 2.0f), 100);
}

TEST(CApi, HeaderCompilesAsCAndLaunches) {
  std::vector<int32_t> data(50, 0);
  ASSERT_EQ(blockcRuntimeHeaderRunFromC(data.data(), 50), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(std::count(data.begin(), data.end(), 1), 50);
}

TEST(CApi, KernelInfoFromCLaunches) {
  std::vector<int32_t> data(50, 0);
  ASSERT_EQ(blockcRuntimeHeaderRunKernelFromC(data.data(), 50), BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(std::count(data.begin(), data.end(), 1), 50);
}

} // namespace

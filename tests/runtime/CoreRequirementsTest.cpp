//===- CoreRequirementsTest.cpp - Launching kernels that need the IME -----===//
//
// The IME cores are injected (injectImeCoresForTesting), so that the
// placement and its errors are tested on any Linux machine: the "IME cores"
// are then cores of this machine, and a kernel records where it ran.
//
//===----------------------------------------------------------------------===//
#include "CoreFeatures.h"
#include "blockc/runtime.h"

#include <atomic>
#include <cstdint>
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>
#include <string>
#include <vector>

using namespace blockc::runtime;

namespace {

std::vector<int> allowedCores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  sched_getaffinity(0, sizeof mask, &mask);
  std::vector<int> cores;
  for (int core = 0; core <= BLOCKC_MAX_CORE_ID; ++core)
    if (CPU_ISSET(core, &mask))
      cores.push_back(core);
  return cores;
}

/// Where a kernel's programs ran: a bitmask of cores (< 64) and the team.
struct Placement {
  std::atomic<uint64_t> cores{0};
  std::atomic<int> programs{0};
  std::atomic<int> teamSize{0};
  std::atomic<int> unpinnedPrograms{0}; // run by a thread allowed on several cores
};

void recordPlacement(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto &placement = *static_cast<Placement *>(args[0]);
  placement.cores.fetch_or(uint64_t(1) << (sched_getcpu() % 64));
  placement.programs.fetch_add(1);
  placement.teamSize.store(omp_get_num_threads());
  cpu_set_t mask;
  sched_getaffinity(0, sizeof mask, &mask);
  if (CPU_COUNT(&mask) > 1)
    placement.unpinnedPrograms.fetch_add(1);
}

uint64_t bits(const std::vector<int> &cores) {
  uint64_t mask = 0;
  for (int core : cores)
    mask |= uint64_t(1) << (core % 64);
  return mask;
}

class ImeKernel : public testing::Test {
protected:
  void TearDown() override { injectImeCoresForTesting(nullptr); }

  void injectIme(const std::vector<int> &cores) {
    CoreSet set;
    for (int core : cores)
      set.set(size_t(core));
    injectImeCoresForTesting(&set);
  }

  int launch(Placement &placement, blockc_grid grid, const blockc_launch_options *options,
             uint64_t requirements = BLOCKC_REQUIRES_SPACEMIT_IME, const char *name = "matmul") {
    void *args[] = {&placement};
    blockc_kernel_info info = BLOCKC_KERNEL_INFO(name, 0, requirements);
    return blockc_launch_kernel(recordPlacement, args, grid, options, &info);
  }

  blockc_launch_options defaults() {
    blockc_launch_options options;
    blockc_launch_options_init(&options);
    return options;
  }
};

TEST_F(ImeKernel, WithoutAffinityRunsOnTheImeCoresOneThreadEach) {
  std::vector<int> allowed = allowedCores();
  if (allowed.size() < 2 || allowed[1] >= 64)
    GTEST_SKIP() << "needs two cores below 64 in this process's CPU affinity mask";
  std::vector<int> ime = {allowed[0], allowed[1]};
  injectIme(ime);
  Placement placement;
  blockc_launch_options options = defaults();
  ASSERT_EQ(launch(placement, {64, 4, 1}, &options), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(placement.programs.load(), 256);
  EXPECT_EQ(placement.teamSize.load(), 2);
  EXPECT_EQ(placement.cores.load() & ~bits(ime), 0u) << "a program ran outside the IME cores";
  EXPECT_EQ(placement.unpinnedPrograms.load(), 0);

  // The options were not changed: the same options launch a plain kernel
  // unpinned.
  EXPECT_EQ(options.num_affinity_cores, 0);
  Placement plain;
  ASSERT_EQ(launch(plain, {64, 1, 1}, &options, 0), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(plain.programs.load(), 64);
  EXPECT_EQ(plain.unpinnedPrograms.load(), 64);
}

TEST_F(ImeKernel, ThreadCountGivenStillRunsOnTheImeCoresOnly) {
  std::vector<int> allowed = allowedCores();
  if (allowed[0] >= 64)
    GTEST_SKIP() << "needs a core below 64 in this process's CPU affinity mask";
  injectIme({allowed[0]});
  for (int threads : {1, 3}) {
    Placement placement;
    blockc_launch_options options = defaults();
    options.num_threads = threads;
    ASSERT_EQ(launch(placement, {100, 1, 1}, &options), BLOCKC_SUCCESS) << blockc_last_error();
    EXPECT_EQ(placement.programs.load(), 100);
    EXPECT_EQ(placement.cores.load(), bits({allowed[0]})) << threads << " threads";
  }
}

TEST_F(ImeKernel, NullOptionsAreTheDefaultsAndTheyArePlacedToo) {
  std::vector<int> allowed = allowedCores();
  if (allowed[0] >= 64)
    GTEST_SKIP() << "needs a core below 64 in this process's CPU affinity mask";
  injectIme({allowed[0]});
  Placement placement;
  ASSERT_EQ(launch(placement, {16, 1, 1}, nullptr), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(placement.cores.load(), bits({allowed[0]}));
}

TEST_F(ImeKernel, AffinityOnImeCoresIsKept) {
  std::vector<int> allowed = allowedCores();
  if (allowed.size() < 2 || allowed[1] >= 64)
    GTEST_SKIP() << "needs two cores below 64 in this process's CPU affinity mask";
  injectIme({allowed[0], allowed[1]});
  Placement placement;
  blockc_launch_options options = defaults();
  options.num_affinity_cores = 1;
  options.affinity_cores[0] = allowed[1];
  ASSERT_EQ(launch(placement, {32, 1, 1}, &options), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(placement.cores.load(), bits({allowed[1]}));
}

TEST_F(ImeKernel, AffinityOnACoreWithoutTheImeIsAnError) {
  std::vector<int> allowed = allowedCores();
  if (allowed.size() < 2)
    GTEST_SKIP() << "needs two cores in this process's CPU affinity mask";
  injectIme({allowed[0]});
  Placement placement;
  blockc_launch_options options = defaults();
  options.num_affinity_cores = 2;
  options.affinity_cores[0] = allowed[0];
  options.affinity_cores[1] = allowed[1];
  EXPECT_EQ(launch(placement, {32, 1, 1}, &options), BLOCKC_ERROR_CORE_REQUIREMENT);
  std::string expected = "kernel matmul uses the SpacemiT IME (smt.vmadot), but affinity core " +
                         std::to_string(allowed[1]) + " (affinity_cores[1]) has none: only cores " +
                         std::to_string(allowed[0]) + " have it; no program ran";
  EXPECT_EQ(blockc_last_error(), expected);
  EXPECT_EQ(placement.programs.load(), 0);
}

TEST_F(ImeKernel, NoImeCoreOnTheMachineIsAnErrorEvenForAnEmptyGrid) {
  injectIme({});
  for (blockc_grid grid : {blockc_grid{8, 1, 1}, blockc_grid{0, 1, 1}}) {
    Placement placement;
    blockc_launch_options options = defaults();
    EXPECT_EQ(launch(placement, grid, &options), BLOCKC_ERROR_CORE_REQUIREMENT);
    std::string message = blockc_last_error();
    EXPECT_EQ(message.rfind("kernel matmul uses the SpacemiT IME (smt.vmadot), which no core of "
                            "this machine has",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find("compile it for spacemit-k1-qemu or rv64gcv"), std::string::npos)
        << message;
    EXPECT_EQ(placement.programs.load(), 0);
  }
}

TEST_F(ImeKernel, ImeCoresOutsideTheProcessMaskAreAnError) {
  std::vector<int> allowed = allowedCores();
  int forbidden = 0;
  while (forbidden <= BLOCKC_MAX_CORE_ID &&
         std::find(allowed.begin(), allowed.end(), forbidden) != allowed.end())
    ++forbidden;
  if (forbidden > BLOCKC_MAX_CORE_ID)
    GTEST_SKIP() << "every core id is in this process's CPU affinity mask";
  injectIme({forbidden});
  Placement placement;
  blockc_launch_options options = defaults();
  EXPECT_EQ(launch(placement, {8, 1, 1}, &options, BLOCKC_REQUIRES_SPACEMIT_IME, nullptr),
            BLOCKC_ERROR_CORE_REQUIREMENT);
  std::string expected = "this kernel uses the SpacemiT IME (smt.vmadot), which only cores " +
                         std::to_string(forbidden) +
                         " have, and the calling thread may run on none of them (allowed: ";
  EXPECT_EQ(std::string(blockc_last_error()).rfind(expected, 0), 0u) << blockc_last_error();
  EXPECT_EQ(placement.programs.load(), 0);
}

TEST_F(ImeKernel, UnknownRequirementIsAnError) {
  injectIme({allowedCores()[0]});
  Placement placement;
  blockc_launch_options options = defaults();
  EXPECT_EQ(launch(placement, {8, 1, 1}, &options, BLOCKC_REQUIRES_SPACEMIT_IME | 4),
            BLOCKC_ERROR_CORE_REQUIREMENT);
  EXPECT_EQ(std::string(blockc_last_error())
                .rfind("kernel matmul requires core features 0x4 "
                       "that this runtime does not know",
                       0),
            0u)
      << blockc_last_error();
  EXPECT_EQ(placement.programs.load(), 0);
}

TEST_F(ImeKernel, KernelWithoutRequirementsIgnoresTheImeCores) {
  injectIme({});
  Placement placement;
  blockc_launch_options options = defaults();
  options.num_threads = 2;
  ASSERT_EQ(launch(placement, {64, 1, 1}, &options, 0), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(placement.programs.load(), 64);
}

//===- blockc_kernel_info ---------------------------------------------------===//

TEST(KernelInfo, StructSizeTooSmallIsAnError) {
  Placement placement;
  void *args[] = {&placement};
  blockc_kernel_info info = BLOCKC_KERNEL_INFO("k", 0, 0);
  info.struct_size = 0;
  EXPECT_EQ(blockc_launch_kernel(recordPlacement, args, {4, 1, 1}, nullptr, &info),
            BLOCKC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(blockc_last_error()).rfind("info->struct_size = 0: expected", 0), 0u)
      << blockc_last_error();
  EXPECT_EQ(placement.programs.load(), 0);
}

// A caller built against a later header passes a larger struct.
TEST(KernelInfo, LargerStructFromALaterHeaderIsAccepted) {
  struct Later {
    blockc_kernel_info known;
    uint64_t added;
  } later = {BLOCKC_KERNEL_INFO("k", 0, 0), 7};
  later.known.struct_size = sizeof later;
  Placement placement;
  void *args[] = {&placement};
  EXPECT_EQ(blockc_launch_kernel(recordPlacement, args, {4, 1, 1}, nullptr, &later.known),
            BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(placement.programs.load(), 4);
}

TEST(KernelInfo, NullInfoIsAPlainLaunch) {
  Placement placement;
  void *args[] = {&placement};
  EXPECT_EQ(blockc_launch_kernel(recordPlacement, args, {5, 1, 1}, nullptr, nullptr),
            BLOCKC_SUCCESS);
  EXPECT_EQ(placement.programs.load(), 5);
}

TEST(KernelInfo, ScratchErrorNamesTheKernel) {
  Placement placement;
  void *args[] = {&placement};
  blockc_kernel_info info = BLOCKC_KERNEL_INFO("softmax", UINT64_MAX, 0);
  EXPECT_EQ(blockc_launch_kernel(recordPlacement, args, {4, 1, 1}, nullptr, &info),
            BLOCKC_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(std::string(blockc_last_error()).rfind("kernel softmax needs", 0), 0u)
      << blockc_last_error();
}

} // namespace

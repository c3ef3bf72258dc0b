//===- CoreFeaturesTest.cpp - Which cores have the IME, from canned input -===//
//
// The /proc/cpuinfo texts are written from the fields Linux's
// arch/riscv/kernel/cpu.c prints (processor, hart, isa, mmu, uarch, mvendorid,
// marchid, mimpid) with the X60's ids; the topologies are what
// drivers/base/arch_topology.c makes of the K1's cpu-map on each kernel
// generation. Nothing here reads the machine, except the one test that
// detects this machine's answer in a child process.
//
//===----------------------------------------------------------------------===//
#include "CoreFeatures.h"

#include <cstdlib>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace blockc::runtime;

namespace {

std::string x60Entry(int processor, const char *marchid = "0x8000000058000001") {
  return "processor\t: " + std::to_string(processor) + "\nhart\t\t: " + std::to_string(processor) +
         "\nmodel name\t: Spacemit(R) X60\n"
         "isa\t\t: rv64imafdcv_zicbom_zicboz_zicntr_zicond_zicsr_zifencei_zihintpause_zihpm_zfh_"
         "zfhmin_zca_zcd_zba_zbb_zbc_zbs_zkt_zve32f_zve32x_zve64d_zve64f_zve64x_zvfh_zvfhmin_zvkt_"
         "sscofpmf_sstc_svinval_svnapot_svpbmt\n"
         "mmu\t\t: sv39\nuarch\t\t: spacemit,x60\nmvendorid\t: 0x710\nmarchid\t\t: " +
         std::string(marchid) + "\nmimpid\t\t: 0x1000000049772200\n\n";
}

std::string k1CpuInfo(std::vector<int> online = {0, 1, 2, 3, 4, 5, 6, 7}) {
  std::string text;
  for (int core : online)
    text += x60Entry(core);
  return text;
}

CoreSet cores(std::initializer_list<int> ids) {
  CoreSet set;
  for (int id : ids)
    set.set(size_t(id));
  return set;
}

std::string text(const CoreSet &set) {
  char buffer[64];
  formatCoreSet(set, buffer, sizeof buffer);
  return buffer;
}

/// A topology table for every core id, all unknown.
std::vector<CoreTopology> unknownTopology() {
  return std::vector<CoreTopology>(BLOCKC_MAX_CORE_ID + 1);
}

/// The IME cores of a K1 whose eight cores are X60s, core c with the
/// cluster and package ids `ids(c)`.
ImeCores imeCoresOfK1(const std::function<CoreTopology(int core)> &ids) {
  auto topology = unknownTopology();
  for (int core = 0; core < 8; ++core)
    topology[size_t(core)] = ids(core);
  return imeCoresOfX60s(cores({0, 1, 2, 3, 4, 5, 6, 7}), topology.data());
}

//===- /proc/cpuinfo ----------------------------------------------------------===//

TEST(CpuInfo, EveryK1CoreIsAnX60) {
  EXPECT_EQ(text(x60CoresInCpuInfo(k1CpuInfo())), "0-7");
}

TEST(CpuInfo, OfflineCoresAreAbsent) {
  EXPECT_EQ(text(x60CoresInCpuInfo(k1CpuInfo({0, 1, 5}))), "0-1,5");
}

TEST(CpuInfo, X86HasNoX60) {
  EXPECT_TRUE(x60CoresInCpuInfo("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                                "model name\t: Intel(R) Xeon(R)\nflags\t\t: fpu vme avx512f\n\n")
                  .none());
}

// QEMU's user mode prints processor, hart, isa and mmu only (or the host's
// file): it cannot run the IME, and must not be taken for a K1.
TEST(CpuInfo, QemuWithoutIdsHasNoX60) {
  EXPECT_TRUE(x60CoresInCpuInfo("processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdcv\nmmu\t\t: sv39\n"
                                "\nprocessor\t: 1\nhart\t\t: 1\nisa\t\t: rv64imafdcv\n")
                  .none());
}

TEST(CpuInfo, BothIdsMustMatch) {
  std::string otherArch = x60Entry(0, "0x8000000000000007");
  std::string vendorOnly = "processor\t: 1\nmvendorid\t: 0x710\n\n";
  std::string archOnly = "processor\t: 2\nmarchid\t\t: 0x8000000058000001\n\n";
  EXPECT_EQ(text(x60CoresInCpuInfo(otherArch + vendorOnly + archOnly + x60Entry(3))), "3");
}

TEST(CpuInfo, EntriesNeedNoBlankLineBetweenThem) {
  std::string text0 = x60Entry(0), text1 = x60Entry(1);
  text0.pop_back(); // the blank line
  EXPECT_EQ(text(x60CoresInCpuInfo(text0 + text1)), "0-1");
}

TEST(CpuInfo, CarriageReturnsAndOddSpacingAreRead) {
  EXPECT_EQ(text(x60CoresInCpuInfo("processor:6\r\nmvendorid :0x710\r\n"
                                   "marchid:   0X8000000058000001   \r\n")),
            "6");
}

// Whatever the file holds, the scanner neither crashes nor invents a core.
TEST(CpuInfo, DamagedEntriesAreSkipped) {
  const char *damaged[] = {
      "mvendorid\t: 0x710\nmarchid\t: 0x8000000058000001\n",                    // no processor
      "processor\t: -1\nmvendorid\t: 0x710\nmarchid\t: 0x8000000058000001\n",   // negative
      "processor\t: 1024\nmvendorid\t: 0x710\nmarchid\t: 0x8000000058000001\n", // too large
      "processor\t: 99999999999999999999999\nmvendorid: 0x710\nmarchid: 0x8000000058000001\n",
      "processor\t: 2x\nmvendorid\t: 0x710\nmarchid\t: 0x8000000058000001\n",
      "processor\t: 3\nmvendorid\t: 0x710z\nmarchid\t: 0x8000000058000001\n",
      "processor\t: 4\nmvendorid\t: \nmarchid\t: 0x\n",
      "processor\t: 5\nmvendorid 0x710\nmarchid 0x8000000058000001\n",        // no colons
      "processor\t: 6\nmvendorid\t: 0x710\nmarchid\t: 0x80000000580000011\n", // overflows
      "",
      ":\n:::\n\n\n",
  };
  for (const char *input : damaged)
    EXPECT_TRUE(x60CoresInCpuInfo(input).none()) << input;
}

TEST(CpuInfo, IdsOfOneEntryDoNotLeakIntoTheNext) {
  EXPECT_TRUE(x60CoresInCpuInfo("processor\t: 0\nmvendorid\t: 0x710\nprocessor\t: 1\nmarchid\t: "
                                "0x8000000058000001\n")
                  .none());
}

//===- Topology ---------------------------------------------------------------===//

// Linux 6.x: the cpu-map's clusters are cluster_id 0 and 1; all cores are in
// package 0.
TEST(ImeCores, ClusterIdOfLinux6) {
  ImeCores ime = imeCoresOfK1([](int core) { return CoreTopology{core / 4, 0}; });
  EXPECT_EQ(text(ime.cores), "0-3");
  EXPECT_EQ(ime.evidence, ImeEvidence::ClusterId);
}

// Before 6.0 a cpu-map cluster became the physical package.
TEST(ImeCores, PackageIdOfOlderKernels) {
  ImeCores ime = imeCoresOfK1([](int core) { return CoreTopology{-1, core / 4}; });
  EXPECT_EQ(text(ime.cores), "0-3");
  EXPECT_EQ(ime.evidence, ImeEvidence::PackageId);
}

// Without a cpu-map every core is in package 0 and no cluster: ids that do
// not split the X60s say nothing, and the K1's layout is assumed.
TEST(ImeCores, NoClustersFallBackToCores0To3) {
  ImeCores ime = imeCoresOfK1([](int) { return CoreTopology{-1, 0}; });
  EXPECT_EQ(text(ime.cores), "0-3");
  EXPECT_EQ(ime.evidence, ImeEvidence::FirstFourCores);

  ime = imeCoresOfX60s(cores({0, 1, 2, 3, 4, 5, 6, 7}), unknownTopology().data());
  EXPECT_EQ(text(ime.cores), "0-3");
  EXPECT_EQ(ime.evidence, ImeEvidence::FirstFourCores);
}

// With cluster 0 offline, the one visible cluster is not the IME's: no core
// has the IME, rather than cores 4-7 dying of an illegal instruction.
TEST(ImeCores, ClusterZeroOfflineMeansNoImeCore) {
  auto topology = unknownTopology();
  for (int core = 4; core < 8; ++core)
    topology[size_t(core)] = {1, 0};
  ImeCores ime = imeCoresOfX60s(cores({4, 5, 6, 7}), topology.data());
  EXPECT_TRUE(ime.cores.none()) << text(ime.cores);
}

TEST(ImeCores, OnlineCoresOfClusterZeroOnly) {
  auto topology = unknownTopology();
  for (int core = 0; core < 8; ++core)
    topology[size_t(core)] = {core / 4, 0};
  EXPECT_EQ(text(imeCoresOfX60s(cores({2, 3, 4, 6}), topology.data()).cores), "2-3");
  EXPECT_EQ(text(imeCoresOfX60s(cores({0, 1}), topology.data()).cores), "0-1");
}

// An X60 whose id is unknown makes the id useless: the next source decides.
TEST(ImeCores, AnUnknownClusterIdFallsBackToThePackage) {
  auto topology = unknownTopology();
  for (int core = 0; core < 8; ++core)
    topology[size_t(core)] = {core == 5 ? -1 : core / 4, core / 4};
  ImeCores ime = imeCoresOfX60s(cores({0, 1, 2, 3, 4, 5, 6, 7}), topology.data());
  EXPECT_EQ(text(ime.cores), "0-3");
  EXPECT_EQ(ime.evidence, ImeEvidence::PackageId);
}

TEST(ImeCores, NoX60MeansNoIme) {
  ImeCores ime = imeCoresOfX60s(CoreSet(), unknownTopology().data());
  EXPECT_TRUE(ime.cores.none());
  EXPECT_EQ(ime.evidence, ImeEvidence::NoX60);
}

TEST(FormatCoreSet, RangesAndSingles) {
  EXPECT_EQ(text(cores({0, 1, 2, 3, 6, 8, 9})), "0-3,6,8-9");
  EXPECT_EQ(text(cores({1023})), "1023");
  EXPECT_EQ(text(CoreSet()), "none");
}

//===- The machine's answer, in a child process -----------------------------===//

// The answer is kept for the process, so each case runs in a fresh child
// ("threadsafe" death tests re-execute the binary).
class MachineImeCores : public testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

/// Exits 0 when the machine's answer is `expected`, else 1; 2 on an error.
[[noreturn]] void exitWithAnswer(const char *expected) {
  const ImeCores *ime = nullptr;
  if (machineImeCores(ime) != 0) {
    std::fprintf(stderr, "%s\n", blockc_last_error());
    std::exit(2);
  }
  std::fprintf(stderr, "answer: %s\n", text(ime->cores).c_str());
  std::exit(text(ime->cores) == expected ? 0 : 1);
}

TEST_F(MachineImeCores, EnvironmentReplacesDetection) {
  EXPECT_EXIT(
      {
        setenv("BLOCKC_IME_CORES", "2-3, 0", 1);
        exitWithAnswer("0,2-3");
      },
      testing::ExitedWithCode(0), "answer: 0,2-3");
}

TEST_F(MachineImeCores, MalformedEnvironmentIsAnError) {
  EXPECT_EXIT(
      {
        setenv("BLOCKC_IME_CORES", "0-3,x", 1);
        exitWithAnswer("");
      },
      testing::ExitedWithCode(2),
      "BLOCKC_IME_CORES=\"0-3,x\": \"x\" is not a core id or a range FIRST-LAST");
}

#if !defined(__riscv)
TEST_F(MachineImeCores, ThisMachineHasNone) {
  EXPECT_EXIT(
      {
        unsetenv("BLOCKC_IME_CORES");
        exitWithAnswer("none");
      },
      testing::ExitedWithCode(0), "answer: none");
}
#endif

} // namespace

//===- HostCompatibilityTest.cpp - Which targets may run in process -------===//
//
// The JIT once compared only architectures: sapphirerapids code then died
// with SIGILL on a CPU without AVX512-FP16. missingFeatures is checked here
// against described CPUs, so that every case runs on any build machine.
//
//===----------------------------------------------------------------------===//
#include "blockc/jit/HostCompatibility.h"

#include "ScopedEnvironment.h"

#include <gtest/gtest.h>

using namespace blockc;

namespace {

Target named(const std::string &name) {
  Target t;
  std::string error;
  EXPECT_TRUE(lookupTarget(name, t, error)) << error;
  return t;
}

/// An AVX-512 CPU without FP16 and AMX, as the Zen 4 and Zen 5 machines are.
llvm::StringMap<bool> zen4() {
  llvm::StringMap<bool> f;
  for (const char *on : {"sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq",
                         "avx512vl", "avx512bf16", "avx512vnni", "bmi2"})
    f[on] = true;
  for (const char *off : {"avx512fp16", "amx-tile", "amx-bf16", "amx-int8"})
    f[off] = false;
  return f;
}

} // namespace

TEST(HostCompatibility, ImpliedFeaturesTheCpuLacksAreNamed) {
  // sapphirerapids implies avx512fp16 and AMX through its CPU name as well as
  // its feature string.
  auto missing = missingFeatures(named("sapphirerapids"), "x86_64-pc-linux-gnu", zen4());
  for (const char *f : {"avx512fp16", "amx-tile", "amx-bf16", "amx-int8"})
    EXPECT_NE(std::find(missing.begin(), missing.end(), f), missing.end()) << f;
  EXPECT_TRUE(missingFeatures(named("x86-64-v4"), "x86_64-pc-linux-gnu", zen4()).empty());
}

TEST(HostCompatibility, FeaturesTheHostDoesNotReportAreNotCompared) {
  // A host map without AVX2 information must not invent a mismatch.
  llvm::StringMap<bool> sparse;
  sparse["avx512f"] = false;
  EXPECT_TRUE(missingFeatures(named("x86-64-v3"), "x86_64-pc-linux-gnu", sparse).empty());
  auto missing = missingFeatures(named("x86-64-v4"), "x86_64-pc-linux-gnu", sparse);
  EXPECT_EQ(missing, std::vector<std::string>{"avx512f"});
}

TEST(HostCompatibility, AnotherArchitectureIsNeverRunnable) {
  EXPECT_FALSE(missingFeatures(named("x86-64-v3"), "aarch64-unknown-linux-gnu", {}).empty());
  EXPECT_FALSE(missingFeatures(named("rv64gcv"), "x86_64-pc-linux-gnu", {}).empty());
  // The same architecture with every extension the target names runs it.
  // RISC-V and AArch64 hosts list only what they have, so an extension they
  // do not list is missing.
  llvm::StringMap<bool> rvv;
  for (const char *f : {"m", "a", "c", "v", "zba", "zbb", "zfh", "zvfh"})
    rvv[f] = true;
  EXPECT_TRUE(missingFeatures(named("rv64gcv"), "riscv64-unknown-linux-gnu", rvv).empty());
  rvv.erase("v");
  EXPECT_EQ(missingFeatures(named("rv64gcv"), "riscv64-unknown-linux-gnu", rvv),
            std::vector<std::string>{"v"});
}

// A Xeon virtual machine hides system instructions (enqcmd, uintr, waitpkg,
// ...) that sapphirerapids implies; kernels never use them, so they must not
// stop sapphirerapids code from running there.
TEST(HostCompatibility, SystemInstructionsAVmHidesAreNotRequired) {
  llvm::StringMap<bool> xeonVm = zen4();
  for (const char *on : {"avx512fp16", "amx-tile", "amx-bf16", "amx-int8", "avx512vbmi",
                         "avx512vbmi2", "avx512bitalg", "avx512vpopcntdq", "avx512ifma", "gfni",
                         "vaes", "vpclmulqdq", "avxvnni", "amx-tile"})
    xeonVm[on] = true;
  for (const char *hidden : {"enqcmd", "pconfig", "ptwrite", "uintr", "waitpkg"})
    xeonVm[hidden] = false;
  EXPECT_EQ(missingFeatures(named("sapphirerapids"), "x86_64-pc-linux-gnu", xeonVm),
            std::vector<std::string>{});
  xeonVm["avx512fp16"] = false;
  EXPECT_EQ(missingFeatures(named("sapphirerapids"), "x86_64-pc-linux-gnu", xeonVm),
            std::vector<std::string>{"avx512fp16"});
}

// BLOCKC_HOST_FEATURES speaks for the machine in this check too: a feature it
// takes away refuses the targets that need it. (Every machine this suite runs
// on has AVX2.)
TEST(HostCompatibility, TheHostOverrideDecides) {
  Target v3 = named("x86-64-v3");
  std::string error;
  ASSERT_TRUE(canRunOnThisMachine(v3, error)) << error;
  ScopedEnvironment withoutAvx2("BLOCKC_HOST_FEATURES", "-avx2");
  EXPECT_FALSE(canRunOnThisMachine(v3, error));
  EXPECT_NE(error.find("needs CPU features this machine lacks: avx2"), std::string::npos) << error;
}

// The cross targets as a user meets them on the command line: what `blockc
// targets` lists, feature changes, types a target cannot lower, and shared
// libraries that name the target's own SLEEF.
#include "RunProcess.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace blockc::test;
namespace fs = std::filesystem;

namespace {

const std::string kSoftmax = BLOCKC_EXAMPLES_DIR "/softmax.bir";
const std::string kVectorAdd = BLOCKC_EXAMPLES_DIR "/vector_add.bir";

TEST(CrossTargets, TargetsListsEveryIsaFamily) {
  ProcessResult r = runBlockc("targets");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char *name : {"spacemit-k1", "spacemit-k1-qemu", "rv64gcv", "armv8.2-a+sve",
                           "neoverse-v1", "armv8-a", "x86-64-v4", "host"})
    EXPECT_NE(r.out.find(std::string(name) + "\n"), std::string::npos) << name << "\n" << r.out;
  // The K1 as LLVM knows the X60, and the emulated variant without what QEMU 7.2 lacks.
  EXPECT_NE(r.out.find("cpu spacemit-x60"), std::string::npos);
  EXPECT_NE(r.out.find("zicond zvl256b xsmtvdot"), std::string::npos) << r.out;
}

TEST(CrossTargets, UnknownTargetListsTheKnownOnes) {
  ProcessResult r = runBlockc("compile " + kVectorAdd + " --target riscv64-rvv -o /dev/null");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown target 'riscv64-rvv'; known targets: "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("spacemit-k1 spacemit-k1-qemu rv64gcv"), std::string::npos) << r.err;
}

TEST(CrossTargets, UnknownOrUnsignedFeatureIsAnError) {
  for (const char *change : {"+zvfhh", "zvfh", "-"}) {
    ProcessResult r = runBlockc("compile " + kVectorAdd + " --target rv64gcv --features=" + change +
                                " -o /dev/null");
    EXPECT_EQ(r.exitCode, 1) << change;
    EXPECT_NE(r.err.find("unknown feature change '" + std::string(change) + "'"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(" zvfh "), std::string::npos) << "lists the known features: " << r.err;
  }
}

TEST(CrossTargets, FeatureChangesReachTheCode) {
  // spacemit-k1 minus zicond and xsmtvdot is what QEMU runs: the same code
  // as spacemit-k1-qemu but for the CPU name.
  ProcessResult r = runBlockc("compile " + kSoftmax +
                              " --target spacemit-k1 --features=-zicond,-xsmtvdot --emit=asm -o -");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find("zicond"), std::string::npos);
  EXPECT_EQ(r.out.find("czero"), std::string::npos);
}

TEST(CrossTargets, TypeTheTargetCannotLowerIsALocatedError) {
  fs::path dir = scratchDir("cross_f16");
  std::string path = (dir / "half.bir").string();
  std::ofstream(path) << "kernel @k(%p: ptr<f16>) {\n"
                         "  %r = arange 0, 16\n"
                         "  %q = addptr %p, %r\n"
                         "  %x = load %q\n"
                         "  store %q, %x\n"
                         "}\n";
  ProcessResult r = runBlockc("compile " + path + " --target rv64gcv -o /dev/null");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("half.bir:4:8: error: %x (f16[16]) cannot be lowered for target "
                       "'rv64gcv': f16 vectors need the zvfh extension"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(
      runBlockc("compile " + path + " --target rv64gcv --features=+zvfh -o /dev/null").exitCode, 0);
}

// A RISC-V CPU without V (a SiFive U74, or a host that reports too little) gets
// an error, not scalable vectors its backend cannot select.
TEST(CrossTargets, RiscvWithoutTheVectorExtensionIsAnError) {
  ProcessResult r =
      runBlockc("compile " + kVectorAdd + " --target rv64gcv --features=-v -o /dev/null");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("blockc generates RVV code on RISC-V, and target 'rv64gcv' has no vector "
                       "extension (v)"),
            std::string::npos)
      << r.err;
}

// softmax's exp is inline unless --sleef-math: with it, the library needs SLEEF.
TEST(CrossTargets, SharedLibraryNamesTheTargetsSleef) {
  fs::path dir = scratchDir("cross_so");
  std::string so = (dir / "softmax.so").string();
  ProcessResult missing =
      runBlockc("compile " + kSoftmax + " --target spacemit-k1 --sleef-math --emit=so -o " + so);
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("the kernels call SLEEF (Sleef_expfx_u10rvvm2), but no "
                             "libsleef.so for riscv64 is in /usr/riscv64-linux-gnu/lib"),
            std::string::npos)
      << missing.err;
  const std::string sleef = BLOCKC_THIRD_PARTY_DIR "/sleef-riscv64/usr/lib/riscv64-linux-gnu";
  if (!fs::exists(sleef + "/libsleef.so"))
    GTEST_SKIP() << "needs SLEEF for riscv64 in " << sleef << " (scripts/setup fetches it)";
  ProcessResult linked =
      runBlockc("compile " + kSoftmax + " --target spacemit-k1 --sleef-math --emit=so -L " + sleef +
                " -o " + so);
  ASSERT_EQ(linked.exitCode, 0) << linked.err;
  EXPECT_NE(slurp(so).find("libsleef.so.3"), std::string::npos) << "no DT_NEEDED on SLEEF";
}

} // namespace

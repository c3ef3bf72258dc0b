//===- HostCpuTest.cpp - --target host from what a machine reports --------===//
//
// Detection is a function of the report, so each machine is tested here by
// the report it gives: the K1's /proc/cpuinfo (Bianbu's kernel 6.6, and older
// ones without riscv_hwprobe), other RISC-V and AArch64 boards, QEMU's user
// mode (which reports nothing useful), and x86's CPUID list.
//
//===----------------------------------------------------------------------===//
#include "blockc/targetinfo/HostCpu.h"

#include "ScopedEnvironment.h"

#include <gtest/gtest.h>

using namespace blockc;

namespace {

// The lines of a K1's /proc/cpuinfo that detection reads (one hart of eight).
const char *kK1Cpuinfo = R"(processor	: 0
hart		: 0
model name	: Spacemit(R) X60
isa		: rv64imafdcv_zicbom_zicboz_zicntr_zicond_zicsr_zifencei_zihintpause_zihpm_zfh_zfhmin_zca_zcd_zba_zbb_zbc_zbs_zkt_zve32f_zve32x_zve64d_zve64f_zve64x_zvfh_zvfhmin_zvkt_sscofpmf_sstc_svinval_svnapot_svpbmt
mmu		: sv39
uarch		: spacemit,x60
mvendorid	: 0x710
marchid		: 0x8000000058000001
mimpid		: 0x1000000049772200

)";

HostReport riscvReport(const std::string &cpuinfo) {
  HostReport r;
  r.arch = Arch::RISCV64;
  r.triple = "riscv64-unknown-linux-gnu";
  r.cpuinfo = cpuinfo;
  return r;
}

Target detect(const HostReport &report, const std::string &overrides = "") {
  Target t;
  std::string error;
  EXPECT_TRUE(hostTargetFrom(report, overrides, t, error)) << error;
  return t;
}

std::string featureList(const Target &t) {
  std::string out;
  for (Feature f : t.features.list())
    out += (out.empty() ? "" : " ") + std::string(featureName(f));
  return out;
}

} // namespace

TEST(HostCpu, K1WithoutHwprobeIsAnX60FromItsCpuinfo) {
  HostReport report = riscvReport(kK1Cpuinfo);
  report.vectorBits = 256;
  Target t = detect(report);
  EXPECT_EQ(t.cpu, "spacemit-x60");
  EXPECT_EQ(featureList(t), "m a c v zvfh zfh zba zbb zbs zbc zicond zvl256b xsmtvdot");
  EXPECT_TRUE(t.scalable);
  EXPECT_EQ(t.vectorBits, 64u) << "RVV registers are vscale x 64 bits";
  ASSERT_GE(t.detection.size(), 3u);
  EXPECT_NE(t.detection[0].find("isa line"), std::string::npos) << t.detection[0];
  EXPECT_NE(t.detection.back().find("cluster 0"), std::string::npos) << t.detection.back();
}

TEST(HostCpu, HwprobeComesBeforeCpuinfo) {
  HostReport report = riscvReport(kK1Cpuinfo);
  // A kernel with riscv_hwprobe: V, zba, zbb, zbs, zfh, zvfh and the X60's ids.
  report.hwprobe = HostReport::Hwprobe{kX60VendorId, kX60ArchId, 1,
                                       (1ull << 1) | (1ull << 2) | (1ull << 3) | (1ull << 4) |
                                           (1ull << 5) | (1ull << 27) | (1ull << 30)};
  Target t = detect(report);
  EXPECT_EQ(t.cpu, "spacemit-x60");
  EXPECT_EQ(t.detection[0], "features from riscv_hwprobe");
  EXPECT_EQ(featureList(t), "m a c v zvfh zfh zba zbb zbs zicond xsmtvdot")
      << "zbc is not in this report, so it is not detected; zvl256b needs the vector length";
}

TEST(HostCpu, OtherRiscvBoardsAreNotX60s) {
  // A VisionFive 2 (SiFive U74): no V, and other ids.
  Target u74 = detect(riscvReport("isa\t\t: rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb\n"
                                  "mvendorid\t: 0x489\nmarchid\t\t: 0x8000000000000007\n"));
  EXPECT_EQ(u74.cpu, "generic-rv64");
  EXPECT_EQ(featureList(u74), "m a c zba zbb");
  EXPECT_FALSE(u74.scalable) << "no V: nothing scalable to generate";
  // `g` is imafd; a VLEN from zvl when the process cannot read vlenb.
  Target g = detect(riscvReport("isa : rv64gcv_zvl512b\n"));
  EXPECT_EQ(featureList(g), "m a c v zvl256b");
  EXPECT_NE(g.detection[1].find("VLEN 512 (the isa line's zvl)"), std::string::npos);
}

TEST(HostCpu, QemuReportsNothingAndTheOverrideSaysWhatIsThere) {
  // QEMU 7.2's user mode: no hwprobe, and the x86 host's /proc/cpuinfo.
  HostReport report = riscvReport("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu\n");
  Target bare = detect(report);
  EXPECT_EQ(featureList(bare), "");
  EXPECT_NE(bare.detection[0].find("BLOCKC_HOST_FEATURES"), std::string::npos);
  Target k1 = detect(report, "+m,+a,+c,+v,+zvfh,+zfh,cpu=spacemit-x60");
  EXPECT_EQ(k1.cpu, "spacemit-x60");
  EXPECT_TRUE(k1.has(Feature::RVV) && k1.has(Feature::XSMTVDot) && k1.has(Feature::Zvfh));
  EXPECT_TRUE(k1.scalable);
  EXPECT_EQ(k1.detection.back(),
            "BLOCKC_HOST_FEATURES=+m,+a,+c,+v,+zvfh,+zfh,cpu=spacemit-x60 applied last");
  EXPECT_NE(k1.llvmFeatures.find("+v"), std::string::npos) << k1.llvmFeatures;
  // The override also takes away what a machine reports.
  Target noIme = detect(riscvReport(kK1Cpuinfo), "-xsmtvdot");
  EXPECT_FALSE(noIme.has(Feature::XSMTVDot));
  EXPECT_NE(noIme.llvmFeatures.find("-xsmtvdot"), std::string::npos);
}

TEST(HostCpu, MalformedOverridesAreErrorsNamingTheVariable) {
  HostReport report = riscvReport(kK1Cpuinfo);
  for (const char *bad : {"+nonsense", "v", "cpu="}) {
    Target t;
    std::string error;
    EXPECT_FALSE(hostTargetFrom(report, bad, t, error)) << bad;
    EXPECT_EQ(error.rfind("BLOCKC_HOST_FEATURES: ", 0), 0u) << error;
  }
}

TEST(HostCpu, Aarch64FromHwcapOrCpuinfo) {
  HostReport graviton3;
  graviton3.arch = Arch::AArch64;
  graviton3.llvmCpu = "neoverse-v1";
  graviton3.hwcap = (1ull << 1) | (1ull << 10) | (1ull << 20) | (1ull << 22);
  graviton3.hwcap2 = (1ull << 13) | (1ull << 14);
  graviton3.vectorBits = 256;
  Target t = detect(graviton3);
  EXPECT_EQ(featureList(t), "neon sve bf16 dotprod i8mm fullfp16");
  EXPECT_TRUE(t.scalable);
  EXPECT_EQ(t.cpu, "neoverse-v1");
  EXPECT_NE(t.detection.back().find("SVE vector length 256"), std::string::npos);

  HostReport pi5; // a Raspberry Pi 5 (Cortex-A76) seen through /proc/cpuinfo only
  pi5.arch = Arch::AArch64;
  pi5.cpuinfo = "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 "
                "sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n";
  Target neon = detect(pi5);
  EXPECT_EQ(featureList(neon), "neon dotprod fullfp16");
  EXPECT_FALSE(neon.scalable);
  EXPECT_EQ(neon.cpu, "generic");
}

TEST(HostCpu, X86TakesLlvmsCpuidList) {
  HostReport zen3;
  zen3.llvmCpu = "znver3";
  zen3.llvmFeatures = {{"avx2", true}, {"avx512f", false}, {"fma", true}};
  Target t = detect(zen3);
  EXPECT_EQ(t.llvmFeatures, "+avx2,-avx512f,+fma");
  EXPECT_EQ(featureList(t), "avx2 fma");
  EXPECT_EQ(t.vectorBits, 256u);
  EXPECT_EQ(t.vectorRegisters, 16u);
}

TEST(HostCpu, IsaStrings) {
  FeatureSet features;
  std::string isa;
  EXPECT_TRUE(parseRiscvIsa("isa : RV64IMAFDCV_Zba\n", features, isa));
  EXPECT_TRUE(features.has(Feature::RVV) && features.has(Feature::Zba));
  FeatureSet rv32;
  EXPECT_FALSE(parseRiscvIsa("isa : rv32imac\n", rv32, isa));
  EXPECT_FALSE(parseRiscvIsa("", rv32, isa));
  EXPECT_EQ(cpuinfoField("a : 1\nb\t: two words \n", "b"), "two words");
}

TEST(HostCpu, ThisMachineAndABadOverride) {
  Target t;
  std::string error;
  ASSERT_TRUE(lookupTarget("host", t, error)) << error;
  EXPECT_FALSE(t.detection.empty());
  ScopedEnvironment bad("BLOCKC_HOST_FEATURES", "+no-such-feature");
  EXPECT_FALSE(lookupTarget("host", t, error));
  EXPECT_EQ(error.rfind("BLOCKC_HOST_FEATURES: unknown feature change '+no-such-feature'", 0), 0u)
      << error;
}

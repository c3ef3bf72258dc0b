//===- Target.cpp - The target registry -----------------------------------===//
#include "blockc/targetinfo/Target.h"

#include "blockc/targetinfo/HostCpu.h"

#include <cstdlib>

namespace blockc {

namespace {

struct FeatureInfo {
  Feature feature;
  std::string_view llvmName;
};

// Our feature enum to LLVM's subtarget feature names.
constexpr FeatureInfo kFeatureInfo[] = {
    {Feature::SSE42, "sse4.2"},
    {Feature::AVX, "avx"},
    {Feature::AVX2, "avx2"},
    {Feature::FMA, "fma"},
    {Feature::F16C, "f16c"},
    {Feature::AVX512F, "avx512f"},
    {Feature::AVX512BW, "avx512bw"},
    {Feature::AVX512DQ, "avx512dq"},
    {Feature::AVX512VL, "avx512vl"},
    {Feature::AVX512BF16, "avx512bf16"},
    {Feature::AVX512FP16, "avx512fp16"},
    {Feature::AVX512VNNI, "avx512vnni"},
    {Feature::AMXTile, "amx-tile"},
    {Feature::AMXBF16, "amx-bf16"},
    {Feature::AMXINT8, "amx-int8"},
    {Feature::NEON, "neon"},
    {Feature::SVE, "sve"},
    {Feature::SVE2, "sve2"},
    {Feature::BF16, "bf16"},
    {Feature::DotProd, "dotprod"},
    {Feature::I8MM, "i8mm"},
    {Feature::FullFP16, "fullfp16"},
    {Feature::M, "m"},
    {Feature::A, "a"},
    {Feature::C, "c"},
    {Feature::RVV, "v"},
    {Feature::Zvfh, "zvfh"},
    {Feature::Zfh, "zfh"},
    {Feature::Zba, "zba"},
    {Feature::Zbb, "zbb"},
    {Feature::Zbs, "zbs"},
    {Feature::Zbc, "zbc"},
    {Feature::Zicond, "zicond"},
    {Feature::Zvl256b, "zvl256b"},
    {Feature::XSMTVDot, "xsmtvdot"},
};

/// The fields every named target sets; the rest keep Target's defaults.
struct TargetSpec {
  const char *name;
  const char *description;
  Arch arch;
  const char *triple;
  const char *cpu;
  FeatureSet features;
  unsigned vectorBits;
  bool scalable;
  unsigned vectorRegisters;
  const char *tuneCpu = "";
  unsigned fixedVscale = 0;
};

Target makeTarget(const TargetSpec &spec) {
  Target t;
  t.name = spec.name;
  t.description = spec.description;
  t.arch = spec.arch;
  t.triple = spec.triple;
  t.cpu = spec.cpu;
  t.tuneCpu = spec.tuneCpu;
  t.features = spec.features;
  t.llvmFeatures = llvmFeatureString(spec.features);
  t.vectorBits = spec.vectorBits;
  t.scalable = spec.scalable;
  t.fixedVscale = spec.fixedVscale;
  t.vectorRegisters = spec.vectorRegisters;
  return t;
}

FeatureSet withAll(FeatureSet base, std::initializer_list<Feature> more) {
  for (Feature f : more)
    base.add(f);
  return base;
}

std::vector<Target> namedTargets() {
  const char *x86 = "x86_64-unknown-linux-gnu";
  const char *riscv = "riscv64-unknown-linux-gnu";
  const char *arm = "aarch64-unknown-linux-gnu";
  const FeatureSet v3 = {Feature::SSE42, Feature::AVX, Feature::AVX2, Feature::FMA, Feature::F16C};
  const FeatureSet v4 =
      withAll(v3, {Feature::AVX512F, Feature::AVX512BW, Feature::AVX512DQ, Feature::AVX512VL});
  const FeatureSet spr = withAll(v4, {Feature::AVX512BF16, Feature::AVX512FP16, Feature::AVX512VNNI,
                                      Feature::AMXTile, Feature::AMXBF16, Feature::AMXINT8});
  // RVV registers hold vscale x 64 bits (VLEN = 64 x vscale), SVE registers
  // vscale x 128 bits.
  const FeatureSet rv64gcv = {Feature::M, Feature::A, Feature::C, Feature::RVV};
  // The X60's ISA as QEMU 7.2 runs it: everything but zicond and xsmtvdot.
  const FeatureSet x60Emulated =
      withAll(rv64gcv, {Feature::Zba, Feature::Zbb, Feature::Zbs, Feature::Zbc, Feature::Zfh,
                        Feature::Zvfh, Feature::Zvl256b});
  const FeatureSet x60 = withAll(x60Emulated, {Feature::Zicond, Feature::XSMTVDot});
  const FeatureSet sve = {Feature::NEON, Feature::FullFP16, Feature::SVE};
  return {
      makeTarget({"x86-64-v3", "AVX2 + FMA, 256-bit vectors", Arch::X86_64, x86, "x86-64-v3", v3,
                  256, false, 16}),
      makeTarget({"x86-64-v4", "AVX-512 (F, BW, DQ, VL), 512-bit vectors", Arch::X86_64, x86,
                  "x86-64-v4", v4, 512, false, 32}),
      makeTarget({"sapphirerapids", "AVX-512 with BF16/FP16/VNNI, AMX tiles", Arch::X86_64, x86,
                  "sapphirerapids", spr, 512, false, 32}),
      makeTarget({"spacemit-k1", "SpacemiT K1 (X60 cores): RVV 1.0 at VLEN 256, IME dot unit",
                  Arch::RISCV64, riscv, "spacemit-x60", x60, 64, true, 32}),
      makeTarget({"spacemit-k1-qemu",
                  "the K1's ISA minus zicond and xsmtvdot, which QEMU 7.2 cannot run; tuned "
                  "for the X60",
                  Arch::RISCV64, riscv, "generic-rv64", x60Emulated, 64, true, 32, "spacemit-x60"}),
      makeTarget({"rv64gcv", "RV64GCV: RVV 1.0, vector-length agnostic (VLEN >= 128)",
                  Arch::RISCV64, riscv, "generic-rv64", rv64gcv, 64, true, 32}),
      makeTarget({"armv8.2-a+sve", "AArch64 SVE, vector-length agnostic (128 to 2048 bits)",
                  Arch::AArch64, arm, "generic", sve, 128, true, 32}),
      makeTarget({"neoverse-v1", "Arm Neoverse V1: 256-bit SVE with BF16 and I8MM", Arch::AArch64,
                  arm, "neoverse-v1",
                  withAll(sve, {Feature::BF16, Feature::DotProd, Feature::I8MM}), 128, true, 32, "",
                  2}),
      makeTarget({"armv8-a",
                  "AArch64 NEON (Advanced SIMD), 128-bit vectors",
                  Arch::AArch64,
                  arm,
                  "generic",
                  {Feature::NEON},
                  128,
                  false,
                  32}),
  };
}

} // namespace

std::string llvmFeatureString(const FeatureSet &set) {
  std::string out;
  for (const FeatureInfo &info : kFeatureInfo)
    if (set.has(info.feature))
      out += (out.empty() ? "+" : ",+") + std::string(info.llvmName);
  return out;
}

std::optional<Feature> featureNamed(std::string_view llvmName) {
  for (const FeatureInfo &info : kFeatureInfo)
    if (info.llvmName == llvmName)
      return info.feature;
  return std::nullopt;
}

std::string_view featureName(Feature f) {
  for (const FeatureInfo &info : kFeatureInfo)
    if (info.feature == f)
      return info.llvmName;
  return "?";
}

std::vector<Feature> FeatureSet::list() const {
  std::vector<Feature> out;
  for (size_t i = 0; i < static_cast<size_t>(Feature::Count); ++i)
    if (bits_.test(i))
      out.push_back(static_cast<Feature>(i));
  return out;
}

unsigned Target::lanes(ScalarKind kind) const {
  unsigned bits = bitWidth(kind) == 1 ? 8 : bitWidth(kind);
  unsigned n = vectorBits / bits;
  return n ? n : 1;
}

std::vector<std::string> targetNames() {
  std::vector<std::string> names;
  for (const Target &t : namedTargets())
    names.push_back(t.name);
  names.push_back("host");
  return names;
}

bool lookupTarget(std::string_view name, Target &target, std::string &error) {
  if (name == "host") {
    const char *overrides = std::getenv("BLOCKC_HOST_FEATURES");
    std::string_view list = overrides ? overrides : "";
    return hostTargetFrom(readHostReport(list), list, target, error);
  }
  for (Target &t : namedTargets())
    if (t.name == name) {
      target = std::move(t);
      return true;
    }
  error = "unknown target '" + std::string(name) + "'; known targets:";
  for (const std::string &n : targetNames())
    error += " " + n;
  return false;
}

bool applyFeatureChanges(std::string_view list, Target &target, std::string &error) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (item.empty())
      continue;
    const FeatureInfo *found = nullptr;
    for (const FeatureInfo &info : kFeatureInfo)
      if (item.size() > 1 && info.llvmName == item.substr(1))
        found = &info;
    if ((item[0] != '+' && item[0] != '-') || !found) {
      error = "unknown feature change '" + std::string(item) +
              "': expected +NAME or -NAME with a feature of";
      for (const FeatureInfo &info : kFeatureInfo)
        error += " " + std::string(info.llvmName);
      return false;
    }
    if (item[0] == '+')
      target.features.add(found->feature);
    else
      target.features.remove(found->feature);
    // Appended, so that it also overrides what the CPU's name implies.
    target.llvmFeatures += (target.llvmFeatures.empty() ? "" : ",") + std::string(item);
  }
  return true;
}

} // namespace blockc

//===- Target.cpp - The target registry -----------------------------------===//
#include "blockc/targets/Target.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

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
    {Feature::M, "m"},
    {Feature::A, "a"},
    {Feature::C, "c"},
    {Feature::RVV, "v"},
    {Feature::Zvfh, "zvfh"},
    {Feature::Zfh, "zfh"},
    {Feature::Zba, "zba"},
    {Feature::Zbb, "zbb"},
    {Feature::XSMTVDot, "xsmtvdot"},
};

std::string llvmFeatureString(const FeatureSet &set) {
  std::string out;
  for (const FeatureInfo &info : kFeatureInfo)
    if (set.has(info.feature))
      out += (out.empty() ? "+" : ",+") + std::string(info.llvmName);
  return out;
}

Target makeTarget(std::string name, std::string description, Arch arch, std::string triple,
                  std::string cpu, FeatureSet features, unsigned vectorBits, bool scalable,
                  unsigned registers) {
  Target t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.arch = arch;
  t.triple = std::move(triple);
  t.cpu = std::move(cpu);
  t.features = features;
  t.llvmFeatures = llvmFeatureString(features);
  t.vectorBits = vectorBits;
  t.scalable = scalable;
  t.vectorRegisters = registers;
  return t;
}

const FeatureSet kX86V3 = {Feature::SSE42, Feature::AVX, Feature::AVX2, Feature::FMA,
                           Feature::F16C};
FeatureSet withAll(FeatureSet base, std::initializer_list<Feature> more) {
  for (Feature f : more)
    base.add(f);
  return base;
}

std::vector<Target> namedTargets() {
  const char *x86 = "x86_64-unknown-linux-gnu";
  FeatureSet v4 =
      withAll(kX86V3, {Feature::AVX512F, Feature::AVX512BW, Feature::AVX512DQ, Feature::AVX512VL});
  FeatureSet spr = withAll(v4, {Feature::AVX512BF16, Feature::AVX512FP16, Feature::AVX512VNNI,
                                Feature::AMXTile, Feature::AMXBF16, Feature::AMXINT8});
  return {
      makeTarget("x86-64-v3", "AVX2 + FMA, 256-bit vectors", Arch::X86_64, x86, "x86-64-v3", kX86V3,
                 256, false, 16),
      makeTarget("x86-64-v4", "AVX-512 (F, BW, DQ, VL), 512-bit vectors", Arch::X86_64, x86,
                 "x86-64-v4", v4, 512, false, 32),
      makeTarget("sapphirerapids", "AVX-512 with BF16/FP16/VNNI, AMX tiles", Arch::X86_64, x86,
                 "sapphirerapids", spr, 512, false, 32),
      // LMUL=1 strips: 64 bits per vscale unit, so <vscale x 2 x float> is one
      // register at any VLEN; the code is vector-length agnostic.
      makeTarget("riscv64-rvv", "RV64GCV, scalable vectors (VLEN >= 128)", Arch::RISCV64,
                 "riscv64-unknown-linux-gnu", "generic-rv64",
                 {Feature::M, Feature::A, Feature::C, Feature::RVV, Feature::Zba, Feature::Zbb,
                  Feature::Zfh, Feature::Zvfh},
                 64, true, 32),
  };
}

Target detectHost() {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  FeatureSet features;
  std::string llvmFeatures;
  for (const auto &entry : llvm::sys::getHostCPUFeatures()) {
    llvmFeatures += (llvmFeatures.empty() ? "" : ",") + std::string(entry.second ? "+" : "-") +
                    entry.first().str();
    if (!entry.second)
      continue;
    for (const FeatureInfo &info : kFeatureInfo)
      if (info.llvmName == std::string_view(entry.first()))
        features.add(info.feature);
  }
  Target t;
  t.name = "host";
  t.triple = triple.str();
  t.cpu = llvm::sys::getHostCPUName().str();
  t.llvmFeatures = llvmFeatures;
  t.features = features;
  switch (triple.getArch()) {
  case llvm::Triple::aarch64:
    t.arch = Arch::AArch64;
    t.vectorBits = 128;
    t.vectorRegisters = 32;
    break;
  case llvm::Triple::riscv64:
    t.arch = Arch::RISCV64;
    t.vectorBits = 64;
    t.scalable = features.has(Feature::RVV);
    t.vectorRegisters = 32;
    break;
  default:
    t.arch = Arch::X86_64;
    t.vectorBits = features.has(Feature::AVX512F) ? 512 : features.has(Feature::AVX2) ? 256 : 128;
    t.vectorRegisters = features.has(Feature::AVX512F) ? 32 : 16;
    break;
  }
  t.description = "this machine (" + t.cpu + "), " + std::to_string(t.vectorBits) +
                  "-bit vectors, features detected at run time";
  return t;
}

} // namespace

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
    target = detectHost();
    return true;
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

} // namespace blockc

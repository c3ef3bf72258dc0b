//===- HostCpu.cpp - What the running machine says about its CPU ----------===//
#include "blockc/targetinfo/HostCpu.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#if defined(__linux__) && (defined(__aarch64__) || defined(__riscv))
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__linux__) && defined(__aarch64__)
#include <sys/prctl.h>
#endif

namespace blockc {

namespace {

// riscv_hwprobe's keys and the IMA_EXT_0 bits blockc uses (Linux's
// arch/riscv/include/uapi/asm/hwprobe.h).
constexpr uint64_t kHwprobeBaseIma = 1;
struct HwprobeBit {
  uint64_t bit;
  Feature feature;
};
constexpr HwprobeBit kHwprobeBits[] = {
    {1ull << 1, Feature::C},    {1ull << 2, Feature::RVV},   {1ull << 3, Feature::Zba},
    {1ull << 4, Feature::Zbb},  {1ull << 5, Feature::Zbs},   {1ull << 7, Feature::Zbc},
    {1ull << 27, Feature::Zfh}, {1ull << 30, Feature::Zvfh}, {1ull << 35, Feature::Zicond},
};

// AArch64 HWCAP and HWCAP2 bits (Linux's arch/arm64/include/uapi/asm/hwcap.h).
struct HwcapBit {
  bool second; // in AT_HWCAP2
  uint64_t bit;
  Feature feature;
};
constexpr HwcapBit kHwcapBits[] = {
    {false, 1ull << 1, Feature::NEON},     {false, 1ull << 10, Feature::FullFP16},
    {false, 1ull << 20, Feature::DotProd}, {false, 1ull << 22, Feature::SVE},
    {true, 1ull << 1, Feature::SVE2},      {true, 1ull << 13, Feature::I8MM},
    {true, 1ull << 14, Feature::BF16},
};
// The names /proc/cpuinfo's Features line gives the same bits.
struct CpuinfoName {
  std::string_view name;
  Feature feature;
};
constexpr CpuinfoName kAarch64CpuinfoNames[] = {
    {"asimd", Feature::NEON}, {"asimdhp", Feature::FullFP16}, {"asimddp", Feature::DotProd},
    {"sve", Feature::SVE},    {"sve2", Feature::SVE2},        {"i8mm", Feature::I8MM},
    {"bf16", Feature::BF16},
};
// Multi-letter RISC-V extensions of an isa string that blockc uses.
constexpr CpuinfoName kRiscvExtensions[] = {
    {"zba", Feature::Zba},       {"zbb", Feature::Zbb}, {"zbs", Feature::Zbs},
    {"zbc", Feature::Zbc},       {"zfh", Feature::Zfh}, {"zvfh", Feature::Zvfh},
    {"zicond", Feature::Zicond},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitOn(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  while (!s.empty()) {
    size_t at = s.find(separator);
    std::string_view part = s.substr(0, at);
    if (!trim(part).empty())
      parts.push_back(trim(part));
    s = at == std::string_view::npos ? std::string_view() : s.substr(at + 1);
  }
  return parts;
}

std::optional<uint64_t> parseNumber(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 0);
  if (errno || *end)
    return std::nullopt;
  return value;
}

/// The smallest VLEN the zvlNNNb extensions of an isa string promise.
unsigned zvlBits(std::string_view isa) {
  unsigned bits = 0;
  for (std::string_view ext : splitOn(isa, '_'))
    if (ext.size() > 4 && ext.substr(0, 3) == "zvl" && ext.back() == 'b')
      if (auto n = parseNumber(std::string(ext.substr(3, ext.size() - 4))))
        bits = std::max<unsigned>(bits, unsigned(*n));
  return bits;
}

bool isX60(const HostReport &report, std::string &why) {
  if (report.hwprobe && report.hwprobe->mvendorid == kX60VendorId &&
      report.hwprobe->marchid == kX60ArchId) {
    why = "riscv_hwprobe's mvendorid and marchid are the SpacemiT X60's";
    return true;
  }
  auto vendor = parseNumber(cpuinfoField(report.cpuinfo, "mvendorid"));
  auto arch = parseNumber(cpuinfoField(report.cpuinfo, "marchid"));
  if (vendor == kX60VendorId && arch == kX60ArchId) {
    why = "/proc/cpuinfo's mvendorid and marchid are the SpacemiT X60's";
    return true;
  }
  std::string uarch = cpuinfoField(report.cpuinfo, "uarch");
  if (uarch == "spacemit,x60") {
    why = "/proc/cpuinfo's uarch is spacemit,x60";
    return true;
  }
  return false;
}

void detectRiscv(const HostReport &report, Target &t) {
  t.vectorBits = 64;
  t.vectorRegisters = 32;
  t.cpu = "generic-rv64";
  std::string isa;
  if (report.hwprobe) {
    if (report.hwprobe->baseBehavior & kHwprobeBaseIma) {
      t.features.add(Feature::M);
      t.features.add(Feature::A);
    }
    for (const HwprobeBit &b : kHwprobeBits)
      if (report.hwprobe->imaExt0 & b.bit)
        t.features.add(b.feature);
    t.detection.push_back("features from riscv_hwprobe");
  } else if (parseRiscvIsa(report.cpuinfo, t.features, isa)) {
    t.detection.push_back("features from /proc/cpuinfo's isa line (" + isa +
                          "): the kernel has no riscv_hwprobe");
  } else {
    t.detection.push_back("no riscv_hwprobe and no isa line in /proc/cpuinfo: no extension "
                          "detected (set BLOCKC_HOST_FEATURES)");
  }
  unsigned vlen = report.vectorBits ? report.vectorBits : zvlBits(isa);
  if (t.has(Feature::RVV) && vlen) {
    t.detection.push_back("VLEN " + std::to_string(vlen) +
                          (report.vectorBits ? " (vlenb)" : " (the isa line's zvl)"));
    if (vlen >= 256)
      t.features.add(Feature::Zvl256b);
  }
  std::string why;
  if (isX60(report, why)) {
    t.cpu = "spacemit-x60";
    // The X60 has zicond and the IME, which neither hwprobe nor the isa line
    // of the K1's kernel reports; the IME is on cluster 0 only, where the
    // runtime pins kernels that use it (BLOCKC_IME_CORES).
    t.features.add(Feature::Zicond);
    t.features.add(Feature::XSMTVDot);
    t.detection.push_back("SpacemiT X60: " + why +
                          "; its IME dot unit (xsmtvdot) is on "
                          "cluster 0, where kernels that use it run");
  }
}

void detectAarch64(const HostReport &report, Target &t) {
  t.vectorBits = 128;
  t.vectorRegisters = 32;
  t.cpu = report.llvmCpu.empty() ? "generic" : report.llvmCpu;
  if (report.hwcap || report.hwcap2) {
    for (const HwcapBit &b : kHwcapBits)
      if ((b.second ? report.hwcap2 : report.hwcap) & b.bit)
        t.features.add(b.feature);
    t.detection.push_back("features from the auxiliary vector's HWCAP bits");
  } else {
    std::string line = cpuinfoField(report.cpuinfo, "Features");
    for (std::string_view word : splitOn(line, ' '))
      for (const CpuinfoName &n : kAarch64CpuinfoNames)
        if (word == n.name)
          t.features.add(n.feature);
    t.detection.push_back(line.empty() ? "no HWCAP bits and no Features line in /proc/cpuinfo: "
                                         "no extension detected (set BLOCKC_HOST_FEATURES)"
                                       : "features from /proc/cpuinfo's Features line");
  }
  if (t.has(Feature::SVE) && report.vectorBits)
    t.detection.push_back("SVE vector length " + std::to_string(report.vectorBits) +
                          " bits (the code runs at any length)");
}

void detectX86(const HostReport &report, Target &t) {
  t.cpu = report.llvmCpu;
  for (const auto &[name, present] : report.llvmFeatures) {
    t.llvmFeatures += (t.llvmFeatures.empty() ? "" : ",") + std::string(present ? "+" : "-") + name;
    if (!present)
      continue;
    if (std::optional<Feature> f = featureNamed(name))
      t.features.add(*f);
  }
  t.detection.push_back("features from CPUID (LLVM's host detection)");
}

} // namespace

std::string cpuinfoField(std::string_view cpuinfo, std::string_view key) {
  for (std::string_view line : splitOn(cpuinfo, '\n')) {
    size_t colon = line.find(':');
    if (colon != std::string_view::npos && trim(line.substr(0, colon)) == key)
      return std::string(trim(line.substr(colon + 1)));
  }
  return "";
}

bool parseRiscvIsa(std::string_view cpuinfo, FeatureSet &features, std::string &isa) {
  isa = cpuinfoField(cpuinfo, "isa");
  for (char &c : isa)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  if (isa.rfind("rv64", 0) != 0)
    return false;
  std::vector<std::string_view> parts = splitOn(std::string_view(isa).substr(4), '_');
  if (parts.empty())
    return true;
  // The first part is single-letter extensions; `g` is imafd.
  for (char letter : parts[0]) {
    if (letter == 'm' || letter == 'g')
      features.add(Feature::M);
    if (letter == 'a' || letter == 'g')
      features.add(Feature::A);
    if (letter == 'c')
      features.add(Feature::C);
    if (letter == 'v')
      features.add(Feature::RVV);
  }
  for (size_t i = 1; i < parts.size(); ++i)
    for (const CpuinfoName &n : kRiscvExtensions)
      if (parts[i] == n.name)
        features.add(n.feature);
  return true;
}

bool hostTargetFrom(const HostReport &report, std::string_view overrides, Target &t,
                    std::string &error) {
  t = Target();
  t.name = "host";
  t.arch = report.arch;
  t.triple = report.triple;
  switch (report.arch) {
  case Arch::RISCV64:
    detectRiscv(report, t);
    break;
  case Arch::AArch64:
    detectAarch64(report, t);
    break;
  case Arch::X86_64:
    detectX86(report, t);
    break;
  }
  std::string changes;
  for (std::string_view item : splitOn(overrides, ',')) {
    if (item.substr(0, 4) == "cpu=") {
      t.cpu = std::string(item.substr(4));
      if (t.cpu.empty()) {
        error = "BLOCKC_HOST_FEATURES: 'cpu=' names no CPU";
        return false;
      }
      if (t.arch == Arch::RISCV64 && t.cpu == "spacemit-x60") {
        t.features.add(Feature::Zicond);
        t.features.add(Feature::XSMTVDot);
      }
      continue;
    }
    changes += (changes.empty() ? "" : ",") + std::string(item);
  }
  // On x86 the LLVM string is the CPU's full list; elsewhere it is ours.
  if (t.arch != Arch::X86_64)
    t.llvmFeatures = llvmFeatureString(t.features);
  if (!applyFeatureChanges(changes, t, error)) {
    error = "BLOCKC_HOST_FEATURES: " + error;
    return false;
  }
  if (!trim(overrides).empty())
    t.detection.push_back("BLOCKC_HOST_FEATURES=" + std::string(overrides) + " applied last");
  // The register shape follows the features the overrides leave.
  if (t.arch == Arch::X86_64) {
    t.vectorBits = t.has(Feature::AVX512F) ? 512 : t.has(Feature::AVX2) ? 256 : 128;
    t.vectorRegisters = t.has(Feature::AVX512F) ? 32 : 16;
  }
  t.scalable = (t.arch == Arch::RISCV64 && t.has(Feature::RVV)) ||
               (t.arch == Arch::AArch64 && t.has(Feature::SVE));
  t.description =
      "this machine (" + t.cpu + "), " +
      (t.scalable ? "scalable vectors" : std::to_string(t.vectorBits) + "-bit vectors") +
      ", features detected at run time";
  return true;
}

HostReport readHostReport(std::string_view overrides) {
  HostReport report;
  llvm::Triple triple(llvm::sys::getProcessTriple());
  report.triple = triple.str();
  report.arch = triple.getArch() == llvm::Triple::aarch64   ? Arch::AArch64
                : triple.getArch() == llvm::Triple::riscv64 ? Arch::RISCV64
                                                            : Arch::X86_64;
  report.llvmCpu = llvm::sys::getHostCPUName().str();
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    report.llvmFeatures.emplace_back(entry.first().str(), entry.second);
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::ostringstream text;
  text << cpuinfo.rdbuf();
  // One hart's lines say it all; a many-core machine's file is long.
  report.cpuinfo = text.str().substr(0, 1 << 16);
  (void)overrides;
#if defined(__linux__) && defined(__riscv)
  constexpr int64_t kHwprobeMvendorid = 0, kHwprobeMarchid = 1, kHwprobeBaseBehavior = 3,
                    kHwprobeImaExt0 = 4;
  struct {
    int64_t key;
    uint64_t value;
  } pairs[] = {{kHwprobeMvendorid, 0},
               {kHwprobeMarchid, 0},
               {kHwprobeBaseBehavior, 0},
               {kHwprobeImaExt0, 0}};
  // riscv_hwprobe is syscall 258; older kernels (and QEMU 7.2) answer ENOSYS.
  if (syscall(258, pairs, 4, 0, nullptr, 0) == 0 && pairs[3].key == kHwprobeImaExt0)
    report.hwprobe =
        HostReport::Hwprobe{pairs[0].value, pairs[1].value, pairs[2].value, pairs[3].value};
  FeatureSet isaFeatures;
  std::string isa;
  bool hasV = (report.hwprobe && (report.hwprobe->imaExt0 & (1ull << 2))) ||
              (getauxval(AT_HWCAP) & (1ul << ('V' - 'A'))) ||
              (parseRiscvIsa(report.cpuinfo, isaFeatures, isa) && isaFeatures.has(Feature::RVV)) ||
              llvm::is_contained(splitOn(overrides, ','), "+v");
  if (hasV) {
    unsigned long vlenb = 0;
    asm volatile("csrr %0, 0xc22" : "=r"(vlenb)); // vlenb

    report.vectorBits = unsigned(vlenb * 8);
  }
#endif
#if defined(__linux__) && defined(__aarch64__)
  report.hwcap = getauxval(AT_HWCAP);
  report.hwcap2 = getauxval(AT_HWCAP2);
  if (report.hwcap & (1ul << 22)) {
    int vl = prctl(PR_SVE_GET_VL);
    if (vl > 0)
      report.vectorBits = unsigned(vl & PR_SVE_VL_LEN_MASK) * 8;
  }
#endif
  return report;
}

} // namespace blockc

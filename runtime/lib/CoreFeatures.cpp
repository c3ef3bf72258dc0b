//===- CoreFeatures.cpp ---------------------------------------------------===//
//
// Sources: the X60's ids are LLVM's for spacemit-x60 (RISCVProcessors.td:
// mvendorid 0x710, marchid 0x8000000058000001), which Linux prints per core in
// /proc/cpuinfo. The K1's device tree (Linux's
// arch/riscv/boot/dts/spacemit/k1.dtsi, Bianbu's k1-x.dtsi) has cpu-map
// { cluster0 { cpu0-3 } cluster1 { cpu4-7 } }, which
// drivers/base/arch_topology.c turns into cluster_id 0 and 1 with every core in
// package 0 (Linux 6.x), or into physical_package_id 0 and 1 (before 6.0).
//
//===----------------------------------------------------------------------===//
#include "CoreFeatures.h"

#include "CoreList.h"
#include "LastError.h"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace blockc::runtime {

namespace {

std::string_view trim(std::string_view text) {
  auto isBlank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && isBlank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isBlank(text.back()))
    text.remove_suffix(1);
  return text;
}

/// All of `text` as an unsigned number, hexadecimal with 0x, else decimal.
bool parseUnsigned(std::string_view text, uint64_t &value) {
  text = trim(text);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

/// All of `text` as a signed decimal number (sysfs ids may be -1).
bool parseSigned(std::string_view text, int64_t &value) {
  text = trim(text);
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

} // namespace

void CpuInfoScanner::endEntry() {
  if (processor_ >= 0 && processor_ <= BLOCKC_MAX_CORE_ID && x60Vendor_ && x60Arch_)
    x60_.set(size_t(processor_));
  processor_ = -1;
  x60Vendor_ = x60Arch_ = false;
}

void CpuInfoScanner::line(std::string_view text) {
  size_t colon = text.find(':');
  if (trim(text).empty() || colon == std::string_view::npos) {
    if (trim(text).empty())
      endEntry();
    return;
  }
  std::string_view key = trim(text.substr(0, colon));
  std::string_view value = text.substr(colon + 1);
  uint64_t number = 0;
  if (key == "processor") {
    endEntry();
    int64_t processor = -1;
    processor_ = parseSigned(value, processor) ? processor : -1;
  } else if (key == "mvendorid") {
    x60Vendor_ = parseUnsigned(value, number) && number == kX60VendorId;
  } else if (key == "marchid") {
    x60Arch_ = parseUnsigned(value, number) && number == kX60ArchId;
  }
}

CoreSet CpuInfoScanner::x60Cores() {
  endEntry();
  return x60_;
}

CoreSet x60CoresInCpuInfo(std::string_view text) {
  CpuInfoScanner scanner;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    scanner.line(text.substr(0, newline));
    if (newline == std::string_view::npos)
      break;
    text.remove_prefix(newline + 1);
  }
  return scanner.x60Cores();
}

ImeCores imeCoresOfX60s(const CoreSet &x60, const CoreTopology *topology) {
  if (x60.none())
    return {CoreSet(), ImeEvidence::NoX60};
  // The cores of the lowest id, if this id splits the X60s into clusters.
  auto firstCluster = [&](int64_t CoreTopology::*id, CoreSet &cluster) {
    int64_t lowest = INT64_MAX, highest = -1;
    for (size_t core = 0; core < x60.size(); ++core) {
      if (!x60.test(core))
        continue;
      int64_t value = topology[core].*id;
      if (value < 0)
        return false;
      lowest = std::min(lowest, value);
      highest = std::max(highest, value);
    }
    if (lowest == highest)
      return false;
    for (size_t core = 0; core < x60.size(); ++core)
      if (x60.test(core) && topology[core].*id == lowest)
        cluster.set(core);
    return true;
  };
  ImeCores result;
  if (firstCluster(&CoreTopology::clusterId, result.cores)) {
    result.evidence = ImeEvidence::ClusterId;
    return result;
  }
  if (firstCluster(&CoreTopology::packageId, result.cores)) {
    result.evidence = ImeEvidence::PackageId;
    return result;
  }
  // One cluster visible (the other offline) or no cpu-map: the K1's IME
  // cluster is cores 0-3 in its device tree, whatever the kernel made of it.
  for (size_t core = 0; core < 4; ++core)
    if (x60.test(core))
      result.cores.set(core);
  result.evidence = ImeEvidence::FirstFourCores;
  return result;
}

void formatCoreSet(const CoreSet &cores, char *text, size_t size) {
  size_t used = 0;
  text[0] = '\0';
  if (cores.none()) {
    std::snprintf(text, size, "none");
    return;
  }
  for (size_t first = 0; first < cores.size() && used < size; ++first) {
    if (!cores.test(first))
      continue;
    size_t last = first;
    while (last + 1 < cores.size() && cores.test(last + 1))
      ++last;
    const char *separator = used == 0 ? "" : ",";
    int written = first == last ? std::snprintf(text + used, size - used, "%s%zu", separator, first)
                                : std::snprintf(text + used, size - used, "%s%zu-%zu", separator,
                                                first, last);
    if (written < 0)
      break;
    used += size_t(written);
    first = last;
  }
}

namespace {

#if defined(__linux__)

/// The number in a one-line sysfs file; -1 when it is absent or unreadable.
int64_t readSysfsNumber(int core, const char *file) {
  char path[96];
  std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", core, file);
  std::FILE *stream = std::fopen(path, "re");
  if (!stream)
    return -1;
  char line[64];
  int64_t value = -1;
  if (!std::fgets(line, sizeof line, stream) || !parseSigned(line, value))
    value = -1;
  std::fclose(stream);
  return value;
}

CoreSet readX60Cores() {
  CpuInfoScanner scanner;
  std::FILE *stream = std::fopen("/proc/cpuinfo", "re");
  if (!stream)
    return CoreSet();
  // Longer lines (an `isa` line with many extensions) matter only by their
  // key, which their first piece holds; the rest of such a line is dropped.
  char line[1024];
  bool midLine = false;
  while (std::fgets(line, sizeof line, stream)) {
    size_t length = std::strlen(line);
    bool complete = length > 0 && line[length - 1] == '\n';
    if (!midLine)
      scanner.line(std::string_view(line, length));
    midLine = !complete;
  }
  std::fclose(stream);
  return scanner.x60Cores();
}

ImeCores detectImeCores() {
  CoreSet x60 = readX60Cores();
  if (x60.none())
    return {CoreSet(), ImeEvidence::NoX60};
  static CoreTopology topology[BLOCKC_MAX_CORE_ID + 1]; // filled once, under the static's guard
  for (int core = 0; core <= BLOCKC_MAX_CORE_ID; ++core)
    if (x60.test(size_t(core)))
      topology[core] = {readSysfsNumber(core, "cluster_id"),
                        readSysfsNumber(core, "physical_package_id")};
  return imeCoresOfX60s(x60, topology);
}

#else

ImeCores detectImeCores() {
  return {CoreSet(), ImeEvidence::NoX60};
}

#endif

/// The answer for the process, and BLOCKC_IME_CORES's error if it has one.
struct MachineAnswer {
  ImeCores cores;
  int status = BLOCKC_SUCCESS;
  char error[512] = "";
};

MachineAnswer answerForMachine() {
  MachineAnswer answer;
  const char *value = std::getenv("BLOCKC_IME_CORES");
  if (!value || !*value) {
    answer.cores = detectImeCores();
    return answer;
  }
  int32_t listed[BLOCKC_MAX_AFFINITY_CORES];
  int32_t count = 0;
  answer.status = parseCoreList("BLOCKC_IME_CORES", value, listed, count);
  if (answer.status != BLOCKC_SUCCESS) {
    std::snprintf(answer.error, sizeof answer.error, "%s", lastError());
    return answer;
  }
  for (int32_t i = 0; i < count; ++i)
    answer.cores.cores.set(size_t(listed[i]));
  answer.cores.evidence = ImeEvidence::Environment;
  return answer;
}

std::atomic<bool> gInjected{false};
ImeCores gInjectedCores;

} // namespace

int machineImeCores(const ImeCores *&cores) {
  if (gInjected.load(std::memory_order_acquire)) {
    cores = &gInjectedCores;
    return BLOCKC_SUCCESS;
  }
  static const MachineAnswer answer = answerForMachine();
  if (answer.status != BLOCKC_SUCCESS)
    return fail(answer.status, "%s", answer.error);
  cores = &answer.cores;
  return BLOCKC_SUCCESS;
}

void injectImeCoresForTesting(const CoreSet *cores) {
  gInjected.store(false, std::memory_order_release);
  if (!cores)
    return;
  gInjectedCores = {*cores, ImeEvidence::Injected};
  gInjected.store(true, std::memory_order_release);
}

} // namespace blockc::runtime

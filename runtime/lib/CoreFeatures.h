//===- CoreFeatures.h - Which cores have which units ------------*- C++ -*-===//
//
// Some units exist on only some cores of a chip: on the SpacemiT K1, the IME
// (smt.vmadot) is on cluster 0 (cores 0-3) and not on cluster 1, although all
// eight X60 cores report the same ids. The launcher asks here where a kernel
// that needs such a unit may run. Detection reads /proc/cpuinfo and sysfs once
// per process; the parsing takes text and numbers, so that it is tested on
// any machine with canned K1 input.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <bitset>
#include <cstdint>
#include <string_view>

namespace blockc::runtime {

using CoreSet = std::bitset<BLOCKC_MAX_CORE_ID + 1>;

/// The mvendorid and marchid CSRs of the SpacemiT X60 as Linux prints them
/// in /proc/cpuinfo (arch/riscv/kernel/cpu.c).
constexpr uint64_t kX60VendorId = 0x710;
constexpr uint64_t kX60ArchId = 0x8000000058000001;

/// Reads /proc/cpuinfo a line at a time, without allocating: one entry per
/// online core, `key : value` lines, entries separated by blank lines or
/// started by a new `processor` line. Lines it cannot read are skipped.
class CpuInfoScanner {
public:
  void line(std::string_view text);
  /// The cores (their `processor` numbers) whose entry reports both X60 ids.
  CoreSet x60Cores();

private:
  void endEntry();
  int64_t processor_ = -1;
  bool x60Vendor_ = false, x60Arch_ = false;
  CoreSet x60_;
};

/// CpuInfoScanner over a whole text.
CoreSet x60CoresInCpuInfo(std::string_view text);

/// One core's place as /sys/devices/system/cpu/cpuN/topology gives it; -1
/// where the file is absent or unreadable (and the kernel's own "unknown").
struct CoreTopology {
  int64_t clusterId = -1; // topology/cluster_id, Linux 5.16+
  int64_t packageId = -1; // topology/physical_package_id
};

/// What the IME core set rests on, for messages and tests.
enum class ImeEvidence {
  NoX60,          // no core reported the X60's ids: no IME
  ClusterId,      // the X60s of the lowest cluster_id
  PackageId,      // the X60s of the lowest physical_package_id
  FirstFourCores, // the X60s among cores 0-3: topology says nothing of clusters
  Environment,    // BLOCKC_IME_CORES
  Injected,       // a test's injectImeCoresForTesting
};

struct ImeCores {
  CoreSet cores;
  ImeEvidence evidence = ImeEvidence::NoX60;
};

/// The cores of the first cluster of `x60` cores. `topology[c]` describes
/// core c (an array of BLOCKC_MAX_CORE_ID + 1). An id splits the X60s into
/// clusters only if every X60 has one (>= 0) and they are not all equal:
/// Linux 6.x puts the K1's device-tree clusters in cluster_id (0 and 1) and
/// all cores in package 0; kernels before 6.0 put the clusters in
/// physical_package_id; without a cpu-map every core is in package 0. When
/// neither id splits them, the K1's layout is assumed: cores 0-3.
ImeCores imeCoresOfX60s(const CoreSet &x60, const CoreTopology *topology);

/// The IME cores of this machine: BLOCKC_IME_CORES if set and not empty,
/// else detected from /proc/cpuinfo and sysfs. Worked out at the first call
/// and kept for the process. Returns 0, or BLOCKC_ERROR_INVALID_ENVIRONMENT
/// (with the message set) when BLOCKC_IME_CORES does not parse.
int machineImeCores(const ImeCores *&cores);

/// Makes machineImeCores answer `cores` (evidence Injected) instead of the
/// machine, so that tests of the launcher run on any machine; null goes back
/// to the machine's answer. Not thread-safe against concurrent launches.
void injectImeCoresForTesting(const CoreSet *cores);

/// Writes `cores` as ranges ("0-3,6") into `text`, truncated to `size`;
/// "none" when empty.
void formatCoreSet(const CoreSet &cores, char *text, size_t size);

} // namespace blockc::runtime

//===- HostCpu.h - What the running machine says about its CPU --*- C++ -*-===//
//
// `--target host` is built from what the machine reports, never from its CPU's
// name alone (virtual machines hide it): on x86 the CPUID bits LLVM reads; on
// RISC-V the kernel's riscv_hwprobe answers where it has the call (Linux 6.4+),
// else /proc/cpuinfo's isa line; on AArch64 the HWCAP bits of the auxiliary
// vector, else /proc/cpuinfo's Features line. Gathering the report is
// separate from reading it, so that detection is tested on any machine's
// report, and so that BLOCKC_HOST_FEATURES can complete a report that says
// too little (QEMU's user mode has no hwprobe, and its /proc/cpuinfo is the
// host's).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/targetinfo/Target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blockc {

/// The SpacemiT X60's ids (LLVM's RISCVProcessors.td, and what the K1's Linux
/// prints in /proc/cpuinfo).
inline constexpr uint64_t kX60VendorId = 0x710;
inline constexpr uint64_t kX60ArchId = 0x8000000058000001;

struct HostReport {
  Arch arch = Arch::X86_64;
  std::string triple;
  /// LLVM's name for the CPU, and the features LLVM detects (x86: every
  /// feature, present or not; elsewhere only those present, if any).
  std::string llvmCpu;
  std::vector<std::pair<std::string, bool>> llvmFeatures;
  /// The text of /proc/cpuinfo; empty when it cannot be read.
  std::string cpuinfo;
  /// riscv64: riscv_hwprobe's answers, where the kernel has the call.
  struct Hwprobe {
    uint64_t mvendorid = 0;
    uint64_t marchid = 0;
    uint64_t baseBehavior = 0;
    uint64_t imaExt0 = 0;
  };
  std::optional<Hwprobe> hwprobe;
  /// aarch64: AT_HWCAP and AT_HWCAP2.
  uint64_t hwcap = 0;
  uint64_t hwcap2 = 0;
  /// The bits of one vector register as this process runs: RVV's VLEN (from
  /// vlenb), SVE's current vector length; 0 when unknown or absent.
  unsigned vectorBits = 0;
};

/// Reads the report of the running machine. `overrides` is
/// BLOCKC_HOST_FEATURES's value: when it adds a vector extension the report
/// lacks, the vector length is read all the same (reading it without the
/// extension would trap).
HostReport readHostReport(std::string_view overrides);

/// The `host` target `report` describes, with `overrides` applied last:
/// comma-separated `+FEATURE` / `-FEATURE` (the names `blockc targets` shows)
/// and `cpu=NAME` (`cpu=spacemit-x60` makes the host an X60, IME included).
/// Target::detection says where each fact came from. False with an error
/// naming BLOCKC_HOST_FEATURES when `overrides` is malformed.
bool hostTargetFrom(const HostReport &report, std::string_view overrides, Target &target,
                    std::string &error);

/// The features of the ISA string of /proc/cpuinfo's first `isa` line
/// (`rv64imafdcv_zba_zbb_...`), and whether there was one.
bool parseRiscvIsa(std::string_view cpuinfo, FeatureSet &features, std::string &isa);

/// The value of the first `key : value` line of /proc/cpuinfo text whose key
/// is `key`, or empty.
std::string cpuinfoField(std::string_view cpuinfo, std::string_view key);

} // namespace blockc

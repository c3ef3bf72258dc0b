//===- Target.h - What the code generator knows about a machine -*- C++ -*-===//
//
// A Target is data: an LLVM triple and CPU, a set of features (an enum, never
// a string to compare), and the vector register shape. Lowering asks a Target
// how many lanes a strip of some element type has; it never assumes 16.
// Scalable targets (RVV, SVE) give a minimum lane count and a vscale factor
// that is known only when the program runs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Types.h"

#include <bitset>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

enum class Feature : uint8_t {
  // x86
  SSE42,
  AVX,
  AVX2,
  FMA,
  F16C,
  AVX512F,
  AVX512BW,
  AVX512DQ,
  AVX512VL,
  AVX512BF16,
  AVX512FP16,
  AVX512VNNI,
  AMXTile,
  AMXBF16,
  AMXINT8,
  // AArch64
  NEON,
  SVE,
  SVE2,
  BF16,
  DotProd,
  I8MM,
  FullFP16,
  // RISC-V
  M, // integer multiply and divide
  A, // atomics
  C, // compressed instructions
  RVV,
  Zvfh,
  Zfh,
  Zba,
  Zbb,
  Zbs,
  Zbc,
  Zicond,
  Zvl256b,
  XSMTVDot,
  Count
};

/// LLVM's name of `f` (`avx512f`, `sve`, `zvfh`), and the feature of a name.
std::string_view featureName(Feature f);
std::optional<Feature> featureNamed(std::string_view llvmName);

class FeatureSet {
public:
  FeatureSet() = default;
  FeatureSet(std::initializer_list<Feature> features) {
    for (Feature f : features)
      add(f);
  }
  void add(Feature f) { bits_.set(static_cast<size_t>(f)); }
  void remove(Feature f) { bits_.reset(static_cast<size_t>(f)); }
  bool has(Feature f) const { return bits_.test(static_cast<size_t>(f)); }
  std::vector<Feature> list() const;

private:
  std::bitset<static_cast<size_t>(Feature::Count)> bits_;
};

enum class Arch : uint8_t { X86_64, AArch64, RISCV64 };

struct Target {
  std::string name;
  std::string description;
  Arch arch = Arch::X86_64;
  std::string triple;
  std::string cpu;
  /// The CPU whose scheduling model tunes the code when `cpu` names a generic
  /// one (a subset of a real core's ISA, as spacemit-k1-qemu is); empty: `cpu`.
  std::string tuneCpu;
  /// The LLVM feature string (`+avx2,+fma`), derived from `features` unless a
  /// detected host supplies its own.
  std::string llvmFeatures;
  FeatureSet features;
  /// Bits of one vector register; for scalable targets, the bits of one
  /// vscale unit (64 on RVV, 128 on SVE): a register holds vscale times that.
  unsigned vectorBits = 128;
  bool scalable = false;
  /// Scalable targets built for one vector length (neoverse-v1: 256-bit SVE)
  /// fix vscale to this; 0 keeps the code correct at every length.
  unsigned fixedVscale = 0;
  unsigned vectorRegisters = 16;

  /// How a detected host learned its features, a line each (`blockc
  /// targets` prints them); empty for named targets.
  std::vector<std::string> detection;

  /// Lanes of `kind` in one vector register (times vscale when scalable).
  unsigned lanes(ScalarKind kind) const;
  bool has(Feature f) const { return features.has(f); }
};

/// The LLVM feature string (`+avx2,+fma`) of `set`.
std::string llvmFeatureString(const FeatureSet &set);

/// The named targets, then `host`. `host` is detected from the running CPU's
/// features (HostCpu.h; never its name alone: virtual machines hide it), then
/// BLOCKC_HOST_FEATURES, whose error lookupTarget returns.
std::vector<std::string> targetNames();
/// Returns false with a message listing the known names when `name` is unknown.
bool lookupTarget(std::string_view name, Target &target, std::string &error);

/// Adds and removes features named in `list` (`+zvfh,-zicond`: LLVM's names,
/// as `blockc targets` prints them). Returns false with a message listing
/// the known features when one is unknown or lacks its sign.
bool applyFeatureChanges(std::string_view list, Target &target, std::string &error);

} // namespace blockc

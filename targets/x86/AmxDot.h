//===- AmxDot.h - Dots on Intel AMX tiles -----------------------*- C++ -*-===//
#pragma once

#include "blockc/lowering/IsaLowering.h"

namespace blockc::x86 {

/// bf16 dots accumulating in f32 (tdpbf16ps) and i8 dots accumulating in i32
/// (tdpbssd) on AMX: 16 x 16 accumulator tiles, blocked 2 x 2 so that each A
/// and B tile loaded feeds two products. B is packed into AMX's VNNI layout
/// (pairs or quads of K rows interleaved); A and C are used in place when
/// their sizes are whole tiles and copied into zero-padded scratch otherwise.
/// A K loop fused into one dot (fusedKSteps) keeps each block of C in its
/// tiles across all the loop's steps and packs B once for them. The first dot
/// a process runs asks Linux for permission to use the tile registers
/// (arch_prctl ARCH_REQ_XCOMP_PERM).
class AmxDot final : public DotStrategy {
public:
  AmxDot(bool bf16, bool int8) : bf16_(bf16), int8_(int8) {}
  std::string_view name() const override { return "amx"; }
  bool accepts(const DotOperands &dot) const override;
  void emit(const DotOperands &dot) const override;
  int64_t fusedKSteps(const DotOperands &dot) const override;

private:
  bool bf16_, int8_;
};

} // namespace blockc::x86

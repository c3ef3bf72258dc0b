//===- ImeDot.h - i8 dots on the SpacemiT IME -------------------*- C++ -*-===//
#pragma once

#include "blockc/riscv/IsaLowering.h"

namespace blockc::riscv {

/// i8 x i8 -> i32 dots on the SpacemiT IME (docs/k1.md, section 6): each
/// `smt.vmadot` adds A[4x8] . B[8x4] to a 4x4 i32 accumulator held in a
/// register pair. Atoms are composed into 12x16 tiles (IREE's ukernel: 3
/// registers of A, 4 of B, 12 accumulator pairs, 31 of the 32 registers),
/// held for the whole K extent. B is packed once per dot, by columns in
/// groups of 8 k; A once per row tile, by rows; both padded with zeros to
/// whole tiles and whole groups of 8 k, so edges cost nothing inside the K
/// loop. The accumulators start at zero and are added to C at the end under
/// the edges' masks.
///
/// The code assumes VLEN 256, the X60's: the IME's tile shape follows VLEN.
/// LLVM 22 assembles the IME but has no intrinsics for it, so each K step is
/// one inline assembly block (a vsetvli and twelve smt.vmadot).
///
/// As `ime-model` (`model` set), the same code calls
/// `blockc_ime_vmadot_model(i32 *acc, const i8 *a, const i8 *b, i32 signs)`
/// on the images of its registers instead of executing smt.vmadot: the tests
/// run it under QEMU at VLEN 256 against the C++ model of the instruction
/// (tests/codegen/ImeModel.h). It is used only when named by --dot-strategy.
class ImeDot final : public DotStrategy {
public:
  explicit ImeDot(bool model) : model_(model) {}
  std::string_view name() const override { return model_ ? "ime-model" : "ime"; }
  bool accepts(const DotOperands &dot) const override;
  void emit(const DotOperands &dot) const override;
  CoreRequirements coreRequirements() const override { return model_ ? 0 : kRequiresSpacemitIme; }
  bool onlyWhenNamed() const override { return model_; }

private:
  bool model_;
};

} // namespace blockc::riscv

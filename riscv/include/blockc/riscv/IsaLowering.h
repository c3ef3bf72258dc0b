//===- IsaLowering.h - RISC-V: RVV 1.0 --------------------------*- C++ -*-===//
#pragma once

#include "blockc/lowering/IsaLowering.h"

namespace blockc::riscv {

/// The CoreRequirements bit of kernels that execute the SpacemiT IME
/// (smt.vmadot): on the K1, cores 0-3 only. runtime.h's
/// BLOCKC_REQUIRES_SPACEMIT_IME; the JIT checks that both agree.
inline constexpr CoreRequirements kRequiresSpacemitIme = 1;

/// The function that kernels compiled with the IME's testing form
/// (`--dot-strategy=ime-model`) call for each smt.vmadot; the process that
/// loads them provides it (the QEMU tests' runner does).
inline constexpr const char *kImeModelFunction = "blockc_ime_vmadot_model";

/// Scalable strips whose register group (LMUL 1 to 8) is chosen per kernel
/// from its register pressure, and one strip-mined loop per row whose
/// vector length is set by vsetvli, so the tail needs no mask and no
/// epilogue. The code is correct at every VLEN the target allows.
std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target);

} // namespace blockc::riscv

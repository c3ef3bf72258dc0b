//===- IsaLowering.h - RISC-V: RVV 1.0 --------------------------*- C++ -*-===//
#pragma once

#include "blockc/lowering/IsaLowering.h"

namespace blockc::riscv {

/// Scalable strips whose register group (LMUL 1 to 8) is chosen per kernel
/// from its register pressure, and one strip-mined loop per row whose
/// vector length is set by vsetvli, so the tail needs no mask and no
/// epilogue. The code is correct at every VLEN the target allows.
std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target);

} // namespace blockc::riscv

//===- IsaLowering.h - AArch64: NEON and SVE --------------------*- C++ -*-===//
#pragma once

#include "blockc/lowering/IsaLowering.h"

namespace blockc::aarch64 {

/// SVE: scalable strips of one register (vscale x 128 bits) predicated by
/// whilelo in the tail; the same code runs at every vector length unless the
/// target fixes one. NEON: fixed 128-bit strips.
std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target);

} // namespace blockc::aarch64

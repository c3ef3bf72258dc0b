//===- IsaLowering.h - x86-64: AVX2 and AVX-512 -----------------*- C++ -*-===//
#pragma once

#include "blockc/lowering/IsaLowering.h"

namespace blockc::x86 {

/// Fixed-width strips of one register (256 bits on AVX2, 512 on AVX-512),
/// tails under a lane mask. LLVM's x86 backend cannot scalarize scalable
/// vectors, so nothing here is scalable.
std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target);

} // namespace blockc::x86

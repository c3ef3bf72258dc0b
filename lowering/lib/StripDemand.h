//===- StripDemand.h - What a kernel asks of its strips ---------*- C++ -*-===//
#pragma once

#include "FuseElementwise.h"
#include "blockc/lowering/IsaLowering.h"

namespace blockc {

/// The widest element `fn`'s blocks carry and the registers its busiest
/// fused strip expression needs, under `plan`.
StripDemand measureStripDemand(const Function &fn, const FusionPlan &plan);

} // namespace blockc

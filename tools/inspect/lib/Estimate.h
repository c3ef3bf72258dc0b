//===- Estimate.h - A loop's cycles from the CPU's scheduling model -*- C++ -*-===//
#pragma once

#include "Machine.h"

#include <optional>
#include <vector>

namespace blockc::inspect {

/// Runs `body` (a loop, header first) through llvm-mca's pipeline for the
/// machine's CPU, 100 iterations, and reports the cycles per iteration and
/// the busiest unit. `entryVtype` is the vsetvli in effect when a RISC-V
/// loop is entered (null: none). Instructions the model cannot time are
/// left out and counted; nothing when none can be timed.
std::optional<Estimate> estimateLoop(const Machine &machine,
                                     const std::vector<const Decoded *> &body,
                                     const llvm::MCInst *entryVtype);

} // namespace blockc::inspect

//===- Loops.h - Loops over strips and micro-kernel steps -------*- C++ -*-===//
//
// The loops lowering emits, and the one place that writes LLVM's unroll
// metadata on them: a loop over strips or micro-kernel steps is never
// unrolled, so that code size and compile time do not grow with the block
// (DESIGN.md, principle 1).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/IRBuilder.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace blockc {

/// Asks LLVM to unroll the loop whose latch is `latch` `count` times, or
/// (count 1) not at all.
void setLoopUnroll(llvm::Instruction *latch, unsigned count);

/// A loop body that takes the induction variable and the values carried
/// into this iteration, and returns the values carried out of it.
using CarryingBody = std::function<std::vector<llvm::Value *>(
    llvm::Value *iv, const std::vector<llvm::Value *> &carried)>;

/// `for (iv = begin; iv < end; iv += step) values = body(iv, values)` with an
/// i64 induction variable and constant bounds, never unrolled; returns the
/// values after the last iteration (`values` for an empty range).
std::vector<llvm::Value *> emitCarryingLoop(llvm::IRBuilderBase &b, int64_t begin, int64_t end,
                                            int64_t step, std::vector<llvm::Value *> values,
                                            const CarryingBody &body);

/// `for (iv = begin; iv < end; iv += step) body(iv)` with an i64 induction
/// variable and constant bounds, never unrolled; nothing is emitted for an
/// empty range.
void emitConstantLoop(llvm::IRBuilderBase &b, int64_t begin, int64_t end, int64_t step,
                      const std::function<void(llvm::Value *)> &body);

/// `for (iv = 0; iv < end; iv += step)` with a run-time `end` (i64), which
/// the caller knows to be positive: the body runs at least once (a constant
/// `end` is emitConstantLoop's). Never unrolled. For micro-kernels whose K comes from the program
/// (a dot summing several K steps, DotOperands::kSteps).
std::vector<llvm::Value *> emitCarryingLoopTo(llvm::IRBuilderBase &b, llvm::Value *end,
                                              int64_t step, std::vector<llvm::Value *> values,
                                              const CarryingBody &body);
void emitLoopTo(llvm::IRBuilderBase &b, llvm::Value *end, int64_t step,
                const std::function<void(llvm::Value *)> &body);

/// `for (iv = 0; iv < end; iv = body(iv))` with `end` >= 1: the body runs at
/// least once and returns the next induction variable (a step known only at
/// run time, such as a vector length); never unrolled.
void emitSteppingLoop(llvm::IRBuilderBase &b, int64_t end,
                      const std::function<llvm::Value *(llvm::Value *)> &body);

} // namespace blockc

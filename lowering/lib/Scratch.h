//===- Scratch.h - Where a program's scratch lives --------------*- C++ -*-===//
//
// Scratch is allocated as stack slots while the kernel is generated, since its
// total is known only at the end. A kernel whose scratch fits
// kMaxStackScratchBytes keeps the slots: the stack is the fastest place, with
// nothing to call. A larger one asks the runtime for its thread's arena once
// per program and finds every buffer at a fixed offset in it, so that the
// stack need not grow with block size (docs/launcher.md, "Scratch").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/IRBuilder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace blockc {

class ScratchSpace {
public:
  /// Scratch of the function whose entry block is `allocas`.
  explicit ScratchSpace(llvm::BasicBlock *allocas) : allocas_(allocas) {}

  /// 64-byte-aligned scratch of `type`, counted in the kernel's scratch
  /// memory: a stack slot until place() decides where it lives.
  llvm::Value *allocate(llvm::Type *type, const std::string &name);
  /// Ends the entry block with a branch to `body`, after moving every buffer
  /// into the thread's arena when they do not all fit the stack.
  void place(llvm::BasicBlock *body);
  uint64_t bytes() const { return bytes_; }

private:
  llvm::BasicBlock *allocas_;
  uint64_t bytes_ = 0;
  std::vector<llvm::AllocaInst *> buffers_;
};

} // namespace blockc

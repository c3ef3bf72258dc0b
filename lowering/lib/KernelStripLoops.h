//===- KernelStripLoops.h - A kernel's strips, offered to dots --*- C++ -*-===//
#pragma once

#include "StripEmitter.h"
#include "blockc/lowering/DotCascade.h"

namespace blockc {

/// The kernel's strips as StripLoops offers them to a dot strategy: vector
/// loads and stores take the tail predication of the strip they are in,
/// element loads none.
class KernelStripLoops final : public StripLoops {
public:
  explicit KernelStripLoops(StripEmitter &strips) : strips_(strips) {}

  void forEachStripOfRow(int64_t length,
                         const std::function<void(llvm::Value *, bool)> &body) override {
    strips_.forEachStripOfRow(length, [&](llvm::Value *column, bool vector) {
      llvm::Value *outer = stripMask_;
      stripMask_ = strips_.tailMask();
      body(column, vector);
      strips_.setTailMask(stripMask_);
      stripMask_ = outer;
    });
  }

  void countedLoop(int64_t begin, int64_t end,
                   const std::function<void(llvm::Value *)> &body) override {
    strips_.emitCountedLoop(strips_.i64(begin), strips_.i64(end), strips_.i64(1), body);
  }

  llvm::Value *load(llvm::Value *buffer, const Type &type, llvm::Value *row, llvm::Value *column,
                    bool vector, const Type &to) override {
    llvm::Value *saved = strips_.tailMask();
    strips_.setTailMask(vector ? stripMask_ : nullptr);
    llvm::Value *value = strips_.loadBuffer(buffer, type, {row, column}, vector);
    strips_.setTailMask(saved);
    return strips_.convert(value, type.elementType(), to, false);
  }

  void store(llvm::Value *buffer, const Type &type, llvm::Value *row, llvm::Value *column,
             llvm::Value *value, bool vector) override {
    strips_.storeBuffer(buffer, type, {row, column}, value, vector);
  }

  llvm::Type *scalarType(const Type &element) override { return strips_.elementType(element); }
  llvm::Type *stripType(const Type &element) override {
    return strips_.vectorOf(strips_.elementType(element));
  }
  llvm::Value *splat(llvm::Value *scalar) override { return strips_.splat(scalar); }
  llvm::Value *entrySlot(llvm::Type *type) override {
    return strips_.entryBuilder().CreateAlloca(type);
  }

private:
  StripEmitter &strips_;
  llvm::Value *stripMask_ = nullptr;
};

} // namespace blockc

//===- CodeGenDot.cpp - Dots, through the cascade -------------------------===//
#include "CodeGen.h"
#include "blockc/lowering/DotCascade.h"

namespace blockc {

/// The kernel's strips as StripLoops offers them to a dot strategy: vector
/// loads and stores take the tail predication of the strip they are in,
/// element loads none.
class KernelStripLoops final : public StripLoops {
public:
  explicit KernelStripLoops(KernelCodeGen &codegen) : cg_(codegen) {}

  void forEachStripOfRow(int64_t length,
                         const std::function<void(llvm::Value *, bool)> &body) override {
    cg_.forEachStripOfRow(length, [&](llvm::Value *column, bool vector) {
      llvm::Value *outer = stripMask_;
      stripMask_ = cg_.tailMask_;
      body(column, vector);
      cg_.tailMask_ = stripMask_;
      stripMask_ = outer;
    });
  }

  void countedLoop(int64_t begin, int64_t end,
                   const std::function<void(llvm::Value *)> &body) override {
    cg_.emitCountedLoop(cg_.i64(begin), cg_.i64(end), cg_.i64(1), body);
  }

  llvm::Value *load(llvm::Value *buffer, const Type &type, llvm::Value *row, llvm::Value *column,
                    bool vector, const Type &to) override {
    llvm::Value *saved = cg_.tailMask_;
    cg_.tailMask_ = vector ? stripMask_ : nullptr;
    llvm::Value *value = cg_.loadBuffer(buffer, type, {row, column}, vector);
    cg_.tailMask_ = saved;
    return cg_.convert(value, type.elementType(), to, false);
  }

  void store(llvm::Value *buffer, const Type &type, llvm::Value *row, llvm::Value *column,
             llvm::Value *value, bool vector) override {
    cg_.storeBuffer(buffer, type, {row, column}, value, vector);
  }

  llvm::Type *scalarType(const Type &element) override { return cg_.elementType(element); }
  llvm::Type *stripType(const Type &element) override {
    return cg_.vectorOf(cg_.elementType(element));
  }
  llvm::Value *splat(llvm::Value *scalar) override { return cg_.splat(scalar); }
  llvm::Value *entrySlot(llvm::Type *type) override {
    llvm::IRBuilder<> entry(cg_.allocaBlock_, cg_.allocaBlock_->begin());
    return entry.CreateAlloca(type);
  }

private:
  KernelCodeGen &cg_;
  llvm::Value *stripMask_ = nullptr;
};

void KernelCodeGen::emitDot(const Operation &op, llvm::Value *buffer) {
  const Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2];
  int64_t m = a->type().shape()[0], k = a->type().shape()[1], n = bv->type().shape()[1];
  llvm::Value *aBuffer = bufferOf(a), *bBuffer = bufferOf(bv);
  writeInto(acc, buffer);
  KernelStripLoops strips(*this);
  DotOperands operands{
      b_,
      aBuffer,
      bBuffer,
      buffer,
      a->type().kind(),
      bv->type().kind(),
      op.result()->type().kind(),
      m,
      n,
      k,
      [&](llvm::Type *type, const std::string &name) { return allocaScratch(type, name); },
      &strips};
  const DotStrategy &strategy = *selectDotStrategy(&operands, isa_, options_.dotStrategy);
  coreRequirements_ |= strategy.coreRequirements();
  strategy.emit(operands);
}

} // namespace blockc

//===- Loops.cpp - Loops over strips and micro-kernel steps ---------------===//
#include "blockc/lowering/Loops.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"

namespace blockc {

void setLoopUnroll(llvm::Instruction *latch, unsigned count) {
  llvm::LLVMContext &ctx = latch->getContext();
  llvm::Metadata *hint =
      count <= 1 ? llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")})
                 : llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.count"),
                                           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                               llvm::Type::getInt32Ty(ctx), count))});
  llvm::MDNode *loopID = llvm::MDNode::getDistinct(ctx, {nullptr, hint});
  loopID->replaceOperandWith(0, loopID);
  latch->setMetadata(llvm::LLVMContext::MD_loop, loopID);
}

namespace {

/// `for (iv = begin; iv < end; iv = next)` where the body returns `next`
/// and the values carried out of the iteration; at least one iteration,
/// never unrolled.
std::vector<llvm::Value *>
emitLoop(llvm::IRBuilderBase &b, llvm::Value *begin, llvm::Value *end,
         std::vector<llvm::Value *> values,
         const std::function<std::pair<llvm::Value *, std::vector<llvm::Value *>>(
             llvm::Value *iv, const std::vector<llvm::Value *> &carried)> &body) {
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *pre = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(ctx, "dot.loop", fn);
  auto *exit = llvm::BasicBlock::Create(ctx, "dot.exit", fn);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *iv = b.CreatePHI(b.getInt64Ty(), 2, "dot.iv");
  iv->addIncoming(begin, pre);
  std::vector<llvm::PHINode *> phis;
  for (llvm::Value *init : values) {
    phis.push_back(b.CreatePHI(init->getType(), 2));
    phis.back()->addIncoming(init, pre);
  }
  auto [nextIv, next] = body(iv, std::vector<llvm::Value *>(phis.begin(), phis.end()));
  iv->addIncoming(nextIv, b.GetInsertBlock());
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i]->addIncoming(next[i], b.GetInsertBlock());
  // Not unrolled: a body here is already a whole micro-kernel step or tile,
  // and code size and compile time stay the same whatever the block sizes
  // (DESIGN.md, principle 1); the K loop unrolled 4 times measured no faster.
  setLoopUnroll(b.CreateCondBr(b.CreateICmpSLT(nextIv, end), loop, exit), 1);
  b.SetInsertPoint(exit);
  return next;
}

} // namespace

std::vector<llvm::Value *> emitCarryingLoop(llvm::IRBuilderBase &b, int64_t begin, int64_t end,
                                            int64_t step, std::vector<llvm::Value *> values,
                                            const CarryingBody &body) {
  if (begin >= end)
    return values;
  if (end - begin <= step)
    return body(b.getInt64(begin), values);
  return emitLoop(b, b.getInt64(begin), b.getInt64(end), std::move(values),
                  [&](llvm::Value *iv, const std::vector<llvm::Value *> &carried) {
                    std::vector<llvm::Value *> next = body(iv, carried);
                    return std::make_pair(b.CreateAdd(iv, b.getInt64(step), "", true, true), next);
                  });
}

void emitSteppingLoop(llvm::IRBuilderBase &b, int64_t end,
                      const std::function<llvm::Value *(llvm::Value *)> &body) {
  emitLoop(b, b.getInt64(0), b.getInt64(end), {},
           [&](llvm::Value *iv, const std::vector<llvm::Value *> &) {
             return std::make_pair(body(iv), std::vector<llvm::Value *>());
           });
}

std::vector<llvm::Value *> emitCarryingLoopTo(llvm::IRBuilderBase &b, llvm::Value *end,
                                              int64_t step, std::vector<llvm::Value *> values,
                                              const CarryingBody &body) {
  if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(end))
    return emitCarryingLoop(b, 0, constant->getSExtValue(), step, std::move(values), body);
  return emitLoop(b, b.getInt64(0), end, std::move(values),
                  [&](llvm::Value *iv, const std::vector<llvm::Value *> &carried) {
                    std::vector<llvm::Value *> next = body(iv, carried);
                    return std::make_pair(b.CreateAdd(iv, b.getInt64(step), "", true, true), next);
                  });
}

void emitLoopTo(llvm::IRBuilderBase &b, llvm::Value *end, int64_t step,
                const std::function<void(llvm::Value *)> &body) {
  emitCarryingLoopTo(b, end, step, {}, [&](llvm::Value *iv, const std::vector<llvm::Value *> &) {
    body(iv);
    return std::vector<llvm::Value *>();
  });
}

void emitConstantLoop(llvm::IRBuilderBase &b, int64_t begin, int64_t end, int64_t step,
                      const std::function<void(llvm::Value *)> &body) {
  emitCarryingLoop(b, begin, end, step, {},
                   [&](llvm::Value *iv, const std::vector<llvm::Value *> &) {
                     body(iv);
                     return std::vector<llvm::Value *>();
                   });
}

} // namespace blockc

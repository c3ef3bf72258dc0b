//===- CodeGenPrint.cpp - `print`, one runtime call per element -----------===//
//
// `print` is for looking at a kernel, not for speed: each element becomes one
// call to the runtime's blockc_print with its index and its values widened to
// 64 bits (floats exactly to f64, integers sign-extended, bits zero-extended
// for `hex`), in a loop over the block's elements, so that the code stays
// small whatever the block's size. Blocks are read from buffers.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "blockc/lowering/Compiler.h"

#include "llvm/IR/Module.h"

namespace blockc {

namespace {

uint8_t printFormat(const Type &t, bool hex) {
  unsigned bytes = t.isPointer() ? 8 : std::max(1u, bitWidth(t.kind()) / 8);
  PrintFormat format = t.isPointer() || hex ? PrintFormat::Hex
                       : t.isFloat()        ? PrintFormat::Float
                       : t.isBool()         ? PrintFormat::Unsigned
                                            : PrintFormat::Signed;
  return uint8_t(bytes << 4 | unsigned(format));
}

} // namespace

llvm::Value *KernelCodeGen::printBits(llvm::Value *v, const Type &t, bool hex) {
  llvm::Type *i64Type = b_.getInt64Ty();
  if (t.isPointer())
    return b_.CreatePtrToInt(v, i64Type);
  if (hex || !t.isFloat()) {
    llvm::Type *sameWidth = b_.getIntNTy(v->getType()->getPrimitiveSizeInBits());
    llvm::Value *bits = b_.CreateBitCast(v, sameWidth);
    return hex || t.isBool() ? b_.CreateZExt(bits, i64Type) : b_.CreateSExt(bits, i64Type);
  }
  return b_.CreateBitCast(convert(v, t, Type::scalar(ScalarKind::F64), false), i64Type);
}

void KernelCodeGen::emitPrint(const Operation &op) {
  llvm::LLVMContext &ctx = b_.getContext();
  const Type *block = nullptr;
  std::vector<uint8_t> formats;
  for (const Value *v : op.operands) {
    if (v->type().isBlock())
      block = &v->type();
    formats.push_back(printFormat(v->type().elementType(), op.hex));
  }
  const unsigned count = unsigned(op.operands.size()), rank = block ? block->rank() : 0;

  llvm::Value *text = b_.CreateGlobalString(op.text, "print.text", 0, &module_);
  auto *formatsGlobal =
      new llvm::GlobalVariable(module_, llvm::ArrayType::get(b_.getInt8Ty(), formats.size()), true,
                               llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantDataArray::get(ctx, formats), "print.formats");
  llvm::IRBuilder<> entry = entryBuilder();
  llvm::Value *values =
      entry.CreateAlloca(b_.getInt64Ty(), b_.getInt32(std::max(count, 1u)), "print.values");
  llvm::Value *index =
      entry.CreateAlloca(b_.getInt64Ty(), b_.getInt32(std::max(rank, 1u)), "print.index");

  // Scalars once; blocks from their buffers, element by element.
  std::vector<llvm::Value *> scalarBits(count), buffers(count);
  for (unsigned i = 0; i < count; ++i) {
    const Value *v = op.operands[i];
    if (v->type().isScalar())
      scalarBits[i] = printBits(eval(v, {}, false), v->type(), op.hex);
    else
      buffers[i] = bufferOf(v);
  }
  llvm::FunctionCallee print = module_.getOrInsertFunction(
      kPrintFunction, llvm::FunctionType::get(b_.getVoidTy(),
                                              {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(),
                                               b_.getInt32Ty(), b_.getPtrTy(), b_.getInt32Ty(),
                                               b_.getPtrTy(), b_.getPtrTy(), b_.getInt32Ty()},
                                              false));
  auto printElement = [&](llvm::Value *element) {
    llvm::Value *rest = element;
    for (unsigned d = rank; d-- > 0;) {
      llvm::Value *extent = i64(block->shape()[d]);
      b_.CreateStore(b_.CreateURem(rest, extent), b_.CreateConstGEP1_32(b_.getInt64Ty(), index, d));
      rest = b_.CreateUDiv(rest, extent);
    }
    for (unsigned i = 0; i < count; ++i) {
      const Type &t = op.operands[i]->type();
      llvm::Value *bits = scalarBits[i];
      if (!bits) {
        llvm::Type *memTy = memoryType(t.elementType());
        llvm::Value *raw = b_.CreateLoad(memTy, b_.CreateGEP(memTy, buffers[i], element));
        bits = printBits(fromMemory(raw, t.elementType()), t.elementType(), op.hex);
      }
      b_.CreateStore(bits, b_.CreateConstGEP1_32(b_.getInt64Ty(), values, i));
    }
    b_.CreateCall(print, {text, programIds_[0], programIds_[1], programIds_[2], index,
                          b_.getInt32(rank), values, formatsGlobal, b_.getInt32(count)});
  };
  if (!block) {
    printElement(nullptr);
    return;
  }
  emitCountedLoop(i64(0), i64(block->numElements()), i64(1), printElement);
}

} // namespace blockc

//===- CodeGenPrefetch.cpp - The next program's blocks, fetched ahead -----===//
//
// A kernel that reads its block twice (softmax's maximum, then its
// exponentials) waits on memory in the first pass, where the block comes from
// DRAM, and on arithmetic in the second, where it comes from cache. The
// second pass is where the next program's block can be fetched: consecutive
// programs of a launch run one after another on a thread (program id 0 is the
// fastest axis of the launcher's default order, and chunks hold consecutive
// programs), and an address that is a pure function of the program id is the
// same function of the id plus one. A prefetch is only a hint: an address
// past the last program's block, or a launch in another order, costs a
// wasted fetch and changes no result.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "StripGroups.h"
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/Module.h"

#include <functional>
#include <optional>

namespace blockc {

namespace {

/// Blocks smaller than a page the hardware's stream prefetcher already
/// follows from one program into the next.
constexpr int64_t kMinFetchAheadBytes = 4096;

/// Ops an address may be computed from and be computed again for another
/// program: no memory, no loops, no calls. Integer division never traps
/// (docs/block-ir.md), so none of them can fault.
bool isAddressArithmetic(OpClass opClass) {
  switch (opClass) {
  case OpClass::GridQuery:
  case OpClass::Constant:
  case OpClass::Arange:
  case OpClass::ShapeTo:
  case OpClass::AxisOp:
  case OpClass::Trans:
  case OpClass::Arith:
  case OpClass::Bitwise:
  case OpClass::ArithUnary:
  case OpClass::BitwiseUnary:
  case OpClass::Cmp:
  case OpClass::Select:
  case OpClass::CastTo:
  case OpClass::AddPtr:
    return true;
  default:
    return false;
  }
}

bool isProgramIdX(const Operation *op) {
  return op && op->kind() == OpKind::ProgramId && op->ints[0] == 0;
}

} // namespace

void KernelCodeGen::beginNextProgramFetches(const Function &fn) {
  parameters_.clear();
  inductionVariables_.clear();
  storedRoots_.clear();
  loadsRead_.clear();
  fetchedRoots_.clear();
  for (const auto &param : fn.body.args)
    parameters_.insert(param.get());
  walkOps(const_cast<Region &>(fn.body), [&](Operation &op) {
    if (op.kind() == OpKind::For)
      inductionVariables_[op.regions[0]->args[0].get()] = &op;
    if (writesMemory(op) && !op.operands.empty() &&
        op.operands[0]->type().elementType().isPointer())
      storedRoots_.insert(rootPointer(op.operands[0]));
  });
}

void KernelCodeGen::collectLoadsReadBy(const Value *v, std::vector<const Operation *> &loads,
                                       std::unordered_set<const Value *> &seen,
                                       std::vector<const Operation *> *copiedToScratch) {
  if (!seen.insert(v).second || v->type().isScalar())
    return;
  const Operation *def = v->definingOp();
  if (!def)
    return;
  if (buffers_.count(v) || plan_.isMaterialized(v)) {
    if (copiedToScratch && def->kind() == OpKind::Load && loadsRead_.count(def))
      copiedToScratch->push_back(def);
    return;
  }
  if (def->kind() == OpKind::Load)
    loads.push_back(def);
  for (const Value *operand : def->operands)
    collectLoadsReadBy(operand, loads, seen, copiedToScratch);
}

void KernelCodeGen::noteLoadsRead(const Operation &op) {
  // A virtual block is computed in its consumers' strips, not here.
  for (const auto &result : op.results)
    if (result->type().isBlock() && !plan_.isMaterialized(result.get()))
      return;
  if (op.kind() == OpKind::Load && op.result()->type().isBlock())
    loadsRead_.insert(&op);
  std::vector<const Operation *> loads;
  std::unordered_set<const Value *> seen;
  for (const Value *operand : op.operands)
    collectLoadsReadBy(operand, loads, seen);
  loadsRead_.insert(loads.begin(), loads.end());
}

llvm::Value *KernelCodeGen::nextProgramOffset(const Value *pointers) {
  // The scalars on the way from program id 0 to the pointers, each after its
  // operands; block values are evaluated afresh from them.
  std::vector<const Value *> shiftedScalars;
  std::unordered_map<const Value *, bool> dependsOnProgram;
  std::function<std::optional<bool>(const Value *)> visit =
      [&](const Value *v) -> std::optional<bool> {
    if (auto known = dependsOnProgram.find(v); known != dependsOnProgram.end())
      return known->second;
    const Operation *def = v->definingOp();
    if (!def) {
      if (parameters_.count(v))
        return dependsOnProgram[v] = false;
      // A loop's induction variable takes the same values in every program
      // when its start and step do; a carried value may not.
      auto loop = inductionVariables_.find(v);
      if (loop == inductionVariables_.end())
        return std::nullopt;
      for (unsigned bound : {0u, 2u}) {
        std::optional<bool> boundDepends = visit(loop->second->operands[bound]);
        if (!boundDepends || *boundDepends)
          return std::nullopt;
      }
      return dependsOnProgram[v] = false;
    }
    if (!isAddressArithmetic(def->opClass()))
      return std::nullopt;
    bool depends = isProgramIdX(def);
    for (const Value *operand : def->operands) {
      std::optional<bool> operandDepends = visit(operand);
      if (!operandDepends)
        return std::nullopt;
      depends |= *operandDepends;
    }
    if (depends && v->type().isScalar()) {
      if (!scalars_.count(v))
        return std::nullopt; // not computed here: nothing to compute it again from
      shiftedScalars.push_back(v);
    }
    return dependsOnProgram[v] = depends;
  };
  std::optional<bool> depends = visit(pointers);
  if (!depends || !*depends)
    return nullptr;

  Coords first(pointers->type().shape().size(), i64(0));
  llvm::Value *here = eval(pointers, first, false);
  // The same values for the next program: its own scalars, and no strip of
  // this program's memo.
  auto memo = std::move(memo_);
  memo_.clear();
  std::vector<std::pair<const Value *, llvm::Value *>> saved;
  for (const Value *v : shiftedScalars) {
    saved.emplace_back(v, scalars_.at(v));
    const Operation &def = *v->definingOp();
    scalars_[v] = isProgramIdX(&def) ? b_.CreateAdd(programIds_[0], b_.getInt32(1))
                                     : evalDef(def, v, {}, false);
  }
  llvm::Value *next = eval(pointers, first, false);
  for (auto &[v, value] : saved)
    scalars_[v] = value;
  memo_ = std::move(memo);
  return b_.CreateSub(b_.CreatePtrToInt(next, b_.getInt64Ty()),
                      b_.CreatePtrToInt(here, b_.getInt64Ty()), "next_program.offset");
}

std::vector<KernelCodeGen::NextProgramFetch>
KernelCodeGen::planNextProgramFetches(llvm::ArrayRef<const Value *> roots, const Shape &shape) {
  // A block an earlier pass loaded and kept (a block store stood between
  // the passes that read it) is read from scratch here, and this pass's
  // memory is as idle as one that reads it from cache: its address is still
  // the load's.
  std::vector<const Operation *> loads, copied;
  std::unordered_set<const Value *> seen;
  for (const Value *root : roots)
    collectLoadsReadBy(root, loads, seen, &copied);
  loads.insert(loads.end(), copied.begin(), copied.end());
  std::vector<NextProgramFetch> fetches;
  // A later pass, after one that read memory: a single pass (GELU, an add)
  // streams, and the hardware follows it from one program into the next.
  if (!loadsRead_.empty()) {
    const llvm::DataLayout &layout = module_.getDataLayout();
    for (const Operation *load : loads) {
      const Type &type = load->result()->type();
      int64_t bytes =
          type.numElements() * int64_t(layout.getTypeAllocSize(memoryType(type.elementType())));
      // An input (what the kernel stores to, the next program writes before
      // it reads), in this strip loop's shape, by the first pass that can:
      // a later pass of the same rows would fetch them twice.
      const Value *root = rootPointer(load->operands[0]);
      if (!root || fetchedRoots_.count(root) || storedRoots_.count(root) || load->isVolatile ||
          type.shape() != shape || bytes < kMinFetchAheadBytes)
        continue;
      if (llvm::Value *offset = nextProgramOffset(load->operands[0])) {
        fetches.push_back({load, offset});
        fetchedRoots_.insert(root);
      }
    }
  }
  return fetches;
}

void KernelCodeGen::fetchForNextProgram(const std::vector<NextProgramFetch> &fetches,
                                        const Coords &coords, bool vector) {
  for (const NextProgramFetch &fetch : fetches) {
    llvm::Value *pointers = eval(fetch.load->operands[0], coords, vector);
    llvm::Value *first = vector ? b_.CreateExtractElement(pointers, uint64_t(0)) : pointers;
    llvm::Value *ahead = b_.CreateGEP(b_.getInt8Ty(), first, fetch.offset);
    // Read, locality 3 (x86 prefetcht0): the next program's first pass
    // reads the block from L1 once this program's own strips are consumed.
    b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ahead->getType()},
                       {ahead, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
  }
}

} // namespace blockc

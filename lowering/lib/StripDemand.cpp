//===- StripDemand.cpp - What a kernel asks of its strips -----------------===//
//
// The widest data element decides how many lanes a strip has; the register
// need of the fused expressions decides how many registers one strip may take
// (RVV's register groups). Data is what is loaded, computed from loads, or
// stored; index arithmetic (aranges, offsets, the compares of masks) follows
// at whatever width it has, so an i8 kernel with i32 offsets still gets
// strips of a full register of i8. The need is the Sethi-Ullman number of each expression a
// strip loop evaluates: a chain of twenty ops needs two registers, a sum of
// eight loads eight.
//
//===----------------------------------------------------------------------===//
#include "StripDemand.h"

#include "CodeGen.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace blockc {

namespace {

unsigned stripBits(const Type &type) {
  if (type.isPointer() || type.isBool())
    return 0; // addresses and masks follow the data they belong to
  ScalarKind kind = type.kind();
  return kind == ScalarKind::F16 || kind == ScalarKind::BF16 ? 32 : bitWidth(kind);
}

class DemandWalk {
public:
  explicit DemandWalk(const FusionPlan &plan) : plan_(plan) {}

  void visit(const Region &region) {
    for (const auto &op : region.ops) {
      bool math = sleefFunction(op->kind()) || op->kind() == OpKind::Sigmoid;
      if (math && !op->results.empty() && op->result()->type().isBlock())
        demand.callsMath = true;
      bool data = op->kind() == OpKind::Load || !op->regions.empty() ||
                  std::any_of(op->operands.begin(), op->operands.end(),
                              [&](const Value *v) { return data_.count(v) != 0; });
      for (const auto &r : op->results) {
        if (!r->type().isBlock())
          continue;
        widestAny_ = std::max(widestAny_, stripBits(r->type()));
        if (data) {
          data_.insert(r.get());
          demand.widestElementBits = std::max(demand.widestElementBits, stripBits(r->type()));
        }
      }
      if (op->kind() == OpKind::Store && op->operands[1]->type().isBlock())
        demand.widestElementBits =
            std::max(demand.widestElementBits, stripBits(op->operands[1]->type()));
      for (const Value *operand : op->operands)
        if (operand->type().isBlock())
          demand.liveStrips = std::max(demand.liveStrips, registersFor(operand));
      for (const auto &inner : op->regions) {
        for (const auto &arg : inner->args)
          data_.insert(arg.get());
        visit(*inner);
      }
    }
  }

  /// A strip group evaluates every sink's strip before any sink writes, and
  /// a reduction sink keeps its accumulators live across the loop.
  void visitGroups() {
    for (const StripGroup &group : plan_.groups) {
      unsigned live = 0;
      for (const StripSink &sink : group.sinks) {
        switch (sink.kind) {
        case StripSink::Kind::Store:
          live += registersFor(sink.op->operands[1]);
          break;
        case StripSink::Kind::Reduce:
          live += registersFor(sink.op->operands[0]) + 4; // up to four accumulators
          break;
        case StripSink::Kind::Materialize: {
          unsigned widest = 1;
          for (const Value *operand : sink.op->operands)
            widest = std::max(widest, registersFor(operand));
          live += widest;
          break;
        }
        case StripSink::Kind::Carried:
          live += registersFor(sink.op->operands[sink.carriedIndex]);
          break;
        }
      }
      demand.liveStrips = std::max(demand.liveStrips, live);
    }
  }

  StripDemand finish() {
    StripDemand result = demand;
    // Without data (a kernel storing only index arithmetic), size by that;
    // with neither, as i32.
    if (result.widestElementBits == 0)
      result.widestElementBits = widestAny_ ? widestAny_ : 32;
    result.widestIndexBits = std::max(widestAny_, result.widestElementBits);
    return result;
  }

private:
  StripDemand demand{0, 0, 1, false};
  std::unordered_set<const Value *> data_;
  unsigned widestAny_ = 0;

  /// Registers evaluating `v` in one strip needs: 1 for a value read from
  /// memory or computed elsewhere, the Sethi-Ullman number of its operands'
  /// needs for a fused op.
  unsigned registersFor(const Value *v) {
    if (!v->type().isBlock() || plan_.isMaterialized(v) || !v->definingOp())
      return 1;
    if (auto it = need_.find(v); it != need_.end())
      return it->second;
    std::vector<unsigned> needs;
    for (const Value *operand : v->definingOp()->operands)
      needs.push_back(registersFor(operand));
    std::sort(needs.rbegin(), needs.rend());
    unsigned registers = 1;
    for (size_t i = 0; i < needs.size(); ++i)
      registers = std::max(registers, needs[i] + unsigned(i));
    return need_[v] = registers;
  }

  const FusionPlan &plan_;
  std::unordered_map<const Value *, unsigned> need_;
};

} // namespace

StripDemand measureStripDemand(const Function &fn, const FusionPlan &plan) {
  DemandWalk walk(plan);
  walk.visit(fn.body);
  walk.visitGroups();
  return walk.finish();
}

} // namespace blockc

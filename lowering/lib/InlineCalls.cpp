//===- InlineCalls.cpp - Inline every call into the kernels ---------------===//
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Passes.h"

#include <algorithm>

namespace blockc {

namespace {

bool inlineInRegion(Module &module, Region &region, unsigned &counter) {
  bool changed = false;
  for (size_t i = 0; i < region.ops.size(); ++i) {
    Operation &op = *region.ops[i];
    for (auto &inner : op.regions)
      changed |= inlineInRegion(module, *inner, counter);
    if (op.kind() != OpKind::Call)
      continue;
    const Function *callee = module.lookupFunction(op.callee);
    ValueMap map;
    for (size_t a = 0; a < callee->body.args.size(); ++a)
      map[callee->body.args[a].get()] = op.operands[a];
    std::string suffix = ".i" + std::to_string(counter++);
    std::vector<std::unique_ptr<Operation>> body;
    std::vector<Value *> returned;
    for (const auto &calleeOp : callee->body.ops) {
      if (calleeOp->kind() == OpKind::Return) {
        for (Value *v : calleeOp->operands)
          returned.push_back(map.count(v) ? map[v] : v);
        continue;
      }
      body.push_back(cloneOperation(*calleeOp, map, suffix));
    }
    std::unique_ptr<Operation> call = std::move(region.ops[i]);
    region.ops.erase(region.ops.begin() + i);
    size_t inserted = body.size();
    region.ops.insert(region.ops.begin() + i, std::make_move_iterator(body.begin()),
                      std::make_move_iterator(body.end()));
    for (size_t r = 0; r < call->results.size(); ++r)
      replaceAllUsesWith(region, call->results[r].get(), returned[r]);
    // Continue after the inlined ops; they hold no calls (see inlineCalls).
    i += inserted;
    --i;
    changed = true;
  }
  return changed;
}

} // namespace

bool inlineCalls(Module &module) {
  bool changed = false;
  unsigned counter = 0;
  // Module order is definition order: each callee is already free of calls
  // when its callers are visited.
  for (auto &fn : module.functions)
    changed |= inlineInRegion(module, fn->body, counter);
  size_t before = module.functions.size();
  auto helpers = std::remove_if(module.functions.begin(), module.functions.end(),
                                [](const auto &fn) { return !fn->isKernel; });
  module.functions.erase(helpers, module.functions.end());
  return changed || module.functions.size() != before;
}

} // namespace blockc

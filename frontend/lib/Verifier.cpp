//===- Verifier.cpp -------------------------------------------------------===//
#include "blockc/frontend/Verifier.h"

#include "blockc/frontend/TypeRules.h"

#include <set>
#include <unordered_map>
#include <unordered_set>

namespace blockc {

namespace {

// Counted as the parser counts: the function body is depth 1.
constexpr unsigned kMaxRegionDepth = 64;

std::string typeList(const std::vector<Type> &types) {
  std::string out = "(";
  for (size_t i = 0; i < types.size(); ++i)
    out += (i ? ", " : "") + types[i].str();
  return out + ")";
}

std::vector<Type> typesOf(const std::vector<Value *> &values) {
  std::vector<Type> out;
  for (Value *v : values)
    out.push_back(v ? v->type() : Type());
  return out;
}

class Verifier {
public:
  Verifier(const Module &module, DiagnosticEngine &diags) : module_(module), diags_(diags) {}

  bool run();

private:
  bool fail(SourceLoc loc, std::string message) {
    diags_.error(loc, std::move(message));
    return false;
  }
  bool verifyFunction(const Function &fn);
  bool verifyRegion(const Region &region, const std::vector<Type> &yieldTypes, OpKind terminator,
                    bool terminatorRequired, unsigned depth);
  bool verifyOp(const Operation &op, unsigned depth);
  bool define(const Value &value);

  const Module &module_;
  DiagnosticEngine &diags_;
  std::unordered_set<std::string> definedFunctions_;
  std::unordered_set<const Value *> visible_;
  std::unordered_map<std::string, SourceLoc> names_;
  std::string currentFunction_;
};

bool Verifier::run() {
  std::set<std::string> constexprNames;
  for (const Constexpr &c : module_.constexprs)
    if (!constexprNames.insert(c.name).second)
      return fail(c.loc, "redefinition of constexpr '" + c.name + "'");
  for (const auto &fn : module_.functions) {
    if (definedFunctions_.count(fn->name))
      return fail(fn->loc, "redefinition of function @" + fn->name);
    if (!verifyFunction(*fn))
      return false;
    definedFunctions_.insert(fn->name);
  }
  return true;
}

bool Verifier::define(const Value &value) {
  if (value.name().empty())
    return fail(value.loc(), "a value has no name");
  auto [it, inserted] = names_.emplace(value.name(), value.loc());
  if (!inserted)
    return fail(value.loc(), "redefinition of %" + value.name());
  visible_.insert(&value);
  return true;
}

bool Verifier::verifyFunction(const Function &fn) {
  visible_.clear();
  names_.clear();
  currentFunction_ = fn.name;
  // A kernel's name is a symbol of its object, beside blockc_scratch_bytes_NAME
  // and the runtime's blockc_launch*: the prefix is the runtime's.
  if (fn.isKernel && fn.name.rfind("blockc_", 0) == 0)
    return fail(fn.loc, "kernel name @" + fn.name +
                            " is reserved: names beginning with 'blockc_' belong to the runtime");
  for (const auto &arg : fn.body.args) {
    if (fn.isKernel && arg->type().isBlock())
      return fail(arg->loc(), "kernel parameter %" + arg->name() + " has block type '" +
                                  arg->type().str() +
                                  "'; kernel parameters are scalars or pointers");
    if (!define(*arg))
      return false;
  }
  if (fn.isKernel && !fn.resultTypes.empty())
    return fail(fn.loc, "kernel @" + fn.name + " cannot return values");
  return verifyRegion(fn.body, fn.resultTypes, OpKind::Return, !fn.isKernel, 1);
}

bool Verifier::verifyRegion(const Region &region, const std::vector<Type> &yieldTypes,
                            OpKind terminator, bool terminatorRequired, unsigned depth) {
  if (depth > kMaxRegionDepth)
    return fail(region.ops.empty() ? SourceLoc{} : region.ops.front()->loc(),
                "regions nested deeper than " + std::to_string(kMaxRegionDepth));
  std::vector<const Value *> scope;
  for (size_t i = 0; i < region.ops.size(); ++i) {
    const Operation &op = *region.ops[i];
    if (op.opClass() == OpClass::Terminator) {
      if (i + 1 != region.ops.size())
        return fail(op.loc(), "'" + std::string(op.name()) + "' must end its body");
      if (op.kind() != terminator)
        return fail(op.loc(),
                    "'" + std::string(op.name()) + "' cannot end " +
                        (terminator == OpKind::Return ? "a function body; use 'return'"
                                                      : "a loop or if body; use 'yield'"));
    }
    if (!verifyOp(op, depth))
      return false;
    for (const auto &r : op.results) {
      if (!define(*r))
        return false;
      scope.push_back(r.get());
    }
  }
  const Operation *term = region.terminator();
  SourceLoc endLoc =
      term ? term->loc() : (region.ops.empty() ? SourceLoc{} : region.ops.back()->loc());
  if (!term) {
    if (terminatorRequired || !yieldTypes.empty())
      return fail(endLoc, std::string("body must end with '") + std::string(opName(terminator)) +
                              "' of " + typeList(yieldTypes));
  } else {
    std::vector<Type> got = typesOf(term->operands);
    if (got != yieldTypes)
      return fail(term->loc(), "'" + std::string(term->name()) + "' gives " + typeList(got) +
                                   ", expected " + typeList(yieldTypes));
  }
  // Values defined here go out of scope with the region.
  for (const Value *v : scope)
    visible_.erase(v);
  return true;
}

bool Verifier::verifyOp(const Operation &op, unsigned depth) {
  std::string name(op.name());
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Value *v = op.operands[i];
    if (!v || !visible_.count(v))
      return fail(op.loc(), "operand " + std::to_string(i) + " of '" + name +
                                "' is not defined where it is used" +
                                (v ? " (%" + v->name() + ")" : ""));
  }
  if (op.kind() == OpKind::Call && op.callee == currentFunction_)
    return fail(op.loc(), "@" + op.callee + " calls itself; recursion is not supported");
  if (op.kind() == OpKind::Call && !definedFunctions_.count(op.callee))
    return fail(op.loc(), "call to @" + op.callee +
                              " before its definition; define functions before calling them "
                              "(recursion is not supported)");

  if (op.kind() == OpKind::For) {
    if (op.regions.size() != 1)
      return fail(op.loc(), "'for' has one body");
    const Region &body = *op.regions[0];
    std::vector<Type> carried;
    for (size_t i = 3; i < op.operands.size(); ++i)
      carried.push_back(op.operands[i]->type());
    if (body.args.size() != carried.size() + 1 || body.args[0]->type() != op.operands[0]->type())
      return fail(op.loc(), "'for' body arguments do not match its bounds and inits");
    for (size_t i = 0; i < carried.size(); ++i)
      if (body.args[i + 1]->type() != carried[i])
        return fail(op.loc(),
                    "'for' body argument " + std::to_string(i + 1) + " does not match its init");
    for (const auto &arg : body.args)
      if (!define(*arg))
        return false;
    if (!verifyRegion(body, carried, OpKind::Yield, false, depth + 1))
      return false;
    for (const auto &arg : body.args)
      visible_.erase(arg.get());
  } else if (op.kind() == OpKind::If) {
    if (op.regions.empty() || op.regions.size() > 2)
      return fail(op.loc(), "'if' has a then-body and an optional else-body");
    std::vector<Type> resultTypes;
    for (const auto &r : op.results)
      resultTypes.push_back(r->type());
    if (!resultTypes.empty() && op.regions.size() != 2)
      return fail(op.loc(), "an 'if' with results needs an 'else' body");
    for (const auto &region : op.regions)
      if (!verifyRegion(*region, resultTypes, OpKind::Yield, false, depth + 1))
        return false;
  } else if (op.kind() == OpKind::While) {
    if (op.regions.size() != 1)
      return fail(op.loc(), "'while' has one body");
    const Region &body = *op.regions[0];
    // The body yields the next condition, then the next carried values.
    std::vector<Type> yielded{Type::scalar(ScalarKind::I1)};
    for (size_t i = 1; i < op.operands.size(); ++i)
      yielded.push_back(op.operands[i]->type());
    if (body.args.size() + 1 != op.operands.size())
      return fail(op.loc(), "'while' body arguments do not match its carried values");
    for (size_t i = 0; i < body.args.size(); ++i)
      if (body.args[i]->type() != yielded[i + 1])
        return fail(op.loc(),
                    "'while' body argument " + std::to_string(i) + " does not match its init");
    for (const auto &arg : body.args)
      if (!define(*arg))
        return false;
    if (!verifyRegion(body, yielded, OpKind::Yield, true, depth + 1))
      return false;
    for (const auto &arg : body.args)
      visible_.erase(arg.get());
  } else if (op.opClass() == OpClass::Combining) {
    if (op.regions.size() != 1)
      return fail(op.loc(), "'" + name + "' has one combine body");
    const Region &body = *op.regions[0];
    std::vector<Type> combined;
    for (const Value *v : op.operands)
      combined.push_back(v->type().elementType());
    for (const auto &arg : body.args)
      if (!define(*arg))
        return false;
    if (!verifyRegion(body, combined, OpKind::Yield, true, depth + 1))
      return false;
    for (const auto &arg : body.args)
      visible_.erase(arg.get());
  } else if (!op.regions.empty()) {
    return fail(op.loc(), "'" + name + "' has no bodies");
  }

  std::vector<Type> inferred;
  if (std::optional<TypeError> e = inferResultTypes(op, module_, inferred)) {
    SourceLoc loc = op.loc();
    if (e->operand >= 0 && size_t(e->operand) < op.operandLocs.size())
      loc = op.operandLocs[e->operand];
    return fail(loc, e->message);
  }
  std::vector<Type> actual;
  for (const auto &r : op.results)
    actual.push_back(r->type());
  if (op.kind() != OpKind::If && actual != inferred)
    return fail(op.loc(), "'" + name + "' has result types " + typeList(actual) +
                              ", but its operands give " + typeList(inferred));
  return true;
}

} // namespace

bool verifyModule(const Module &module, DiagnosticEngine &diags) {
  return Verifier(module, diags).run();
}

} // namespace blockc

//===- Builder.cpp --------------------------------------------------------===//
#include "blockc/frontend/Builder.h"

namespace blockc {

Function &Builder::createKernel(std::string name, const std::vector<Param> &params) {
  Function &fn = createFunction(std::move(name), params, {});
  fn.isKernel = true;
  return fn;
}

Function &Builder::createFunction(std::string name, const std::vector<Param> &params,
                                  std::vector<Type> resultTypes) {
  auto fn = std::make_unique<Function>();
  fn->name = std::move(name);
  fn->loc = loc_;
  fn->resultTypes = std::move(resultTypes);
  for (const Param &p : params)
    fn->body.addArg(p.type, p.name, loc_);
  module_.functions.push_back(std::move(fn));
  region_ = &module_.functions.back()->body;
  return *module_.functions.back();
}

void Builder::addConstexpr(std::string name, ScalarKind kind, ConstantValue value) {
  module_.constexprs.push_back(Constexpr{std::move(name), kind, value, loc_});
}

std::variant<Operation *, TypeError> Builder::insert(std::unique_ptr<Operation> op) {
  std::vector<Type> types;
  if (std::optional<TypeError> error = inferResultTypes(*op, module_, types))
    return *error;
  for (Type &t : types)
    op->addResult(std::move(t), freshName(), op->loc());
  if (op->kind() == OpKind::Const)
    op->constant = canonicalConstant(op->constant, op->targetType.kind());
  region_->ops.push_back(std::move(op));
  return region_->ops.back().get();
}

std::string Builder::freshName() {
  return "v" + std::to_string(nextName_++);
}

std::unique_ptr<Operation> Builder::newOp(OpKind kind, std::vector<Value *> operands) {
  auto op = std::make_unique<Operation>(kind, loc_);
  op->operands = std::move(operands);
  return op;
}

Operation *Builder::make(std::unique_ptr<Operation> op) {
  if (!region_) {
    diags_.error(loc_, "no insertion point: create a function first");
    return nullptr;
  }
  auto inserted = insert(std::move(op));
  if (auto *error = std::get_if<TypeError>(&inserted)) {
    diags_.error(loc_, error->message);
    return nullptr;
  }
  return std::get<Operation *>(inserted);
}

Value *Builder::single(std::unique_ptr<Operation> op) {
  Operation *made = make(std::move(op));
  return made && !made->results.empty() ? made->result() : nullptr;
}

Value *Builder::gridQuery(OpKind kind, int axis) {
  auto op = newOp(kind);
  op->ints = {axis};
  return single(std::move(op));
}

Value *Builder::constant(ConstantValue value, Type type) {
  auto op = newOp(OpKind::Const);
  // Integer literals of float type are stored as floats, as the parser does.
  if (type.isFloat() && !value.isFloat)
    value = ConstantValue::ofFloat(double(value.intValue));
  op->constant = value;
  op->targetType = std::move(type);
  return single(std::move(op));
}

Value *Builder::arange(int64_t start, int64_t end) {
  auto op = newOp(OpKind::Arange);
  op->ints = {start, end};
  return single(std::move(op));
}

Value *Builder::shapeTo(OpKind kind, Value *v, Shape shape) {
  auto op = newOp(kind, {v});
  op->shape = std::move(shape);
  return single(std::move(op));
}

Value *Builder::expandDims(Value *v, int64_t axis) {
  auto op = newOp(OpKind::ExpandDims, {v});
  op->ints = {axis};
  return single(std::move(op));
}

Value *Builder::trans(Value *v, std::vector<int64_t> perm) {
  auto op = newOp(OpKind::Trans, {v});
  op->ints = std::move(perm);
  return single(std::move(op));
}

Value *Builder::binary(OpKind kind, Value *a, Value *b) {
  return single(newOp(kind, {a, b}));
}
Value *Builder::unary(OpKind kind, Value *a) {
  return single(newOp(kind, {a}));
}
Value *Builder::fma(Value *a, Value *b, Value *c) {
  return single(newOp(OpKind::Fma, {a, b, c}));
}

Value *Builder::cmp(CmpPredicate pred, Value *a, Value *b) {
  auto op = newOp(OpKind::Cmp, {a, b});
  op->predicate = pred;
  return single(std::move(op));
}

Value *Builder::select(Value *cond, Value *a, Value *b) {
  return single(newOp(OpKind::Select, {cond, a, b}));
}

Value *Builder::cast(Value *v, ScalarKind to) {
  auto op = newOp(OpKind::Cast, {v});
  op->targetType = Type::scalar(to);
  return single(std::move(op));
}

Value *Builder::bitcast(Value *v, Type elementType) {
  auto op = newOp(OpKind::Bitcast, {v});
  op->targetType = std::move(elementType);
  return single(std::move(op));
}

Value *Builder::addPtr(Value *ptr, Value *offsets) {
  return single(newOp(OpKind::AddPtr, {ptr, offsets}));
}

Value *Builder::load(Value *ptr, Value *mask, Value *other) {
  auto op = newOp(OpKind::Load, {ptr});
  if (mask) {
    op->operands.push_back(mask);
    op->hasMask = true;
  }
  if (other) {
    op->operands.push_back(other);
    op->hasOther = true;
  }
  return single(std::move(op));
}

void Builder::store(Value *ptr, Value *value, Value *mask) {
  auto op = newOp(OpKind::Store, {ptr, value});
  if (mask) {
    op->operands.push_back(mask);
    op->hasMask = true;
  }
  make(std::move(op));
}

Value *Builder::reduce(OpKind kind, Value *v, int64_t axis) {
  auto op = newOp(kind, {v});
  op->ints = {axis};
  return single(std::move(op));
}

Value *Builder::dot(Value *a, Value *b, Value *acc) {
  return single(newOp(OpKind::Dot, {a, b, acc}));
}

std::vector<Value *> Builder::call(const Function &callee, std::vector<Value *> args) {
  auto op = newOp(OpKind::Call, std::move(args));
  op->callee = callee.name;
  std::vector<Value *> results;
  if (Operation *made = make(std::move(op)))
    for (auto &r : made->results)
      results.push_back(r.get());
  return results;
}

Operation *Builder::createFor(Value *lo, Value *hi, Value *step, std::vector<Value *> inits) {
  std::vector<Value *> operands = {lo, hi, step};
  operands.insert(operands.end(), inits.begin(), inits.end());
  auto op = newOp(OpKind::For, std::move(operands));
  Region &body = op->addRegion();
  if (lo)
    body.addArg(lo->type(), freshName(), loc_);
  for (Value *init : inits)
    if (init)
      body.addArg(init->type(), freshName(), loc_);
  return make(std::move(op));
}

Operation *Builder::createIf(Value *cond, bool withElse) {
  auto op = newOp(OpKind::If, {cond});
  op->addRegion();
  if (withElse)
    op->addRegion();
  return make(std::move(op));
}

void Builder::finishIf(Operation *ifOp) {
  if (!ifOp)
    return;
  std::vector<Type> types;
  if (std::optional<TypeError> error = inferResultTypes(*ifOp, module_, types)) {
    diags_.error(ifOp->loc(), error->message);
    return;
  }
  for (Type &t : types)
    ifOp->addResult(std::move(t), freshName(), ifOp->loc());
}

void Builder::terminator(OpKind kind, std::vector<Value *> values) {
  make(newOp(kind, std::move(values)));
}

} // namespace blockc

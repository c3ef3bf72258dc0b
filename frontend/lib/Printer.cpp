//===- Printer.cpp --------------------------------------------------------===//
#include "blockc/frontend/Printer.h"

namespace blockc {

namespace {

/// `text` as a .bir string literal: quoted, with the lexer's escapes.
std::string quotedString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '"':
    case '\\':
      out += '\\';
      out += c;
      break;
    default:
      out += c;
    }
  }
  return out + "\"";
}

class Printer {
public:
  std::string out;

  void module(const Module &m);
  void operation(const Operation &op, unsigned indent);

private:
  void region(const Region &r, unsigned indent);
  void value(const Value *v) { out += "%" + (v ? v->name() : std::string("<null>")); }
  void values(const std::vector<Value *> &vs, size_t begin = 0, size_t end = SIZE_MAX);
  void ints(const std::vector<int64_t> &xs) { out += formatShape(xs); }
  /// ` iter(%a = %a0, ...)`: body argument firstArg + i starts as operand firstInit + i.
  void iterArgs(const Operation &op, size_t firstInit, const Region &body, size_t firstArg) {
    if (op.operands.size() <= firstInit)
      return;
    out += " iter(";
    for (size_t i = firstInit; i < op.operands.size(); ++i) {
      out += i > firstInit ? ", " : "";
      value(body.args.at(firstArg + i - firstInit).get());
      out += " = ";
      value(op.operands[i]);
    }
    out += ")";
  }
  void pad(unsigned indent) { out.append(indent * 2, ' '); }
};

void Printer::values(const std::vector<Value *> &vs, size_t begin, size_t end) {
  for (size_t i = begin; i < vs.size() && i < end; ++i) {
    if (i != begin)
      out += ", ";
    value(vs[i]);
  }
}

void Printer::module(const Module &m) {
  for (const Constexpr &c : m.constexprs)
    out += "constexpr " + c.name + ": " + std::string(scalarKindName(c.kind)) + " = " +
           formatConstant(c.value, c.kind) + "\n";
  for (const auto &fn : m.functions) {
    if (!out.empty())
      out += "\n";
    out += (fn->isKernel ? "kernel @" : "func @") + fn->name + "(";
    for (size_t i = 0; i < fn->body.args.size(); ++i) {
      const Value &arg = *fn->body.args[i];
      out += (i ? ", %" : "%") + arg.name() + ": " + arg.type().str();
    }
    out += ")";
    if (fn->resultTypes.size() == 1) {
      out += " -> " + fn->resultTypes[0].str();
    } else if (!fn->resultTypes.empty()) {
      out += " -> (";
      for (size_t i = 0; i < fn->resultTypes.size(); ++i)
        out += (i ? ", " : "") + fn->resultTypes[i].str();
      out += ")";
    }
    out += " ";
    region(fn->body, 0);
    out += "\n";
  }
}

void Printer::region(const Region &r, unsigned indent) {
  out += "{\n";
  for (const auto &op : r.ops)
    operation(*op, indent + 1);
  pad(indent);
  out += "}";
}

void Printer::operation(const Operation &op, unsigned indent) {
  pad(indent);
  if (!op.results.empty()) {
    for (size_t i = 0; i < op.results.size(); ++i)
      out += (i ? ", %" : "%") + op.results[i]->name();
    out += " = ";
  }
  out += op.name();
  bool annotate = op.results.size() == 1;
  switch (op.opClass()) {
  case OpClass::GridQuery:
    out += " " + std::to_string(op.ints.at(0));
    break;
  case OpClass::Constant:
    out += " " + formatConstant(op.constant, op.targetType.kind()) + " : " + op.targetType.str();
    annotate = false;
    break;
  case OpClass::Arange:
    out += " " + std::to_string(op.ints.at(0)) + ", " + std::to_string(op.ints.at(1));
    break;
  case OpClass::ShapeTo:
    out += " ";
    value(op.operands.at(0));
    out += " to ";
    ints(op.shape);
    break;
  case OpClass::AxisOp:
  case OpClass::Reduce:
    out += " ";
    value(op.operands.at(0));
    out += ", axis=" + std::to_string(op.ints.at(0));
    break;
  case OpClass::Trans:
    out += " ";
    value(op.operands.at(0));
    if (!op.ints.empty()) {
      out += ", perm=";
      ints(op.ints);
    }
    break;
  case OpClass::Cmp:
    out += " " + std::string(cmpPredicateName(op.predicate)) + " ";
    values(op.operands);
    break;
  case OpClass::CastTo:
    out += " ";
    value(op.operands.at(0));
    out += " to " + op.targetType.str();
    break;
  case OpClass::Load:
    out += " ";
    value(op.operands.at(0));
    if (op.hasMask) {
      out += ", mask=";
      value(op.mask());
    }
    if (op.hasOther) {
      out += ", other=";
      value(op.other());
    }
    if (op.isVolatile)
      out += ", volatile";
    break;
  case OpClass::Store:
    out += " ";
    values(op.operands, 0, 2);
    if (op.hasMask) {
      out += ", mask=";
      value(op.mask());
    }
    break;
  case OpClass::AtomicRMW:
  case OpClass::AtomicCas:
    out += " ";
    values(op.operands, 0, op.opClass() == OpClass::AtomicCas ? 3 : 2);
    if (op.hasMask) {
      out += ", mask=";
      value(op.mask());
    }
    if (op.order != MemoryOrder::AcqRel)
      out += ", sem=" + std::string(memoryOrderName(op.order));
    break;
  case OpClass::Call:
    out += " @" + op.callee + "(";
    values(op.operands);
    out += ")";
    annotate = false;
    break;
  case OpClass::For: {
    const Region &body = *op.regions.at(0);
    out += " ";
    value(body.args.at(0).get());
    out += " = ";
    value(op.operands.at(0));
    out += " to ";
    value(op.operands.at(1));
    out += " step ";
    value(op.operands.at(2));
    iterArgs(op, 3, body, 1);
    out += " ";
    region(body, indent);
    annotate = false;
    break;
  }
  case OpClass::Combining: {
    const Region &body = *op.regions.at(0);
    out += " ";
    values(op.operands);
    out += ", axis=" + std::to_string(op.ints.at(0));
    if (op.kind() == OpKind::Scan && op.ints.at(1))
      out += ", reverse";
    out += " combine(";
    for (size_t i = 0; i < body.args.size(); ++i) {
      out += i ? ", " : "";
      value(body.args[i].get());
    }
    out += ") ";
    region(body, indent);
    annotate = false;
    break;
  }
  case OpClass::While: {
    const Region &body = *op.regions.at(0);
    out += " ";
    value(op.operands.at(0));
    iterArgs(op, 1, body, 0);
    out += " ";
    region(body, indent);
    annotate = false;
    break;
  }
  case OpClass::If:
    out += " ";
    value(op.operands.at(0));
    out += " ";
    region(*op.regions.at(0), indent);
    if (op.regions.size() > 1) {
      out += " else ";
      region(*op.regions[1], indent);
    }
    annotate = false;
    break;
  case OpClass::Print:
    out += " " + quotedString(op.text);
    for (const Value *v : op.operands) {
      out += ", ";
      value(v);
    }
    if (op.hex)
      out += ", hex";
    break;
  default:
    if (!op.operands.empty()) {
      out += " ";
      values(op.operands);
    }
    break;
  }
  if (annotate)
    out += " : " + op.result()->type().str();
  out += "\n";
}

} // namespace

std::string printModule(const Module &module) {
  Printer p;
  p.module(module);
  return p.out;
}

std::string printOperation(const Operation &op, unsigned indent) {
  Printer p;
  p.operation(op, indent);
  return p.out;
}

} // namespace blockc

//===- ParseOps.cpp - The bodies of .bir ops, one class at a time ---------===//
//
// What follows an op's name, by its class (Ops.def): operands, attributes,
// and the regions of `for`, `while`, `if`, `reduce` and `scan`.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

namespace blockc::parser {

bool Parser::parseOpBody(Operation &op) {
  switch (op.opClass()) {
  case OpClass::GridQuery: {
    int64_t axis;
    if (!parseIntExpr(axis))
      return false;
    op.ints = {axis};
    return true;
  }
  case OpClass::Constant: {
    if (!parseConstantValue(op.constant))
      return false;
    if (!expect(TokenKind::Colon, "before the constant's type"))
      return false;
    if (!parseType(op.targetType))
      return false;
    if (op.targetType.isFloat() && !op.constant.isFloat)
      op.constant = ConstantValue::ofFloat(double(op.constant.intValue));
    return true;
  }
  case OpClass::Arange: {
    int64_t start, end;
    if (!parseIntExpr(start) || !expect(TokenKind::Comma, "between arange bounds") ||
        !parseIntExpr(end))
      return false;
    op.ints = {start, end};
    return true;
  }
  case OpClass::ShapeTo:
    return parseOperand(op) && expectKeyword("to", "before the target shape") &&
           parseShape(op.shape);
  case OpClass::AxisOp:
  case OpClass::Reduce: {
    int64_t axis;
    if (!parseOperand(op) || !expect(TokenKind::Comma, "before 'axis='") ||
        !parseAttrInt("axis", axis))
      return false;
    op.ints = {axis};
    return true;
  }
  case OpClass::Trans:
    if (!parseOperand(op))
      return false;
    if (consumeIf(TokenKind::Comma))
      return expectKeyword("perm", "after ','") && expect(TokenKind::Equal, "after 'perm'") &&
             parseShape(op.ints);
    return true;
  case OpClass::Arith:
  case OpClass::FloatBinary:
  case OpClass::Bitwise:
  case OpClass::AddPtr:
    return parseOperands(op, 2);
  case OpClass::ArithUnary:
  case OpClass::BitwiseUnary:
  case OpClass::FloatUnary:
    return parseOperands(op, 1);
  case OpClass::Fma:
  case OpClass::Select:
  case OpClass::Dot:
    return parseOperands(op, 3);
  case OpClass::Cmp: {
    if (!at(TokenKind::Identifier) || !parseCmpPredicate(tok_.text))
      return errorHere(
          "expected a comparison predicate (eq, ne, lt, le, gt, ge, ult, ule, ugt, uge), got " +
          describeToken());
    op.predicate = *parseCmpPredicate(tok_.text);
    advance();
    return parseOperands(op, 2);
  }
  case OpClass::CastTo:
    return parseOperand(op) && expectKeyword("to", "before the target type") &&
           parseType(op.targetType);
  case OpClass::Load:
    if (!parseOperand(op))
      return false;
    while (consumeIf(TokenKind::Comma)) {
      if (atKeyword("volatile")) {
        advance();
        op.isVolatile = true;
        return true; // always last
      }
      if (atKeyword("mask") && !op.hasMask) {
        if (!parseKeywordOperand(op, "mask"))
          return false;
        op.hasMask = true;
        continue;
      }
      if (!atKeyword("other") || op.hasOther)
        return errorHere(std::string("expected ") +
                         (op.hasOther  ? "'volatile'"
                          : op.hasMask ? "'other=' or 'volatile'"
                                       : "'mask=' or 'volatile'") +
                         " after ',', got " + describeToken());
      if (!op.hasMask)
        return errorHere("'other' needs a mask: write 'mask=%m, other=%v'");
      if (!parseKeywordOperand(op, "other"))
        return false;
      op.hasOther = true;
    }
    return true;
  case OpClass::Store:
    if (!parseOperands(op, 2))
      return false;
    if (consumeIf(TokenKind::Comma)) {
      if (!parseKeywordOperand(op, "mask"))
        return false;
      op.hasMask = true;
    }
    return true;
  case OpClass::AtomicRMW:
  case OpClass::AtomicCas:
    return parseAtomic(op);
  case OpClass::Combining:
    return parseCombining(op);
  case OpClass::Assert:
    return parseOperands(op, 1);
  case OpClass::Print:
    if (!at(TokenKind::String))
      return errorHere("expected the text to print, a string like \"x: \", got " + describeToken());
    op.text = tok_.value;
    advance();
    while (consumeIf(TokenKind::Comma)) {
      if (atKeyword("hex")) {
        advance();
        op.hex = true;
        return true; // always last
      }
      if (!parseOperand(op))
        return false;
    }
    return true;
  case OpClass::Call:
    if (!at(TokenKind::FuncName))
      return errorHere("expected a callee like '@f', got " + describeToken());
    op.callee = std::string(tok_.text);
    advance();
    if (!expect(TokenKind::LParen, "to open the call's arguments"))
      return false;
    if (!at(TokenKind::RParen)) {
      do {
        if (!parseOperand(op))
          return false;
      } while (consumeIf(TokenKind::Comma));
    }
    return expect(TokenKind::RParen, "to close the call's arguments");
  case OpClass::For:
    return parseFor(op);
  case OpClass::While:
    return parseWhile(op);
  case OpClass::If:
    return parseIf(op);
  case OpClass::Terminator:
    if (at(TokenKind::ValueName)) {
      do {
        if (!parseOperand(op))
          return false;
      } while (consumeIf(TokenKind::Comma));
    }
    return true;
  }
  return errorHere("unhandled op");
}

/// for %iv = %lo to %hi step %st [iter(%a = %a0, ...)] { ... }
bool Parser::parseFor(Operation &op) {
  std::vector<std::pair<std::string, SourceLoc>> argNames;
  if (!at(TokenKind::ValueName))
    return errorHere("expected the induction variable like '%i', got " + describeToken());
  argNames.emplace_back(std::string(tok_.text), tok_.loc);
  advance();
  if (!expect(TokenKind::Equal, "after the induction variable") || !parseOperand(op) ||
      !expectKeyword("to", "after the lower bound") || !parseOperand(op) ||
      !expectKeyword("step", "after the upper bound") || !parseOperand(op))
    return false;
  if (!parseIterArgs(op, argNames))
    return false;
  Region &body = op.addRegion();
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (i == 0 || i >= 3)
      body.addArg(op.operands[i]->type(), "", argNames[i == 0 ? 0 : i - 2].second);
  // Bounds must be integers before the body can use the induction variable.
  const Type &lo = op.operands[0]->type();
  if (!lo.isInteger() || !lo.isScalar())
    return error(op.operandLocs[0], "loop bounds are integer scalars, got '" + lo.str() + "'");
  return parseRegion(body, argNames);
}

/// atomic_OP %p, %v [, mask=%m] [, sem=ORDER]
/// atomic_cas %p, %expected, %desired [, sem=ORDER]
bool Parser::parseAtomic(Operation &op) {
  bool isCas = op.opClass() == OpClass::AtomicCas;
  if (!parseOperands(op, isCas ? 3 : 2))
    return false;
  while (consumeIf(TokenKind::Comma)) {
    if (!isCas && !op.hasMask && atKeyword("mask")) {
      if (!parseKeywordOperand(op, "mask"))
        return false;
      op.hasMask = true;
      continue;
    }
    if (!atKeyword("sem"))
      return errorHere(std::string("expected ") + (isCas || op.hasMask ? "" : "'mask=' or ") +
                       "'sem=' after ',', got " + describeToken());
    advance();
    if (!expect(TokenKind::Equal, "after 'sem'"))
      return false;
    std::optional<MemoryOrder> order;
    if (at(TokenKind::Identifier))
      order = parseMemoryOrder(tok_.text);
    if (!order)
      return errorHere("expected a memory order (relaxed, acquire, release, acq_rel), got " +
                       describeToken());
    op.order = *order;
    advance();
    return true;
  }
  return true;
}

/// reduce %a [, %b ...], axis=A combine(%l0, [%l1 ...,] %r0 [, %r1 ...]) { ... }
/// scan %a [, %b ...], axis=A [, reverse] combine(...) { ... }
bool Parser::parseCombining(Operation &op) {
  do {
    if (atKeyword("axis"))
      break;
    if (!parseOperand(op))
      return false;
  } while (consumeIf(TokenKind::Comma));
  int64_t axis;
  if (!parseAttrInt("axis", axis))
    return false;
  op.ints = {axis, 0};
  if (op.kind() == OpKind::Scan && consumeIf(TokenKind::Comma)) {
    if (!expectKeyword("reverse", "after ','"))
      return false;
    op.ints[1] = 1;
  }
  if (op.kind() == OpKind::ReduceWith)
    op.ints.pop_back();
  if (!expectKeyword("combine", "before the combine function's arguments") ||
      !expect(TokenKind::LParen, "after 'combine'"))
    return false;
  std::vector<std::pair<std::string, SourceLoc>> argNames;
  do {
    if (!at(TokenKind::ValueName))
      return errorHere("expected a combine argument like '%a', got " + describeToken());
    argNames.emplace_back(std::string(tok_.text), tok_.loc);
    advance();
  } while (consumeIf(TokenKind::Comma));
  if (!expect(TokenKind::RParen, "to close 'combine('"))
    return false;
  if (argNames.size() != 2 * op.operands.size())
    return error(argNames.front().second,
                 "'combine' takes two arguments per operand (the left values, then the right "
                 "ones): expected " +
                     std::to_string(2 * op.operands.size()) + ", got " +
                     std::to_string(argNames.size()));
  Region &body = op.addRegion();
  for (size_t i = 0; i < argNames.size(); ++i)
    body.addArg(op.operands[i % op.operands.size()]->type().elementType(), "", argNames[i].second);
  return parseRegion(body, argNames);
}

/// [iter(%a = %a0, ...)]: the loop-carried values, their names appended to
/// `argNames` and their initial values to the operands.
bool Parser::parseIterArgs(Operation &op,
                           std::vector<std::pair<std::string, SourceLoc>> &argNames) {
  if (!consumeKeyword("iter"))
    return true;
  if (!expect(TokenKind::LParen, "after 'iter'"))
    return false;
  do {
    if (!at(TokenKind::ValueName))
      return errorHere("expected a loop-carried value like '%acc', got " + describeToken());
    argNames.emplace_back(std::string(tok_.text), tok_.loc);
    advance();
    if (!expect(TokenKind::Equal, "after the loop-carried value") || !parseOperand(op))
      return false;
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RParen, "to close 'iter('");
}

/// while %c [iter(%a = %a0, ...)] { ... yield %c_next, %a_next, ... }
bool Parser::parseWhile(Operation &op) {
  if (!parseOperand(op))
    return false;
  const Type &cond = op.operands[0]->type();
  if (!cond.isBool() || !cond.isScalar())
    return error(op.operandLocs[0], "a 'while' condition is a scalar i1, got '" + cond.str() + "'");
  std::vector<std::pair<std::string, SourceLoc>> argNames;
  if (!parseIterArgs(op, argNames))
    return false;
  Region &body = op.addRegion();
  for (size_t i = 1; i < op.operands.size(); ++i)
    body.addArg(op.operands[i]->type(), "", argNames[i - 1].second);
  return parseRegion(body, argNames);
}

/// if %c { ... } [else { ... }]
bool Parser::parseIf(Operation &op) {
  if (!parseOperand(op))
    return false;
  if (!parseRegion(op.addRegion(), {}))
    return false;
  if (consumeKeyword("else"))
    return parseRegion(op.addRegion(), {});
  return true;
}

} // namespace blockc::parser

//===- Parser.cpp - Recursive-descent parser for .bir ---------------------===//
//
// One token of lookahead. The parser types every op as it is read (through the
// Builder, so the text and C++ paths share TypeRules) and stops at the first
// error. Constexpr names are replaced by their bound values as they are read.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"
#include "blockc/frontend/Verifier.h"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace blockc {
namespace parser {

void Parser::advance() {
  tok_ = lexer_.next();
  if (tok_.kind == TokenKind::Error)
    error(tok_.loc, lexer_.errorMessage());
}

bool Parser::consumeIf(TokenKind kind) {
  if (!at(kind))
    return false;
  advance();
  return true;
}

bool Parser::consumeKeyword(std::string_view word) {
  if (!atKeyword(word))
    return false;
  advance();
  return true;
}

std::string Parser::describeToken() const {
  switch (tok_.kind) {
  case TokenKind::Identifier:
  case TokenKind::Integer:
  case TokenKind::Float:
    return "'" + std::string(tok_.text) + "'";
  case TokenKind::ValueName:
    return "'%" + std::string(tok_.text) + "'";
  case TokenKind::FuncName:
    return "'@" + std::string(tok_.text) + "'";
  default:
    return std::string(tokenKindDescription(tok_.kind));
  }
}

bool Parser::expect(TokenKind kind, std::string_view context) {
  if (consumeIf(kind))
    return true;
  return errorHere("expected " + std::string(tokenKindDescription(kind)) + " " +
                   std::string(context) + ", got " + describeToken());
}

bool Parser::expectKeyword(std::string_view word, std::string_view context) {
  if (consumeKeyword(word))
    return true;
  return errorHere("expected '" + std::string(word) + "' " + std::string(context) + ", got " +
                   describeToken());
}

bool Parser::error(SourceLoc loc, std::string message) {
  diags_.error(loc, std::move(message));
  return false;
}

// ---------------------------------------------------------------------------
// Module level

std::unique_ptr<Module> Parser::run() {
  while (!diags_.hasError() && !at(TokenKind::Eof)) {
    bool ok;
    if (consumeKeyword("constexpr"))
      ok = parseConstexpr();
    else if (consumeKeyword("kernel"))
      ok = parseFunction(true);
    else if (consumeKeyword("func"))
      ok = parseFunction(false);
    else
      ok = errorHere("expected 'constexpr', 'kernel' or 'func' at top level, got " +
                     describeToken());
    if (!ok)
      break;
  }
  if (diags_.hasError())
    return nullptr;
  if (!checkBindingsDeclared(*module_, bindings_, diags_))
    return nullptr;
  if (!verifyModule(*module_, diags_))
    return nullptr;
  return std::move(module_);
}

/// constexpr NAME: TYPE = VALUE
bool Parser::parseConstexpr() {
  Constexpr decl;
  decl.loc = tok_.loc;
  if (!at(TokenKind::Identifier))
    return errorHere("expected a constexpr name, got " + describeToken());
  decl.name = std::string(tok_.text);
  if (module_->lookupConstexpr(decl.name)) {
    const Constexpr *first = module_->lookupConstexpr(decl.name);
    return errorHere("redefinition of constexpr '" + decl.name + "' (first defined at " +
                     std::to_string(first->loc.line) + ":" + std::to_string(first->loc.col) + ")");
  }
  advance();
  if (!expect(TokenKind::Colon, "after the constexpr name"))
    return false;
  SourceLoc typeLoc = tok_.loc;
  Type type;
  if (!parseType(type))
    return false;
  if (!type.isScalar() || type.isPointer())
    return error(typeLoc, "a constexpr has a scalar number type, got '" + type.str() + "'");
  decl.kind = type.kind();
  if (!expect(TokenKind::Equal, "before the constexpr's default value"))
    return false;
  SourceLoc valueLoc = tok_.loc;
  if (!parseConstantValue(decl.value))
    return false;
  if (isFloatKind(decl.kind) && !decl.value.isFloat)
    decl.value = ConstantValue::ofFloat(double(decl.value.intValue));
  if (auto msg = checkConstantFits(decl.value, decl.kind))
    return error(valueLoc, *msg);
  decl.value = canonicalConstant(decl.value, decl.kind);
  if (!specializeConstexpr(decl, bindings_, diags_))
    return false;
  module_->constexprs.push_back(std::move(decl));
  return true;
}

/// (kernel|func) @NAME ( %p: TYPE, ... ) [-> TYPE | -> (TYPE, ...)] { BODY }
bool Parser::parseFunction(bool isKernel) {
  SourceLoc loc = tok_.loc;
  if (!at(TokenKind::FuncName))
    return errorHere("expected a function name like '@my_kernel', got " + describeToken());
  std::string name(tok_.text);
  if (module_->lookupFunction(name)) {
    SourceLoc first = module_->lookupFunction(name)->loc;
    return errorHere("redefinition of function @" + name + " (first defined at " +
                     std::to_string(first.line) + ":" + std::to_string(first.col) + ")");
  }
  advance();
  if (!expect(TokenKind::LParen, "to open the parameter list"))
    return false;
  std::vector<Param> params;
  std::vector<std::pair<std::string, SourceLoc>> paramNames;
  if (!at(TokenKind::RParen)) {
    do {
      if (!at(TokenKind::ValueName))
        return errorHere("expected a parameter name like '%x', got " + describeToken());
      paramNames.emplace_back(std::string(tok_.text), tok_.loc);
      advance();
      if (!expect(TokenKind::Colon, "after the parameter name"))
        return false;
      Type type;
      if (!parseType(type))
        return false;
      params.push_back({paramNames.back().first, type});
    } while (consumeIf(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "to close the parameter list"))
    return false;
  std::vector<Type> resultTypes;
  if (consumeIf(TokenKind::Arrow)) {
    if (isKernel)
      return error(loc,
                   "kernel @" + name + " cannot return values; write results through pointers");
    bool parenthesized = consumeIf(TokenKind::LParen);
    do {
      Type type;
      if (!parseType(type))
        return false;
      resultTypes.push_back(type);
    } while (parenthesized && consumeIf(TokenKind::Comma));
    if (parenthesized && !expect(TokenKind::RParen, "to close the result types"))
      return false;
  }
  builder_.setLoc(loc);
  Function &fn = isKernel ? builder_.createKernel(name, params)
                          : builder_.createFunction(name, params, resultTypes);
  // The Builder names parameters; reset them so parseRegion can define them.
  fn.body.args.clear();
  for (size_t i = 0; i < params.size(); ++i)
    fn.body.addArg(params[i].type, params[i].name, paramNames[i].second);
  definedInFunction_.clear();
  scopes_.clear();
  scopes_.emplace_back();
  for (auto &arg : fn.body.args)
    if (!defineValue(arg.get(), arg->name(), arg->loc()))
      return false;
  return parseRegion(fn.body, {});
}

// ---------------------------------------------------------------------------
// Types and integer expressions

/// i32 | ptr<f32> | f32[4, BLOCK] | ptr<f16>[BLOCK]
bool Parser::parseType(Type &type) {
  bool pointer = false;
  if (consumeKeyword("ptr")) {
    pointer = true;
    if (!expect(TokenKind::Less, "after 'ptr'"))
      return false;
  }
  if (!at(TokenKind::Identifier))
    return errorHere("expected a type like 'f32', got " + describeToken());
  std::optional<ScalarKind> kind = parseScalarKind(tok_.text);
  if (!kind)
    return errorHere("unknown type '" + std::string(tok_.text) +
                     "'; expected i1, i8, i16, i32, i64, f16, bf16, f32, f64 or ptr<...>");
  advance();
  if (pointer && !expect(TokenKind::Greater, "to close 'ptr<'"))
    return false;
  Shape shape;
  if (at(TokenKind::LBracket)) {
    SourceLoc shapeLoc = tok_.loc;
    if (!parseShape(shape))
      return false;
    if (auto msg = checkBlockShape(shape))
      return error(shapeLoc, *msg);
  }
  type = pointer ? Type::pointerBlock(*kind, shape) : Type::block(*kind, shape);
  return true;
}

/// [EXPR, EXPR, ...]
bool Parser::parseShape(Shape &shape) {
  if (!expect(TokenKind::LBracket, "to open a shape"))
    return false;
  shape.clear();
  do {
    if (shape.size() == kMaxBlockRank + 1)
      return errorHere("too many dimensions; a block has rank 1 to " +
                       std::to_string(kMaxBlockRank));
    int64_t dim;
    if (!parseIntExpr(dim))
      return false;
    shape.push_back(dim);
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RBracket, "to close the shape");
}

bool Parser::parseIntExpr(int64_t &value) {
  return parseAdditive(value);
}

bool Parser::parseAdditive(int64_t &value) {
  if (!parseMultiplicative(value))
    return false;
  while (at(TokenKind::Plus) || at(TokenKind::Minus)) {
    bool plus = at(TokenKind::Plus);
    SourceLoc loc = tok_.loc;
    advance();
    int64_t rhs;
    if (!parseMultiplicative(rhs))
      return false;
    if (plus ? __builtin_add_overflow(value, rhs, &value)
             : __builtin_sub_overflow(value, rhs, &value))
      return error(loc, "integer overflow in constant expression");
  }
  return true;
}

bool Parser::parseMultiplicative(int64_t &value) {
  if (!parseUnary(value))
    return false;
  while (at(TokenKind::Star) || at(TokenKind::Slash)) {
    bool times = at(TokenKind::Star);
    SourceLoc loc = tok_.loc;
    advance();
    int64_t rhs;
    if (!parseUnary(rhs))
      return false;
    if (times) {
      if (__builtin_mul_overflow(value, rhs, &value))
        return error(loc, "integer overflow in constant expression");
    } else {
      if (rhs == 0)
        return error(loc, "division by zero in constant expression");
      if (value == INT64_MIN && rhs == -1)
        return error(loc, "integer overflow in constant expression");
      value /= rhs;
    }
  }
  return true;
}

bool Parser::parseUnary(int64_t &value) {
  if (!at(TokenKind::Minus))
    return parsePrimary(value);
  SourceLoc loc = tok_.loc;
  advance();
  if (!parseUnary(value))
    return false;
  if (value == INT64_MIN)
    return error(loc, "integer overflow in constant expression");
  value = -value;
  return true;
}

bool Parser::parsePrimary(int64_t &value) {
  if (at(TokenKind::Integer)) {
    value = int64_t(tok_.intValue);
    advance();
    return true;
  }
  if (at(TokenKind::LParen)) {
    if (++exprNesting_ > kMaxNesting)
      return errorHere("expression nested deeper than " + std::to_string(kMaxNesting));
    advance();
    bool ok = parseIntExpr(value) && expect(TokenKind::RParen, "to close the expression");
    --exprNesting_;
    return ok;
  }
  if (at(TokenKind::Identifier)) {
    if (tok_.text == "true" || tok_.text == "false") {
      value = tok_.text == "true";
      advance();
      return true;
    }
    const Constexpr *c = module_->lookupConstexpr(tok_.text);
    if (!c)
      return errorHere("unknown constexpr '" + std::string(tok_.text) +
                       "'; declare it with 'constexpr " + std::string(tok_.text) + ": i32 = ...'");
    if (c->value.isFloat)
      return errorHere("constexpr '" + c->name + "' is a float; expected an integer");
    value = c->value.intValue;
    advance();
    return true;
  }
  return errorHere("expected an integer or a constexpr name, got " + describeToken());
}

/// An integer expression, or a float: [-] (FLOAT | inf | nan | FLOAT_CONSTEXPR).
bool Parser::parseConstantValue(ConstantValue &value) {
  auto floatAtom = [&](const Token &t) -> std::optional<double> {
    if (t.kind == TokenKind::Float)
      return t.floatValue;
    if (t.kind != TokenKind::Identifier)
      return std::nullopt;
    if (t.text == "inf")
      return std::numeric_limits<double>::infinity();
    if (t.text == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    const Constexpr *c = module_->lookupConstexpr(t.text);
    if (c && c->value.isFloat)
      return c->value.floatValue;
    return std::nullopt;
  };
  if (std::optional<double> v = floatAtom(tok_)) {
    value = ConstantValue::ofFloat(*v);
    advance();
    return true;
  }
  if (at(TokenKind::Minus)) {
    // Look one token past the sign without consuming it from the main stream.
    Lexer probe = lexer_;
    Token after = probe.next();
    if (std::optional<double> v = floatAtom(after)) {
      advance();
      advance();
      value = ConstantValue::ofFloat(-*v);
      return true;
    }
  }
  int64_t i;
  if (!parseIntExpr(i))
    return false;
  value = ConstantValue::ofInt(i);
  return true;
}

// ---------------------------------------------------------------------------
// Bodies

/// { STATEMENT* }  — `argNames` name the region's arguments.
bool Parser::parseRegion(Region &region, std::vector<std::pair<std::string, SourceLoc>> argNames) {
  if (++nesting_ > kMaxNesting)
    return errorHere("regions nested deeper than " + std::to_string(kMaxNesting));
  if (!expect(TokenKind::LBrace, "to open a body"))
    return false;
  scopes_.emplace_back();
  for (size_t i = 0; i < argNames.size() && i < region.args.size(); ++i) {
    region.args[i]->setName(argNames[i].first);
    if (!defineValue(region.args[i].get(), argNames[i].first, argNames[i].second))
      return false;
  }
  Region *outer = builder_.insertionRegion();
  builder_.setInsertionPoint(region);
  while (!at(TokenKind::RBrace)) {
    if (at(TokenKind::Eof))
      return errorHere("expected '}' to close the body, got end of file");
    if (!parseStatement())
      return false;
  }
  advance();
  if (outer)
    builder_.setInsertionPoint(*outer);
  scopes_.pop_back();
  --nesting_;
  return true;
}

/// [%a, %b =] OP ...
bool Parser::parseStatement() {
  SourceLoc stmtLoc = tok_.loc;
  std::vector<std::pair<std::string, SourceLoc>> resultNames;
  if (at(TokenKind::ValueName)) {
    do {
      if (!at(TokenKind::ValueName))
        return errorHere("expected a result name like '%x', got " + describeToken());
      resultNames.emplace_back(std::string(tok_.text), tok_.loc);
      advance();
    } while (consumeIf(TokenKind::Comma));
    if (!expect(TokenKind::Equal, "after the result names"))
      return false;
  }
  return parseOperation(resultNames, stmtLoc);
}

bool Parser::parseOperation(const std::vector<std::pair<std::string, SourceLoc>> &resultNames,
                            SourceLoc stmtLoc) {
  if (!at(TokenKind::Identifier))
    return errorHere("expected an op name, got " + describeToken());
  std::optional<OpKind> kind = parseOpName(tok_.text);
  if (!kind)
    return errorHere("unknown op '" + std::string(tok_.text) + "'");
  SourceLoc opLoc = tok_.loc;
  advance();
  auto op = std::make_unique<Operation>(*kind, opLoc);
  Operation &ref = *op;
  if (!parseOpBody(ref))
    return false;

  // An optional `: TYPE` on single-result ops, checked after typing.
  std::optional<std::pair<Type, SourceLoc>> annotation;
  if (ref.opClass() != OpClass::Constant && consumeIf(TokenKind::Colon)) {
    SourceLoc loc = tok_.loc;
    Type t;
    if (!parseType(t))
      return false;
    annotation = {t, loc};
  }

  builder_.setLoc(opLoc);
  // A rejected op is destroyed by insert(); keep what the diagnostic needs.
  std::vector<SourceLoc> operandLocs = ref.operandLocs;
  auto inserted = builder_.insert(std::move(op));
  if (auto *e = std::get_if<TypeError>(&inserted)) {
    SourceLoc loc = opLoc;
    if (e->operand >= 0 && size_t(e->operand) < operandLocs.size())
      loc = operandLocs[e->operand];
    return error(loc, e->message);
  }
  Operation *made = std::get<Operation *>(inserted);
  if (made->results.size() != resultNames.size()) {
    std::string count = std::to_string(made->results.size());
    return error(resultNames.empty() ? opLoc : stmtLoc,
                 "'" + std::string(made->name()) + "' produces " + count +
                     (made->results.size() == 1 ? " result" : " results") + ", but " +
                     std::to_string(resultNames.size()) + " " +
                     (resultNames.size() == 1 ? "name is" : "names are") + " given");
  }
  if (annotation) {
    if (made->results.size() != 1)
      return error(annotation->second, "only single-result ops take a ': TYPE' annotation");
    if (made->result()->type() != annotation->first)
      return error(annotation->second, "annotated type '" + annotation->first.str() +
                                           "' differs from the inferred type '" +
                                           made->result()->type().str() + "'");
  }
  for (size_t i = 0; i < resultNames.size(); ++i) {
    made->results[i]->setName(resultNames[i].first);
    if (!defineValue(made->results[i].get(), resultNames[i].first, resultNames[i].second))
      return false;
  }
  return true;
}

bool Parser::defineValue(Value *value, const std::string &name, SourceLoc loc) {
  auto [it, inserted] = definedInFunction_.emplace(name, loc);
  if (!inserted)
    return error(loc, "redefinition of %" + name + " (first defined at " +
                          std::to_string(it->second.line) + ":" + std::to_string(it->second.col) +
                          ")");
  scopes_.back()[name] = value;
  return true;
}

Value *Parser::lookupValue(std::string_view name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(std::string(name));
    if (it != scope->end())
      return it->second;
  }
  return nullptr;
}

bool Parser::parseOperand(Operation &op) {
  if (!at(TokenKind::ValueName))
    return errorHere("expected an operand like '%x' for '" + std::string(op.name()) + "', got " +
                     describeToken());
  Value *v = lookupValue(tok_.text);
  if (!v) {
    auto earlier = definedInFunction_.find(std::string(tok_.text));
    if (earlier != definedInFunction_.end())
      return errorHere("%" + std::string(tok_.text) + " is not visible here: it is defined at " +
                       std::to_string(earlier->second.line) + ":" +
                       std::to_string(earlier->second.col) + " inside a nested body");
    return errorHere("use of undefined value %" + std::string(tok_.text));
  }
  op.operands.push_back(v);
  op.operandLocs.push_back(tok_.loc);
  advance();
  return true;
}

bool Parser::parseOperands(Operation &op, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (i && !expect(TokenKind::Comma, "between operands"))
      return false;
    if (!parseOperand(op))
      return false;
  }
  return true;
}

/// , KEYWORD = %v
bool Parser::parseKeywordOperand(Operation &op, std::string_view keyword) {
  return expectKeyword(keyword, "") &&
         expect(TokenKind::Equal, "after '" + std::string(keyword) + "'") && parseOperand(op);
}

/// KEYWORD = EXPR
bool Parser::parseAttrInt(std::string_view keyword, int64_t &value) {
  return expectKeyword(keyword, "for '" + std::string(keyword) + "=...'") &&
         expect(TokenKind::Equal, "after '" + std::string(keyword) + "'") && parseIntExpr(value);
}

} // namespace parser

std::unique_ptr<Module> parseModule(const SourceFile &file, const ConstexprBindings &bindings,
                                    DiagnosticEngine &diags) {
  return parser::Parser(file, bindings, diags).run();
}

} // namespace blockc

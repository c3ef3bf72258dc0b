//===- ParserImpl.h - The .bir parser's class, shared by its files -*- C++ -*-===//
//
// Parser.cpp reads modules, functions, types, integer expressions and
// regions; ParseOps.cpp reads the body of each op class. Nothing outside
// frontend/lib includes this: the interface is parseModule (Parser.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Lexer.h"
#include "blockc/frontend/Builder.h"
#include "blockc/frontend/Parser.h"

#include <unordered_map>

namespace blockc::parser {

/// Nesting limit for regions and parenthesized expressions: deep enough for
/// any real kernel, shallow enough that recursion cannot exhaust the stack.
constexpr unsigned kMaxNesting = 64;

class Parser {
public:
  Parser(const SourceFile &file, const ConstexprBindings &bindings, DiagnosticEngine &diags)
      : lexer_(file.text), diags_(diags), module_(std::make_unique<Module>()), builder_(*module_),
        bindings_(bindings) {
    advance();
  }

  std::unique_ptr<Module> run();

private:
  // Token handling.
  void advance();
  bool at(TokenKind kind) const { return tok_.kind == kind; }
  bool atKeyword(std::string_view word) const {
    return tok_.kind == TokenKind::Identifier && tok_.text == word;
  }
  bool consumeIf(TokenKind kind);
  bool consumeKeyword(std::string_view word);
  bool expect(TokenKind kind, std::string_view context);
  bool expectKeyword(std::string_view word, std::string_view context);
  std::string describeToken() const;
  bool error(SourceLoc loc, std::string message);
  bool errorHere(std::string message) { return error(tok_.loc, std::move(message)); }

  // Module level.
  bool parseConstexpr();
  bool parseFunction(bool isKernel);

  // Types, shapes, integer expressions, constants.
  bool parseType(Type &type);
  bool parseShape(Shape &shape);
  bool parseIntExpr(int64_t &value);
  bool parseAdditive(int64_t &value);
  bool parseMultiplicative(int64_t &value);
  bool parseUnary(int64_t &value);
  bool parsePrimary(int64_t &value);
  bool parseConstantValue(ConstantValue &value);

  // Bodies.
  bool parseRegion(Region &region, std::vector<std::pair<std::string, SourceLoc>> argNames);
  bool parseStatement();
  bool parseOperation(const std::vector<std::pair<std::string, SourceLoc>> &resultNames,
                      SourceLoc stmtLoc);
  bool parseOperands(Operation &op, size_t count);
  bool parseOperand(Operation &op);
  bool parseKeywordOperand(Operation &op, std::string_view keyword);
  bool parseAttrInt(std::string_view keyword, int64_t &value);
  bool parseOpBody(Operation &op);
  bool parseFor(Operation &op);
  bool parseIf(Operation &op);
  bool parseWhile(Operation &op);
  bool parseIterArgs(Operation &op, std::vector<std::pair<std::string, SourceLoc>> &argNames);
  bool parseAtomic(Operation &op);
  bool parseCombining(Operation &op);

  // Values and scopes.
  bool defineValue(Value *value, const std::string &name, SourceLoc loc);
  Value *lookupValue(std::string_view name) const;

  Lexer lexer_;
  Token tok_;
  DiagnosticEngine &diags_;
  std::unique_ptr<Module> module_;
  Builder builder_;
  const ConstexprBindings &bindings_;
  std::vector<std::unordered_map<std::string, Value *>> scopes_;
  std::unordered_map<std::string, SourceLoc> definedInFunction_;
  unsigned nesting_ = 0;
  unsigned exprNesting_ = 0;
};

// ---------------------------------------------------------------------------
// Tokens

} // namespace blockc::parser

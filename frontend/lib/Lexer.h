//===- Lexer.h - Tokens of the .bir text format -----------------*- C++ -*-===//
#pragma once

#include "blockc/frontend/Diagnostics.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace blockc {

enum class TokenKind {
  Eof,
  Error,
  Identifier, // kernel, f32, add, BLOCK, ...
  ValueName,  // %x
  FuncName,   // @f
  Integer,
  Float,
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow,
  Plus,
  Minus,
  Star,
  Slash,
  String, // "text", escapes \\ \" \n \t
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  /// Identifier and name text (without `%`/`@`), or the literal's spelling;
  /// a String's text between its quotes, escapes undone in `value`.
  std::string_view text;
  std::string value;
  SourceLoc loc;
  /// Integer: the value. Float: see floatValue. Error: unused.
  uint64_t intValue = 0;
  double floatValue = 0.0;
};

std::string_view tokenKindDescription(TokenKind kind);

class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token next();
  /// The message of the last Error token.
  const std::string &errorMessage() const { return error_; }

private:
  Token make(TokenKind kind, size_t begin, SourceLoc loc);
  Token error(SourceLoc loc, std::string message);
  Token lexNumber(size_t begin, SourceLoc loc);
  Token lexString(size_t begin, SourceLoc loc);
  void skipSpaceAndComments();
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance();

  std::string_view text_;
  size_t pos_ = 0;
  unsigned line_ = 1, col_ = 1;
  std::string error_;
};

} // namespace blockc

//===- Lexer.cpp ----------------------------------------------------------===//
#include "Lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace blockc {

std::string_view tokenKindDescription(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Error:
    return "invalid token";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::ValueName:
    return "value name";
  case TokenKind::FuncName:
    return "function name";
  case TokenKind::Integer:
    return "integer";
  case TokenKind::Float:
    return "float";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::LBracket:
    return "'['";
  case TokenKind::RBracket:
    return "']'";
  case TokenKind::Less:
    return "'<'";
  case TokenKind::Greater:
    return "'>'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Arrow:
    return "'->'";
  case TokenKind::Plus:
    return "'+'";
  case TokenKind::Minus:
    return "'-'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Slash:
    return "'/'";
  case TokenKind::String:
    return "string";
  }
  return "token";
}

namespace {
bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
} // namespace

void Lexer::advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (pos_ < text_.size() && peek() != '\n')
        advance();
    } else {
      break;
    }
  }
}

Token Lexer::make(TokenKind kind, size_t begin, SourceLoc loc) {
  Token t;
  t.kind = kind;
  t.text = text_.substr(begin, pos_ - begin);
  t.loc = loc;
  return t;
}

Token Lexer::error(SourceLoc loc, std::string message) {
  error_ = std::move(message);
  Token t;
  t.kind = TokenKind::Error;
  t.loc = loc;
  return t;
}

Token Lexer::lexNumber(size_t begin, SourceLoc loc) {
  bool isFloat = false;
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    advance();
    advance();
    if (!std::isxdigit(static_cast<unsigned char>(peek())))
      return error(loc, "expected hex digits after '0x'");
    while (std::isxdigit(static_cast<unsigned char>(peek())))
      advance();
  } else {
    while (isDigit(peek()))
      advance();
    if (peek() == '.' && isDigit(peek(1))) {
      isFloat = true;
      advance();
      while (isDigit(peek()))
        advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
      isFloat = true;
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      while (isDigit(peek()))
        advance();
    }
  }
  if (isIdentChar(peek()))
    return error(loc, "invalid character '" + std::string(1, peek()) + "' in number");
  Token t = make(isFloat ? TokenKind::Float : TokenKind::Integer, begin, loc);
  std::string spelling(t.text);
  errno = 0;
  if (isFloat) {
    t.floatValue = std::strtod(spelling.c_str(), nullptr);
    if (errno == ERANGE && (t.floatValue > 1.0 || t.floatValue < -1.0))
      return error(loc, "float literal " + spelling + " is out of range");
  } else {
    t.intValue = std::strtoull(spelling.c_str(), nullptr, 0);
    if (errno == ERANGE || t.intValue > uint64_t(INT64_MAX))
      return error(loc, "integer literal " + spelling + " does not fit in 64 bits");
  }
  return t;
}

Token Lexer::lexString(size_t begin, SourceLoc loc) {
  advance(); // the opening quote
  std::string value;
  for (;;) {
    char c = peek();
    if (pos_ >= text_.size() || c == '\n')
      return error(loc, "unterminated string: a string ends with '\"' on its own line");
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      return error(loc, "a string holds printable text; write a control character as \\n or "
                        "\\t");
    advance();
    if (c == '"')
      break;
    if (c == '\\') {
      char escaped = peek();
      if (escaped != '\\' && escaped != '"' && escaped != 'n' && escaped != 't')
        return error(loc, "unknown escape in string: write \\\\, \\\", \\n or \\t");
      advance();
      c = escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
    }
    value += c;
  }
  Token t = make(TokenKind::String, begin, loc);
  t.text = t.text.substr(1, t.text.size() - 2);
  t.value = std::move(value);
  return t;
}

Token Lexer::next() {
  skipSpaceAndComments();
  SourceLoc loc{line_, col_};
  size_t begin = pos_;
  if (pos_ >= text_.size())
    return make(TokenKind::Eof, begin, loc);
  char c = peek();
  if (isIdentStart(c)) {
    while (isIdentChar(peek()))
      advance();
    return make(TokenKind::Identifier, begin, loc);
  }
  if (c == '%' || c == '@') {
    advance();
    size_t nameBegin = pos_;
    while (isIdentChar(peek()) || peek() == '.')
      advance();
    if (pos_ == nameBegin)
      return error(loc, std::string("expected a name after '") + c + "'");
    Token t = make(c == '%' ? TokenKind::ValueName : TokenKind::FuncName, nameBegin, loc);
    return t;
  }
  if (isDigit(c))
    return lexNumber(begin, loc);
  if (c == '"')
    return lexString(begin, loc);

  TokenKind kind;
  switch (c) {
  case '(':
    kind = TokenKind::LParen;
    break;
  case ')':
    kind = TokenKind::RParen;
    break;
  case '{':
    kind = TokenKind::LBrace;
    break;
  case '}':
    kind = TokenKind::RBrace;
    break;
  case '[':
    kind = TokenKind::LBracket;
    break;
  case ']':
    kind = TokenKind::RBracket;
    break;
  case '<':
    kind = TokenKind::Less;
    break;
  case '>':
    kind = TokenKind::Greater;
    break;
  case ',':
    kind = TokenKind::Comma;
    break;
  case ':':
    kind = TokenKind::Colon;
    break;
  case '=':
    kind = TokenKind::Equal;
    break;
  case '+':
    kind = TokenKind::Plus;
    break;
  case '*':
    kind = TokenKind::Star;
    break;
  case '/':
    kind = TokenKind::Slash;
    break;
  case '-':
    if (peek(1) == '>') {
      advance();
      kind = TokenKind::Arrow;
    } else {
      kind = TokenKind::Minus;
    }
    break;
  default: {
    unsigned char u = static_cast<unsigned char>(c);
    std::string shown = u >= 0x20 && u < 0x7f
                            ? "'" + std::string(1, c) + "'"
                            : "byte 0x" + std::string(1, "0123456789abcdef"[u >> 4]) +
                                  std::string(1, "0123456789abcdef"[u & 15]);
    return error(loc, "unexpected character " + shown);
  }
  }
  advance();
  return make(kind, begin, loc);
}

} // namespace blockc

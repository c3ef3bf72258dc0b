//===- SpecializeConstexprs.cpp - -D values over the defaults -------------===//
#include "blockc/frontend/SpecializeConstexprs.h"

#include "Lexer.h"
#include "blockc/frontend/TypeRules.h"

#include <limits>

namespace blockc {

bool specializeConstexpr(Constexpr &decl, const ConstexprBindings &bindings,
                         DiagnosticEngine &diags) {
  const std::string *text = nullptr;
  for (const auto &[name, value] : bindings)
    if (name == decl.name)
      text = &value;
  if (!text)
    return true;
  std::string where = "-D " + decl.name + "=" + *text;
  std::string typeName(scalarKindName(decl.kind));
  Lexer lex(*text);
  Token t = lex.next();
  bool negative = false;
  if (t.kind == TokenKind::Minus) {
    negative = true;
    t = lex.next();
  }
  ConstantValue value;
  bool ok = true;
  if (t.kind == TokenKind::Integer) {
    value = ConstantValue::ofInt(negative ? -int64_t(t.intValue) : int64_t(t.intValue));
  } else if (t.kind == TokenKind::Float) {
    value = ConstantValue::ofFloat(negative ? -t.floatValue : t.floatValue);
  } else if (t.kind == TokenKind::Identifier && !negative &&
             (t.text == "true" || t.text == "false")) {
    value = ConstantValue::ofInt(t.text == "true");
  } else if (t.kind == TokenKind::Identifier && (t.text == "inf" || t.text == "nan")) {
    double v = t.text == "inf" ? std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::quiet_NaN();
    value = ConstantValue::ofFloat(negative ? -v : v);
  } else {
    ok = false;
  }
  if (!ok || lex.next().kind != TokenKind::Eof) {
    diags.error({}, where + ": expected a number for constexpr '" + decl.name + "' of type " +
                        typeName);
    return false;
  }
  if (isFloatKind(decl.kind) && !value.isFloat)
    value = ConstantValue::ofFloat(double(value.intValue));
  if (auto msg = checkConstantFits(value, decl.kind)) {
    diags.error({}, where + ": " + *msg);
    return false;
  }
  decl.value = canonicalConstant(value, decl.kind);
  return true;
}

bool checkBindingsDeclared(const Module &module, const ConstexprBindings &bindings,
                           DiagnosticEngine &diags) {
  for (const auto &[name, value] : bindings)
    if (!module.lookupConstexpr(name)) {
      diags.error({},
                  "-D " + name + "=" + value + ": the module declares no constexpr '" + name + "'");
      return false;
    }
  return true;
}

} // namespace blockc

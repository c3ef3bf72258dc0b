//===- SpecializeConstexprsTest.cpp - -D values over the defaults ---------===//
//
// The stage on its own, one declaration at a time, as the parser calls it;
// ParserTest checks that the bound values reach the shapes.
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/SpecializeConstexprs.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace blockc;

namespace {

Constexpr declared(const std::string &name, ScalarKind kind, ConstantValue value) {
  Constexpr decl;
  decl.name = name;
  decl.kind = kind;
  decl.value = value;
  return decl;
}

/// The error `specializeConstexpr` reports for `text` bound to an i32, or ""
/// when it accepts it.
std::string bindingError(ScalarKind kind, const std::string &text) {
  Constexpr decl = declared("N", kind, ConstantValue::ofInt(1));
  DiagnosticEngine diags;
  if (specializeConstexpr(decl, {{"N", text}}, diags))
    return "";
  return diags.diagnostic().message;
}

} // namespace

TEST(SpecializeConstexprs, WithoutBindingTheDefaultStays) {
  Constexpr decl = declared("BLOCK", ScalarKind::I32, ConstantValue::ofInt(64));
  DiagnosticEngine diags;
  ASSERT_TRUE(specializeConstexpr(decl, {{"OTHER", "3"}}, diags));
  EXPECT_EQ(decl.value, ConstantValue::ofInt(64));
}

TEST(SpecializeConstexprs, TheLastBindingForTheNameWins) {
  Constexpr decl = declared("BLOCK", ScalarKind::I64, ConstantValue::ofInt(64));
  DiagnosticEngine diags;
  ASSERT_TRUE(specializeConstexpr(decl, {{"BLOCK", "8"}, {"OTHER", "1"}, {"BLOCK", "-16"}}, diags));
  EXPECT_EQ(decl.value, ConstantValue::ofInt(-16));
}

TEST(SpecializeConstexprs, ValuesTakeTheDeclaredType) {
  DiagnosticEngine diags;
  Constexpr scale = declared("SCALE", ScalarKind::F32, ConstantValue::ofFloat(1.0));
  ASSERT_TRUE(specializeConstexpr(scale, {{"SCALE", "3"}}, diags));
  EXPECT_EQ(scale.value, ConstantValue::ofFloat(3.0)) << "an integer becomes a float";
  ASSERT_TRUE(specializeConstexpr(scale, {{"SCALE", "-inf"}}, diags));
  EXPECT_TRUE(std::isinf(scale.value.floatValue) && scale.value.floatValue < 0);
  ASSERT_TRUE(specializeConstexpr(scale, {{"SCALE", "nan"}}, diags));
  EXPECT_TRUE(std::isnan(scale.value.floatValue));
  Constexpr flag = declared("EVEN", ScalarKind::I1, ConstantValue::ofInt(0));
  ASSERT_TRUE(specializeConstexpr(flag, {{"EVEN", "true"}}, diags));
  EXPECT_EQ(flag.value, ConstantValue::ofInt(1));
  EXPECT_FALSE(diags.hasError());
}

TEST(SpecializeConstexprs, BadValuesNameTheFlagAndTheType) {
  EXPECT_EQ(bindingError(ScalarKind::I32, "abc"),
            "-D N=abc: expected a number for constexpr 'N' of type i32");
  EXPECT_EQ(bindingError(ScalarKind::I32, "4 4"),
            "-D N=4 4: expected a number for constexpr 'N' of type i32");
  EXPECT_EQ(bindingError(ScalarKind::I32, "-true"),
            "-D N=-true: expected a number for constexpr 'N' of type i32");
  EXPECT_EQ(bindingError(ScalarKind::I32, ""),
            "-D N=: expected a number for constexpr 'N' of type i32");
  EXPECT_NE(bindingError(ScalarKind::I8, "300").find("-D N=300: "), std::string::npos);
  EXPECT_NE(bindingError(ScalarKind::I32, "1.5").find("-D N=1.5: "), std::string::npos);
}

TEST(SpecializeConstexprs, EveryBindingMustNameADeclaredConstexpr) {
  Module module;
  module.constexprs.push_back(declared("BLOCK", ScalarKind::I32, ConstantValue::ofInt(64)));
  DiagnosticEngine ok;
  EXPECT_TRUE(checkBindingsDeclared(module, {{"BLOCK", "8"}}, ok));
  DiagnosticEngine misspelt;
  EXPECT_FALSE(checkBindingsDeclared(module, {{"BLOCK", "8"}, {"BLOKC", "4"}}, misspelt));
  EXPECT_EQ(misspelt.diagnostic().message, "-D BLOKC=4: the module declares no constexpr 'BLOKC'");
}

//===- BuilderTest.cpp - The C++ API agrees with the text format ----------===//
#include "blockc/frontend/Builder.h"

#include "blockc/frontend/Parser.h"
#include "blockc/frontend/Printer.h"
#include "blockc/frontend/Verifier.h"

#include <gtest/gtest.h>

using namespace blockc;

namespace {
const Type kF32 = Type::scalar(ScalarKind::F32);
const Type kI32 = Type::scalar(ScalarKind::I32);
} // namespace

TEST(Builder, VectorAddMatchesText) {
  Module m;
  Builder b(m);
  Function &fn = b.createKernel("vector_add", {{"a", Type::pointer(ScalarKind::F32)},
                                               {"b", Type::pointer(ScalarKind::F32)},
                                               {"c", Type::pointer(ScalarKind::F32)},
                                               {"n", kI32}});
  Value *a = fn.body.args[0].get(), *bp = fn.body.args[1].get(), *c = fn.body.args[2].get(),
        *n = fn.body.args[3].get();
  Value *start = b.mul(b.programId(0), b.constant(int64_t(64), kI32));
  Value *offs = b.add(start, b.arange(0, 64));
  Value *mask = b.cmp(CmpPredicate::LT, offs, n);
  Value *x = b.load(b.addPtr(a, offs), mask);
  Value *y = b.load(b.addPtr(bp, offs), mask);
  Value *sum = b.add(x, y);
  b.store(b.addPtr(c, offs), sum, mask);
  ASSERT_FALSE(b.diagnostics().hasError()) << b.diagnostics().diagnostic().message;

  DiagnosticEngine diags;
  ASSERT_TRUE(verifyModule(m, diags));
  std::string text = printModule(m);
  EXPECT_NE(text.find("%v9 = load %v8, mask=%v5 : f32[64]"), std::string::npos) << text;

  SourceFile file{"built.bir", text};
  std::unique_ptr<Module> parsed = parseModule(file, {}, diags);
  ASSERT_TRUE(parsed) << formatDiagnostic(diags.diagnostic(), &file);
  EXPECT_EQ(printModule(*parsed), text);
}

TEST(Builder, TypeErrorReturnsNullAndReports) {
  Module m;
  Builder b(m);
  b.createKernel("k", {});
  Value *bad = b.add(b.arange(0, 16), b.constant(1.0, kF32));
  EXPECT_EQ(bad, nullptr);
  ASSERT_TRUE(b.diagnostics().hasError());
  EXPECT_EQ(b.diagnostics().diagnostic().message,
            "element type f32 differs from i32; insert a cast");
  // Later ops fed the null value fail too, without crashing.
  EXPECT_EQ(b.unary(OpKind::Neg, bad), nullptr);
}

TEST(Builder, LoopAndIfCarryValues) {
  Module m;
  Builder b(m);
  Function &fn = b.createKernel("k", {{"p", Type::pointer(ScalarKind::F32)}, {"n", kI32}});
  Value *zero = b.constant(int64_t(0), kI32), *one = b.constant(int64_t(1), kI32);
  Value *init = b.constant(0.0, Type::block(ScalarKind::F32, {16}));
  Operation *loop = b.createFor(zero, fn.body.args[1].get(), one, {init});
  ASSERT_NE(loop, nullptr);
  Region &body = *loop->regions[0];
  b.setInsertionPoint(body);
  Value *cond = b.cmp(CmpPredicate::LT, body.args[0].get(), one);
  Operation *branch = b.createIf(cond, true);
  b.setInsertionPoint(*branch->regions[0]);
  b.yield({b.unary(OpKind::Exp, body.args[1].get())});
  b.setInsertionPoint(*branch->regions[1]);
  b.yield({body.args[1].get()});
  b.setInsertionPoint(body);
  b.finishIf(branch);
  b.yield({branch->result()});
  b.setInsertionPoint(fn.body);
  b.store(fn.body.args[0].get(), b.reduce(OpKind::ReduceSum, loop->result(), 0));
  ASSERT_FALSE(b.diagnostics().hasError()) << b.diagnostics().diagnostic().message;
  DiagnosticEngine diags;
  EXPECT_TRUE(verifyModule(m, diags)) << diags.diagnostic().message;
}

TEST(Verifier, RejectsUseOutsideScope) {
  Module m;
  Builder b(m);
  Function &fn = b.createKernel("k", {{"n", kI32}});
  Value *zero = b.constant(int64_t(0), kI32), *one = b.constant(int64_t(1), kI32);
  Operation *loop = b.createFor(zero, fn.body.args[0].get(), one, {});
  b.setInsertionPoint(*loop->regions[0]);
  Value *inner = b.add(loop->regions[0]->args[0].get(), one);
  b.setInsertionPoint(fn.body);
  b.add(inner, one); // the builder has no scopes; the verifier must catch this
  DiagnosticEngine diags;
  EXPECT_FALSE(verifyModule(m, diags));
  EXPECT_NE(diags.diagnostic().message.find("is not defined where it is used"), std::string::npos);
}

TEST(Verifier, RejectsWrongResultType) {
  Module m;
  Builder b(m);
  b.createKernel("k", {});
  Value *r = b.arange(0, 8);
  r->setType(Type::block(ScalarKind::I32, {4}));
  DiagnosticEngine diags;
  EXPECT_FALSE(verifyModule(m, diags));
  EXPECT_EQ(diags.diagnostic().message,
            "'arange' has result types (i32[4]), but its operands give (i32[8])");
}

// Functions that return values and the grid's size: what Triton's helper
// functions and tl.num_programs become when a frontend builds them in C++.
TEST(Builder, FunctionReturnsAndGridSizeRoundTrip) {
  Module m;
  Builder b(m);
  Function &twice = b.createFunction("twice", {{"x", kI32}}, {kI32});
  Value *x = twice.body.args[0].get();
  b.ret({b.add(x, x)});
  Function &kernel = b.createKernel("k", {{"out", Type::pointer(ScalarKind::I32)}});
  Value *out = kernel.body.args[0].get();
  std::vector<Value *> doubled = b.call(twice, {b.numPrograms(1)});
  ASSERT_EQ(doubled.size(), 1u);
  b.store(b.addPtr(out, b.programId(0)), doubled[0], nullptr);
  ASSERT_FALSE(b.diagnostics().hasError()) << b.diagnostics().diagnostic().message;

  DiagnosticEngine diags;
  ASSERT_TRUE(verifyModule(m, diags)) << diags.diagnostic().message;
  std::string text = printModule(m);
  EXPECT_NE(text.find("num_programs 1"), std::string::npos) << text;
  EXPECT_NE(text.find("return %"), std::string::npos) << text;
  SourceFile file{"built.bir", text};
  std::unique_ptr<Module> parsed = parseModule(file, {}, diags);
  ASSERT_TRUE(parsed) << formatDiagnostic(diags.diagnostic(), &file);
  EXPECT_EQ(printModule(*parsed), text);
}

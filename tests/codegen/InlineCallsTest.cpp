//===- InlineCallsTest.cpp - The InlineCalls pass -------------------------===//
//
// Helpers are inlined into every kernel that calls them, helpers that call
// helpers included, and are then gone; a module without calls is unchanged.
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/Parser.h"
#include "blockc/frontend/Printer.h"
#include "blockc/frontend/Verifier.h"
#include "blockc/lowering/Passes.h"

#include <gtest/gtest.h>

using namespace blockc;

namespace {

std::unique_ptr<Module> parse(const std::string &text) {
  SourceFile file{"inline.bir", text};
  DiagnosticEngine diags;
  std::unique_ptr<Module> module = parseModule(file, {}, diags);
  EXPECT_TRUE(module) << formatDiagnostic(diags.diagnostic(), &file);
  return module;
}

TEST(InlineCalls, NestedHelpersDisappearIntoEveryCaller) {
  std::unique_ptr<Module> module = parse(R"(
func @square(%x: f32[16]) -> f32[16] {
  %y = mul %x, %x
  return %y
}
func @quartic(%x: f32[16]) -> f32[16] {
  %s = call @square(%x)
  %q = call @square(%s)
  return %q
}
kernel @a(%p: ptr<f32>) {
  %offs = arange 0, 16
  %ptrs = addptr %p, %offs
  %x = load %ptrs
  %q = call @quartic(%x)
  store %ptrs, %q
}
kernel @b(%p: ptr<f32>) {
  %offs = arange 0, 16
  %ptrs = addptr %p, %offs
  %x = load %ptrs
  %s = call @square(%x)
  store %ptrs, %s
}
)");
  ASSERT_TRUE(module);
  EXPECT_TRUE(inlineCalls(*module));
  ASSERT_EQ(module->functions.size(), 2u);
  EXPECT_EQ(module->functions[0]->name, "a");
  EXPECT_EQ(module->functions[1]->name, "b");
  DiagnosticEngine diags;
  EXPECT_TRUE(verifyModule(*module, diags)) << diags.diagnostic().message;
  std::string text = printModule(*module);
  EXPECT_EQ(text.find("call"), std::string::npos) << text;
  // @a squares twice, @b once: three multiplies in all.
  size_t multiplies = 0;
  for (size_t at = text.find(" = mul "); at != std::string::npos; at = text.find(" = mul ", at + 1))
    ++multiplies;
  EXPECT_EQ(multiplies, 3u) << text;
}

TEST(InlineCalls, ModuleWithoutCallsIsUnchanged) {
  std::unique_ptr<Module> module = parse(R"(
kernel @k(%p: ptr<f32>) {
  %offs = arange 0, 16
  %ptrs = addptr %p, %offs
  %x = load %ptrs
  store %ptrs, %x
}
)");
  ASSERT_TRUE(module);
  std::string before = printModule(*module);
  EXPECT_FALSE(inlineCalls(*module));
  EXPECT_EQ(printModule(*module), before);
}

} // namespace

//===- ParserTest.cpp - Text format: binding, round trips, robustness -----===//
#include "blockc/frontend/Parser.h"

#include "blockc/frontend/Printer.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace blockc;

namespace {

std::unique_ptr<Module> parse(const std::string &text, const ConstexprBindings &bindings,
                              std::string *error = nullptr) {
  SourceFile file{"test.bir", text};
  DiagnosticEngine diags;
  std::unique_ptr<Module> m = parseModule(file, bindings, diags);
  if (!m && error)
    *error = formatDiagnostic(diags.diagnostic(), &file);
  return m;
}

const char *kScaled = R"(constexpr BLOCK: i32 = 64
constexpr HALF: i32 = BLOCK / 2
constexpr SCALE: f32 = 0.5
kernel @k(%p: ptr<f32>) {
  %r = arange 0, HALF * 2
  %ptrs = addptr %p, %r
  %x = load %ptrs
  %s = const SCALE : f32
  %y = mul %x, %s
  store %ptrs, %y
}
)";

} // namespace

TEST(Parser, ConstexprsBindIntoShapes) {
  std::string error;
  auto m = parse(kScaled, {{"BLOCK", "256"}, {"SCALE", "-2"}}, &error);
  ASSERT_TRUE(m) << error;
  std::string text = printModule(*m);
  EXPECT_NE(text.find("constexpr BLOCK: i32 = 256\n"), std::string::npos) << text;
  EXPECT_NE(text.find("constexpr HALF: i32 = 128\n"), std::string::npos) << text;
  EXPECT_NE(text.find("%r = arange 0, 256 : i32[256]"), std::string::npos) << text;
  EXPECT_NE(text.find("%s = const -2.0 : f32"), std::string::npos) << text;
}

TEST(Parser, LaterBindingWins) {
  auto m = parse(kScaled, {{"BLOCK", "8"}, {"BLOCK", "16"}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->lookupConstexpr("BLOCK")->value.intValue, 16);
}

TEST(Parser, BindingErrorsNameTheFlag) {
  std::string error;
  EXPECT_FALSE(parse(kScaled, {{"BLOCK", "abc"}}, &error));
  EXPECT_EQ(error, "test.bir: error: -D BLOCK=abc: expected a number for constexpr 'BLOCK' of "
                   "type i32\n");
  EXPECT_FALSE(parse(kScaled, {{"BLOCKK", "4"}}, &error));
  EXPECT_EQ(error, "test.bir: error: -D BLOCKK=4: the module declares no constexpr 'BLOCKK'\n");
  EXPECT_FALSE(parse(kScaled, {{"BLOCK", "1.5"}}, &error));
  EXPECT_NE(error.find("a float constant cannot have integer type i32"), std::string::npos);
}

TEST(Parser, FloatConstantsRoundTripExactly) {
  const char *text = R"(kernel @k(%p: ptr<f64>) {
  %a = const 0.1 : f64
  %b = const -0.0 : f64
  %c = const 1e-300 : f64
  %d = const -inf : f64
  %e = const nan : f64
  %f = const 3 : f64
  %g = const 0.30000000000000004 : f64
}
)";
  std::string error;
  auto m = parse(text, {}, &error);
  ASSERT_TRUE(m) << error;
  std::string printed = printModule(*m);
  EXPECT_NE(printed.find("const -0.0 : f64"), std::string::npos);
  EXPECT_NE(printed.find("const 3.0 : f64"), std::string::npos);
  EXPECT_NE(printed.find("const 0.30000000000000004 : f64"), std::string::npos);
  auto again = parse(printed, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(printModule(*again), printed);
}

TEST(Parser, ErrorShowsLineAndCaret) {
  std::string error;
  EXPECT_FALSE(
      parse("kernel @k(%p: ptr<f32>) {\n\t%a = arange 0, 16\n\t%b = exp %a\n}\n", {}, &error));
  EXPECT_EQ(error, "test.bir:3:11: error: 'exp' expects floats, got 'i32[16]'\n"
                   "  \t%b = exp %a\n"
                   "  \t         ^\n");
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "kernel @k(%p: ptr<f32>) {\n  %a = arange 0, " + std::string(10000, '(') +
                     "1" + std::string(10000, ')') + "\n}\n";
  std::string error;
  EXPECT_FALSE(parse(deep, {}, &error));
  EXPECT_NE(error.find("expression nested deeper than 64"), std::string::npos) << error;
}

TEST(Parser, EveryExampleRoundTrips) {
  int count = 0;
  for (const auto &entry : std::filesystem::directory_iterator(BLOCKC_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".bir")
      continue;
    ++count;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    auto m = parse(text.str(), {}, &error);
    ASSERT_TRUE(m) << entry.path() << "\n" << error;
    std::string printed = printModule(*m);
    auto again = parse(printed, {}, &error);
    ASSERT_TRUE(again) << entry.path() << "\n" << error;
    EXPECT_EQ(printModule(*again), printed) << entry.path();
  }
  EXPECT_GE(count, 5);
}

//===- TargetMemoryTest.cpp - Masked memory of every dtype, per x86 target ===//
//
// Masked contiguous loads with `other`, select, gathers and scatters of every
// element type, compiled for each x86 target and run on those this CPU can
// execute (others skip, naming the features they lack). A bf16 masked load on
// a target without AVX512-BF16 once needed compiler-rt's __truncsfbf2, which
// the JIT cannot find: tests that compiled only for `host` missed it. Every
// target, RISC-V included, must also compile these kernels to an object that
// calls no compiler runtime function.
//
//===----------------------------------------------------------------------===//
#include "ChildProcess.h"
#include "KernelHarness.h"
#include "Reference.h"
#include "blockc/jit/HostCompatibility.h"
#include "blockc/targetinfo/Target.h"
#include "blockc/targets/IsaLowerings.h"

#include <cstring>
#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

using Align = SharedPages::Align;

std::string maskedKernel(DType t) {
  std::ostringstream s;
  std::string ty = typeName(t);
  s << "constexpr BLOCK: i32 = 64\n"
    << "kernel @k(%x: ptr<" << ty << ">, %o: ptr<" << ty << ">, %g: ptr<" << ty
    << ">, %fill: " << ty << ", %n: i32, %s: i32) {\n"
    << "  %pid = program_id 0\n  %bs = const BLOCK : i32\n  %start = mul %pid, %bs\n"
    << "  %r = arange 0, BLOCK\n  %offs = add %start, %r\n  %m = cmp lt %offs, %n\n"
    // Contiguous masked load with other, then a select, stored unmasked.
    << "  %xp = addptr %x, %offs\n  %v = load %xp, mask=%m, other=%fill\n"
    << "  %w = select %m, %v, %fill\n  %op = addptr %o, %offs\n  store %op, %w\n"
    // Gather and scatter with a run-time stride, both masked.
    << "  %so = mul %offs, %s\n  %gx = addptr %x, %so\n  %gv = load %gx, mask=%m\n"
    << "  %gp = addptr %g, %so\n  store %gp, %gv, mask=%m\n}\n";
  return s.str();
}

struct Case {
  std::string target;
  DType type;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string &name : targetNames()) {
    Target t;
    std::string error;
    if (lookupTarget(name, t, error) && t.arch == Arch::X86_64)
      for (DType type : allTypes())
        out.push_back({name, type});
  }
  return out;
}

std::string caseName(const testing::TestParamInfo<Case> &info) {
  std::string name = info.param.target + "_" + typeName(info.param.type);
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

class TargetMemoryTest : public testing::TestWithParam<Case> {};

uint64_t valueAt(DType t, int i) {
  return encode(t, isFloat(t) ? floatVal(double(i % 37) - 18.5) : intVal(i % 37 - 18));
}

} // namespace

TEST_P(TargetMemoryTest, MaskedLoadsAndStoresMatchReference) {
  const Case &c = GetParam();
  Target target;
  std::string error;
  ASSERT_TRUE(lookupTarget(c.target, target, error)) << error;
  if (!canRunOnThisMachine(target, error))
    GTEST_SKIP() << error;
  auto module = compileInProcessOrFail(maskedKernel(c.type), {}, c.target);
  ASSERT_TRUE(module);
  const size_t width = bytesOf(c.type);
  const uint64_t fill = valueAt(c.type, 7);
  for (auto [n, stride] : {std::pair{1, 1}, {50, 1}, {64, 3}, {100, 2}, {129, 1}}) {
    const int programs = (n + 63) / 64, total = programs * 64;
    const size_t xCount = size_t(n - 1) * stride + 1;
    SharedPages xs(xCount * width), os(size_t(total) * width), gs(xCount * width);
    auto *x = xs.at<uint8_t>(Align::End, xCount * width);
    auto *o = os.at<uint8_t>(Align::End, size_t(total) * width);
    auto *g = gs.at<uint8_t>(Align::End, xCount * width);
    for (size_t i = 0; i < xCount; ++i) {
      uint64_t bits = valueAt(c.type, int(i));
      std::memcpy(x + i * width, &bits, width);
    }
    std::memset(g, 0, xCount * width);
    int32_t count = n, step = stride;
    void *args[] = {&x, &o, &g, const_cast<uint64_t *>(&fill), &count, &step};
    ASSERT_EQ(launchInChild(module->kernels()[0].fn, {programs, 1, 1}, args), "")
        << "n=" << n << " stride=" << stride;
    for (int i = 0; i < total; ++i) {
      uint64_t got = 0;
      std::memcpy(&got, o + size_t(i) * width, width);
      uint64_t want = i < n ? valueAt(c.type, i * 1) : fill;
      ASSERT_EQ(got, want) << "o[" << i << "] n=" << n;
    }
    for (size_t i = 0; i < xCount; ++i) {
      uint64_t got = 0;
      std::memcpy(&got, g + i * width, width);
      uint64_t want = i % stride == 0 ? valueAt(c.type, int(i)) : 0;
      ASSERT_EQ(got, want) << "g[" << i << "] n=" << n << " stride=" << stride;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryX86Target, TargetMemoryTest, testing::ValuesIn(cases()), caseName);

// Every target's object, cross targets included, links against nothing but
// SLEEF and the C library: compileSource checks each object it emits.
TEST(TargetMemory, NoTargetNeedsACompilerRuntimeHelper) {
  registerIsaLowerings();
  for (const std::string &target : targetNames())
    for (DType type : allTypes()) {
      SourceFile file{"masked.bir", maskedKernel(type)};
      CompileOptions options;
      options.target = target;
      DiagnosticEngine diags;
      bool compiled = compileSource(file, options, EmitKind::Object, diags).has_value();
      std::string message =
          diags.hasError() ? formatDiagnostic(diags.diagnostic(), &file) : std::string();
      // RVV without zvfh has no f16 vectors at all; LLVM would crash on them.
      if (target == "rv64gcv" && type == DType::F16) {
        EXPECT_FALSE(compiled);
        EXPECT_NE(message.find("masked.bir:"), std::string::npos) << message;
        EXPECT_NE(message.find("need the zvfh extension"), std::string::npos) << message;
        continue;
      }
      EXPECT_TRUE(compiled) << target << " " << typeName(type) << ": " << message;
    }
}

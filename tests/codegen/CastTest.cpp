// cast between every pair of element types and bitcast between every pair of
// equal width, on blocks and on a scalar argument, against the rules of
// docs/block-ir.md section 10.9. Every conversion there is exactly rounded (round to
// nearest even, once), so results are compared exactly; inputs include rounding ties
// and near-ties that a conversion through an intermediate type rounds twice.
#include "ElementwiseHarness.h"

using namespace blockc;
using namespace blockc::test;

namespace {

int precisionOf(DType t) {
  return formatOf(t).man + 1;
}

/// The exact conversion of `v` from `from` to `to`.
Val castRef(DType from, DType to, Val v) {
  if (from == to)
    return v;
  if (isBool(to))
    return intVal(isFloat(from) ? (v.f != 0 || std::isnan(v.f)) : v.i != 0);
  if (!isFloat(from)) {
    if (!isFloat(to))
      return intVal(wrapInt(uint64_t(v.i), bitsOf(to)));
    // C++'s int64 -> float and -> double conversions round once; f16 and bf16 get
    // the exact rounding to their precision, which fits a double exactly.
    if (to == DType::F32)
      return floatVal(float(v.i));
    if (to == DType::F64)
      return floatVal(double(v.i));
    return floatVal(roundIntToPrecision(v.i, precisionOf(to)));
  }
  if (!isFloat(to))
    return intVal(int64_t(std::trunc(v.f)));
  return floatVal(v.f); // encode() rounds the double once to the destination
}

/// A value of `dst`'s precision exactly halfway between two neighbours, nudged by
/// a relative 2^-40 either way or not at all: a conversion that rounds to f32 first
/// loses the nudge and turns a near-tie into a tie.
double nearTie(DType dst, std::mt19937_64 &rng, double lo, double hi) {
  int p = precisionOf(dst);
  double base = std::uniform_real_distribution<double>(lo, hi)(rng);
  int e = std::ilogb(base);
  double ulp = std::ldexp(1.0, e - p + 1);
  double tie = (std::floor(base / ulp) + 0.5) * ulp;
  const double nudge[] = {0, std::ldexp(1.0, -40), -std::ldexp(1.0, -40)};
  return tie * (1 + nudge[rng() % 3]);
}

/// Inputs for `from -> to`: float -> int stays in the int's range (outside it the
/// result is unspecified); everything else covers the whole type.
Val castInput(DType from, DType to, std::mt19937_64 &rng) {
  bool rounds = isFloat(to) && (isInt(from) ? bitsOf(from) > precisionOf(to)
                                            : isFloat(from) && precisionOf(from) > precisionOf(to));
  if (rounds && rng() % 3 == 0) {
    double limit = isInt(from) ? std::ldexp(1.0, bitsOf(from) - 2) : 60000.0;
    if (to == DType::F16)
      limit = std::min(limit, 60000.0);
    double x = nearTie(to, rng, 1, limit);
    if (rng() & 1)
      x = -x;
    if (isInt(from))
      return intVal(wrapInt(uint64_t(int64_t(std::clamp(x, -limit, limit - 1))), bitsOf(from)));
    return floatVal(roundTo(from, x));
  }
  if (isFloat(from) && isInt(to)) {
    double lo = -std::ldexp(1.0, bitsOf(to) - 1), hi = -lo;
    for (;;) {
      double span = rng() & 1 ? 300.0 : hi;
      double x = roundTo(from, std::uniform_real_distribution<double>(-span, span)(rng));
      if (std::trunc(x) >= lo && std::trunc(x) < hi)
        return floatVal(x);
    }
  }
  return randomValue(from, rng);
}

struct CastCase {
  DType from, to;
  bool bitcast;
  int scalar; // kAll: the operand is a scalar kernel argument, kNone: a block
};

std::vector<CastCase> castCases() {
  std::vector<CastCase> all;
  for (DType from : allTypes())
    for (DType to : allTypes())
      for (int scalar : {kNone, kAll}) {
        all.push_back({from, to, false, scalar});
        // Bitcast partners: the same width; i1 and i8 only themselves.
        bool sameWidth = bitsOf(from) == bitsOf(to) && bytesOf(from) == bytesOf(to);
        if (sameWidth && (bitsOf(from) > 8 || from == to))
          all.push_back({from, to, true, scalar});
      }
  return all;
}

std::string castName(const testing::TestParamInfo<CastCase> &info) {
  const CastCase &c = info.param;
  return std::string(c.bitcast ? "bitcast_" : "cast_") + typeName(c.from) + "_to_" +
         typeName(c.to) + (c.scalar == kNone ? "_block" : "_scalar");
}

class CastTest : public testing::TestWithParam<CastCase> {};

TEST_P(CastTest, MatchesReference) {
  const CastCase &c = GetParam();
  std::string expr = std::string(c.bitcast ? "bitcast" : "cast") + " %a0 to " + typeName(c.to);
  InputGen gen;
  LaneRef ref;
  if (c.bitcast) {
    // Every bit pattern, signaling NaNs included: a bitcast must not touch them.
    gen = [&](int, std::mt19937_64 &rng) {
      uint64_t bits = rng();
      return bitsOf(c.from) < 64 ? bits & ((uint64_t(1) << bitsOf(c.from)) - 1) : bits;
    };
    ref = [](const std::vector<uint64_t> &bits) { return bits[0]; };
  } else {
    gen = [&](int, std::mt19937_64 &rng) { return encode(c.from, castInput(c.from, c.to, rng)); };
    ref = [&](const std::vector<uint64_t> &bits) {
      return encode(c.to, castRef(c.from, c.to, decode(c.from, bits[0])));
    };
  }
  runElementwise(elementwiseKernel({c.from}, c.scalar, c.to, expr), {c.from}, c.scalar, c.to, gen,
                 ref, c.bitcast ? Tolerance::Bits : Tolerance::Exact);
}

INSTANTIATE_TEST_SUITE_P(Casts, CastTest, testing::ValuesIn(castCases()), castName);

/// `expr` over the given input encodings, one lane each, checked exactly.
void expectLanes(const std::string &expr, std::vector<DType> ins, DType out,
                 std::vector<std::vector<uint64_t>> lanes, std::vector<uint64_t> expected) {
  auto module = compileOrFail(elementwiseKernel(ins, kNone, out, expr));
  ASSERT_TRUE(module);
  int n = int(expected.size());
  std::vector<Buffer> inputs;
  std::vector<Arg> args;
  for (size_t k = 0; k < ins.size(); ++k) {
    inputs.emplace_back(ins[k], n);
    for (int i = 0; i < n; ++i)
      inputs[k].setBits(i, lanes[i][k]);
  }
  Buffer result(out, n);
  for (Buffer &b : inputs)
    args.push_back(b);
  args.push_back(result);
  args.push_back(n);
  launch(module->kernels()[0], {1, 1, 1}, args);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(result.bits(i), expected[i])
        << expr << " lane " << i << ": expected " << describe(out, expected[i]) << ", got "
        << describe(out, result.bits(i));
}

uint64_t f64Bits(double d) {
  return encode(DType::F64, floatVal(d));
}

// Section 10.9: int -> float rounds to nearest even once. 1021313023 lies just
// below the bf16 tie 243.5 * 2^22; rounding to f32 first lands on the tie, which
// then rounds up to 244 * 2^22 (0x4e74).
TEST(CastRounding, IntToBf16RoundsOnce) {
  expectLanes("cast %a0 to bf16", {DType::I32}, DType::BF16, {{1021313023}}, {0x4e73});
}

// 1 + 2^-8 + 2^-30 is above the bf16 tie 1 + 2^-8, so it rounds up to 1 + 2^-7;
// through f32 the 2^-30 is lost and the tie rounds to even, 1.0.
TEST(CastRounding, F64ToBf16RoundsOnce) {
  expectLanes("cast %a0 to bf16", {DType::F64}, DType::BF16,
              {{f64Bits(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30))}}, {0x3f81});
}

// The same near-tie for f16: 1 + 2^-11 + 2^-40 rounds up to 1 + 2^-10.
TEST(CastRounding, F64ToF16RoundsOnce) {
  expectLanes("cast %a0 to f16", {DType::F64}, DType::F16,
              {{f64Bits(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))}}, {0x3c01});
}

// bf16 is IEEE binary format with subnormals (section 6); only dot may treat them
// as zero. 2^-130 is the bf16 subnormal 0x0008, and 0x0001 + 0x0001 is 0x0002.
TEST(CastRounding, Bf16KeepsSubnormals) {
  expectLanes("cast %a0 to bf16", {DType::F32}, DType::BF16,
              {{encode(DType::F32, floatVal(std::ldexp(1.0, -130)))}}, {0x0008});
  expectLanes("add %a0, %a1", {DType::BF16, DType::BF16}, DType::BF16, {{0x0001, 0x0001}},
              {0x0002});
}

} // namespace

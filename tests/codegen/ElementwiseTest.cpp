// Every elementwise op on every element type it accepts, run as a 1D kernel
// `out[i] = op(x[i], y[i], ...)` masked on n and checked element by element against
// C++ with the semantics of docs/block-ir.md section 10.
#include "ElementwiseHarness.h"

using namespace blockc;
using namespace blockc::test;

namespace {

enum Cat : unsigned { kInt = 1, kBool = 2, kFloat = 4 };
unsigned catOf(DType t) {
  return isFloat(t) ? kFloat : isBool(t) ? kBool : kInt;
}

using IntRef = std::function<int64_t(int64_t, int64_t, int64_t, int)>;
struct FloatRef {
  std::function<float(float, float, float)> f32;
  std::function<double(double, double, double)> f64;
};
template <typename F> FloatRef floatRef(F f) {
  return {f, f};
}

struct OpDef {
  std::string text; // "add", "cmp lt", ...
  int arity = 0;
  unsigned cats = 0;
  bool boolResult = false;  // cmp
  bool boolFirst = false;   // select's condition
  IntRef intRef = nullptr;  // on sign-extended values; wrapped to the width after
  FloatRef floatRef = {};   // f16/bf16 computed in f32 and rounded once
  Domain rhs = Domain::Any; // operand 1
  Tolerance tol = Tolerance::Exact;
  Tolerance halfTol = Tolerance::Exact; // on f16 and bf16 results
};

uint64_t u(int64_t v) {
  return uint64_t(v);
}

/// A sign-extended value of `bits` bits read as unsigned.
uint64_t unsig(int64_t v, int bits) {
  return bits >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << bits) - 1);
}

/// An op on ints (and i1 where `cats` says so) only.
OpDef intOp(std::string text, int arity, unsigned cats, IntRef ref, Domain rhs = Domain::Any) {
  OpDef op{std::move(text), arity, cats};
  op.intRef = std::move(ref);
  op.rhs = rhs;
  return op;
}

/// An op on ints and floats.
OpDef numOp(std::string text, int arity, IntRef ref, FloatRef fref, Domain rhs = Domain::Any,
            Tolerance tol = Tolerance::Exact) {
  OpDef op = intOp(std::move(text), arity, kInt | kFloat, std::move(ref), rhs);
  op.floatRef = std::move(fref);
  op.tol = op.halfTol = tol;
  return op;
}

std::vector<OpDef> makeOps() {
  const unsigned logic = kInt | kBool;
  using I = int64_t;
  std::vector<OpDef> ops = {
      numOp(
          "add", 2, [](I a, I b, I, int) { return I(u(a) + u(b)); },
          floatRef([](auto a, auto b, auto) { return a + b; })),
      numOp(
          "sub", 2, [](I a, I b, I, int) { return I(u(a) - u(b)); },
          floatRef([](auto a, auto b, auto) { return a - b; })),
      numOp(
          "mul", 2, [](I a, I b, I, int) { return I(u(a) * u(b)); },
          floatRef([](auto a, auto b, auto) { return a * b; })),
      // INT_MIN div -1 wraps to INT_MIN and INT_MIN rem -1 is 0 (section 10.5);
      // only in i64 does C++ need to be told.
      numOp(
          "div", 2, [](I a, I b, I, int) { return a == INT64_MIN && b == -1 ? a : a / b; },
          floatRef([](auto a, auto b, auto) { return a / b; }), Domain::NonZero),
      numOp(
          "rem", 2, [](I a, I b, I, int) { return b == -1 ? 0 : a % b; },
          floatRef([](auto a, auto b, auto) { return std::fmod(a, b); }), Domain::NonZero),
      // Either zero may come back for -0.0 against +0.0.
      numOp(
          "min", 2, [](I a, I b, I, int) { return std::min(a, b); },
          floatRef([](auto a, auto b, auto) { return std::fmin(a, b); }), Domain::Any,
          Tolerance::EitherZero),
      numOp(
          "max", 2, [](I a, I b, I, int) { return std::max(a, b); },
          floatRef([](auto a, auto b, auto) { return std::fmax(a, b); }), Domain::Any,
          Tolerance::EitherZero),
      intOp("and", 2, logic, [](I a, I b, I, int) { return a & b; }),
      intOp("or", 2, logic, [](I a, I b, I, int) { return a | b; }),
      intOp("xor", 2, logic, [](I a, I b, I, int) { return a ^ b; }),
      intOp(
          "shl", 2, kInt, [](I a, I b, I, int) { return I(u(a) << b); }, Domain::ShiftAmount),
      // Sign-extended inputs make a 64-bit arithmetic shift right for every width.
      intOp(
          "ashr", 2, kInt, [](I a, I b, I, int) { return a >> b; }, Domain::ShiftAmount),
      intOp(
          "lshr", 2, kInt,
          [](I a, I b, I, int bits) {
            uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
            return I((u(a) & mask) >> b);
          },
          Domain::ShiftAmount),
      // The unsigned ops read the sign-extended inputs back as width-bit unsigned numbers.
      intOp(
          "udiv", 2, kInt, [](I a, I b, I, int bits) { return I(unsig(a, bits) / unsig(b, bits)); },
          Domain::NonZero),
      intOp(
          "urem", 2, kInt, [](I a, I b, I, int bits) { return I(unsig(a, bits) % unsig(b, bits)); },
          Domain::NonZero),
      intOp("umin", 2, kInt,
            [](I a, I b, I, int bits) { return I(std::min(unsig(a, bits), unsig(b, bits))); }),
      intOp("umax", 2, kInt,
            [](I a, I b, I, int bits) { return I(std::max(unsig(a, bits), unsig(b, bits))); }),
      numOp(
          "neg", 1, [](I a, I, I, int) { return I(0 - u(a)); },
          floatRef([](auto a, auto, auto) { return -a; })),
      numOp(
          "abs", 1, [](I a, I, I, int) { return a < 0 ? I(0 - u(a)) : a; },
          floatRef([](auto a, auto, auto) { return std::fabs(a); })),
      intOp("not", 1, logic, [](I a, I, I, int) { return ~a; }),
      // f16/bf16 fma computes in f32 and rounds to the element type: two roundings,
      // which the docs allow, so a result one ulp away from the single rounding passes.
      {"fma", 3, kFloat, false, false, nullptr,
       floatRef([](auto a, auto b, auto c) { return std::fma(a, b, c); }), Domain::Any,
       Tolerance::Exact, Tolerance::OneUlp},
      {"select", 3, kInt | kBool | kFloat, false, true,
       [](I c, I a, I b, int) { return c ? a : b; },
       floatRef([](auto c, auto a, auto b) { return c != 0 ? a : b; })},
  };
  // C's comparisons: false on NaN except `ne`.
  const char *preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (int p = 0; p < 6; ++p) {
    auto cmp = [p](auto a, auto b, auto) {
      bool r[] = {(a == b), (a != b), (a < b), (a <= b), (a > b), (a >= b)};
      return decltype(a)(r[p] ? 1 : 0);
    };
    OpDef op = numOp(
        std::string("cmp ") + preds[p], 2, [cmp](I a, I b, I c, int) { return cmp(a, b, c); },
        floatRef(cmp));
    op.boolResult = true;
    ops.push_back(op);
  }
  const char *unsignedPreds[] = {"ult", "ule", "ugt", "uge"};
  for (int p = 0; p < 4; ++p) {
    OpDef op = intOp(std::string("cmp ") + unsignedPreds[p], 2, kInt, [p](I a, I b, I, int bits) {
      uint64_t x = unsig(a, bits), y = unsig(b, bits);
      bool r[] = {x<y, x <= y, x> y, x >= y};
      return I(r[p] ? 1 : 0);
    });
    op.boolResult = true;
    ops.push_back(op);
  }
  return ops;
}

const std::vector<OpDef> &ops() {
  static const std::vector<OpDef> all = makeOps();
  return all;
}

struct Case {
  const OpDef *op;
  DType type;
  int scalar; // operand given as a scalar kernel argument, kNone or kAll
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const OpDef &op : ops())
    for (DType t : allTypes()) {
      if (!(op.cats & catOf(t)))
        continue;
      all.push_back({&op, t, kNone});
      all.push_back({&op, t, kAll});
      for (int s = 0; op.arity > 1 && s < op.arity; ++s)
        all.push_back({&op, t, s});
    }
  return all;
}

std::string caseName(const testing::TestParamInfo<Case> &info) {
  std::string name = info.param.op->text + "_" + typeName(info.param.type) + "_" +
                     (info.param.scalar == kNone  ? std::string("blocks")
                      : info.param.scalar == kAll ? std::string("scalars")
                                                  : "scalar" + std::to_string(info.param.scalar));
  for (char &c : name)
    if (c == ' ')
      c = '_';
  return name;
}

class ElementwiseTest : public testing::TestWithParam<Case> {};

TEST_P(ElementwiseTest, MatchesReference) {
  const OpDef &op = *GetParam().op;
  DType t = GetParam().type;
  std::vector<DType> ins(op.arity, t);
  if (op.boolFirst)
    ins[0] = DType::I1;
  DType out = op.boolResult ? DType::I1 : t;
  std::string expr = op.text + " %a0";
  for (int k = 1; k < op.arity; ++k)
    expr += ", %a" + std::to_string(k);
  auto gen = [&](int k, std::mt19937_64 &rng) {
    return encode(ins[k], randomValue(ins[k], rng, k == 1 ? op.rhs : Domain::Any));
  };
  auto compute = [&](const std::vector<uint64_t> &bits) {
    Val a[3];
    for (size_t k = 0; k < bits.size(); ++k)
      a[k] = decode(ins[k], bits[k]);
    if (op.boolFirst && isFloat(t)) // select: the condition is an int
      a[0].f = double(a[0].i);
    if (!isFloat(t)) {
      int64_t r = op.intRef(a[0].i, a[1].i, a[2].i, bitsOf(t));
      return intVal(op.boolResult ? r : wrapInt(uint64_t(r), bitsOf(t)));
    }
    double r = t == DType::F64 ? op.floatRef.f64(a[0].f, a[1].f, a[2].f)
                               : op.floatRef.f32(float(a[0].f), float(a[1].f), float(a[2].f));
    return op.boolResult ? intVal(r != 0) : floatVal(r);
  };
  auto ref = [&](const std::vector<uint64_t> &bits) { return encode(out, compute(bits)); };
  bool half = t == DType::F16 || t == DType::BF16;
  runElementwise(elementwiseKernel(ins, GetParam().scalar, out, expr), ins, GetParam().scalar, out,
                 gen, ref, half ? op.halfTol : op.tol);
}

INSTANTIATE_TEST_SUITE_P(Ops, ElementwiseTest, testing::ValuesIn(cases()), caseName);

} // namespace

// Integer ops whose operands are all `const`: the compiler may fold them before code
// generation, and the folded value must equal what the op computes at run time
// (section 10.5, with constants read as section 10.2 defines them: `0xff : i8` is
// -1). Scalars and splat blocks take different paths (scalar folding, mask range
// analysis), so both are checked.
#include "Reference.h"

#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

struct Binary {
  const char *op;
  bool shift;
  int64_t (*ref)(int64_t, int64_t, int);
};

const Binary kOps[] = {
    {"add", false, [](int64_t a, int64_t b, int) { return int64_t(uint64_t(a) + uint64_t(b)); }},
    {"sub", false, [](int64_t a, int64_t b, int) { return int64_t(uint64_t(a) - uint64_t(b)); }},
    {"mul", false, [](int64_t a, int64_t b, int) { return int64_t(uint64_t(a) * uint64_t(b)); }},
    {"div", false,
     [](int64_t a, int64_t b, int) { return b == -1 ? int64_t(0 - uint64_t(a)) : a / b; }},
    {"rem", false, [](int64_t a, int64_t b, int) { return b == -1 ? 0 : a % b; }},
    {"min", false, [](int64_t a, int64_t b, int) { return std::min(a, b); }},
    {"max", false, [](int64_t a, int64_t b, int) { return std::max(a, b); }},
    {"and", false, [](int64_t a, int64_t b, int) { return a & b; }},
    {"or", false, [](int64_t a, int64_t b, int) { return a | b; }},
    {"xor", false, [](int64_t a, int64_t b, int) { return a ^ b; }},
    {"shl", true, [](int64_t a, int64_t b, int) { return int64_t(uint64_t(a) << b); }},
    {"ashr", true, [](int64_t a, int64_t b, int) { return a >> b; }},
    {"lshr", true,
     [](int64_t a, int64_t b, int bits) {
       return int64_t((uint64_t(a) & (bits == 64 ? ~0ULL : (1ULL << bits) - 1)) >> b);
     }},
};
const char *kPreds[] = {"eq", "ne", "lt", "le", "gt", "ge"};

bool compare(int p, int64_t a, int64_t b) {
  bool r[] = {a == b, a != b, a<b, a <= b, a> b, a >= b};
  return r[p];
}

/// A literal as written in .bir and the value it denotes in a `bits`-wide int.
struct Literal {
  std::string text;
  int64_t value;
};

std::vector<std::pair<Literal, Literal>> operandPairs(int bits) {
  int64_t min = wrapInt(uint64_t(1) << (bits - 1), bits), max = ~min;
  // Hex literals that set the sign bit denote negative values; i64's do not fit a
  // literal (at most 2^63 - 1), so it writes them as expressions.
  Literal ones = bits == 64 ? Literal{"-1", -1} : Literal{"0x" + std::string(bits / 4, 'f'), -1};
  Literal lowest = bits == 64 ? Literal{"-9223372036854775807 - 1", min}
                              : Literal{"0x8" + std::string(bits / 4 - 1, '0'), min};
  Literal highest{std::to_string(max), max};
  Literal two{"2", 2}, three{"3", 3}, minus7{"-7", -7}, hundred{"100", 100};
  return {{ones, two},     {lowest, ones},  {highest, highest}, {minus7, two},
          {three, minus7}, {lowest, three}, {hundred, hundred}, {two, ones}};
}

class FoldConstantsTest : public testing::TestWithParam<DType> {};

// One kernel per operand pair: every op on two scalar consts and on two splat
// blocks of the same values, each result to its own slot.
TEST_P(FoldConstantsTest, MatchesRunTimeSemantics) {
  DType t = GetParam();
  const char *ty = typeName(t);
  int bits = bitsOf(t);
  constexpr int kLanes = 16;
  for (const auto &pair : operandPairs(bits)) {
    const Literal &a = pair.first, &b = pair.second;
    std::ostringstream s;
    s << "kernel @k(%out: ptr<" << ty << ">, %flags: ptr<i1>) {\n"
      << "  %a = const " << a.text << " : " << ty << "\n  %b = const " << b.text << " : " << ty
      << "\n  %ba = const " << a.text << " : " << ty << "[" << kLanes << "]\n"
      << "  %bb = const " << b.text << " : " << ty << "[" << kLanes << "]\n"
      << "  %lanes = arange 1, " << kLanes + 1 << "\n";
    std::vector<int64_t> want;
    std::vector<bool> wantFlags;
    int slot = 0, flag = 0;
    auto emit = [&](const std::string &expr, const std::string &blockExpr, bool isFlag) {
      int &index = isFlag ? flag : slot;
      std::string id = std::to_string(index) + (isFlag ? "f" : "");
      s << "  %s" << id << " = " << expr << "\n"
        << "  %i" << id << " = const " << index * (kLanes + 1) << " : i32\n"
        << "  %p" << id << " = addptr " << (isFlag ? "%flags" : "%out") << ", %i" << id << "\n"
        << "  store %p" << id << ", %s" << id << "\n"
        << "  %v" << id << " = " << blockExpr << "\n"
        << "  %q" << id << " = addptr %p" << id << ", %lanes\n"
        << "  store %q" << id << ", %v" << id << "\n";
      ++index;
    };
    for (const Binary &op : kOps) {
      if (op.shift && (b.value < 0 || b.value >= bits))
        continue; // unspecified amount
      emit(std::string(op.op) + " %a, %b", std::string(op.op) + " %ba, %bb", false);
      want.push_back(wrapInt(uint64_t(op.ref(a.value, b.value, bits)), bits));
    }
    for (int p = 0; p < 6; ++p) {
      emit(std::string("cmp ") + kPreds[p] + " %a, %b",
           std::string("cmp ") + kPreds[p] + " %ba, %bb", true);
      wantFlags.push_back(compare(p, a.value, b.value));
    }
    s << "}\n";
    auto module = compileOrFail(s.str());
    ASSERT_TRUE(module);
    Buffer out(t, slot * (kLanes + 1)), flags(DType::I1, flag * (kLanes + 1));
    launch(module->kernels()[0], {1, 1, 1}, {out, flags});
    // Lane 0 of each slot is the scalar result, lanes 1.. the block's.
    auto check = [&](const Buffer &buf, int k, int64_t expected, const std::string &what) {
      for (int lane = 0; lane <= kLanes; ++lane) {
        int64_t got = buf.get(k * (kLanes + 1) + lane).i;
        if (got != expected) {
          ADD_FAILURE() << ty << " " << what << " of a=" << a.text << " b=" << b.text << " on "
                        << (lane ? "splat blocks" : "scalars") << ": expected " << expected
                        << ", got " << got;
          if (lane == 0)
            continue;
          return;
        }
      }
    };
    int k = 0;
    for (const Binary &op : kOps)
      if (!op.shift || (b.value >= 0 && b.value < bits))
        check(out, k, want[k], op.op), ++k;
    for (int p = 0; p < 6; ++p)
      check(flags, p, int64_t(wantFlags[p]), std::string("cmp ") + kPreds[p]);
  }
}

INSTANTIATE_TEST_SUITE_P(Ints, FoldConstantsTest,
                         testing::Values(DType::I8, DType::I16, DType::I32, DType::I64),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(typeName(info.param));
                         });

// A sum of constants that wraps must be compared as the wrapped value: 100 + 100
// is -56 in i8 and 30000 + 30000 is -5536 in i16, so `sum < 0` holds in every
// lane and the masked store writes all of them.
TEST(ConstantRanges, WrappedSumDecidesMask) {
  for (auto [type, value] : {std::pair<const char *, int>{"i8", 100}, {"i16", 30000}}) {
    std::ostringstream s;
    s << "kernel @k(%out: ptr<i32>) {\n"
      << "  %a = const " << value << " : " << type << "[16]\n"
      << "  %sum = add %a, %a\n  %zero = const 0 : " << type << "\n"
      << "  %neg = cmp lt %sum, %zero\n  %r = arange 0, 16\n"
      << "  %p = addptr %out, %r\n  store %p, %r, mask=%neg\n}\n";
    auto module = compileOrFail(s.str());
    ASSERT_TRUE(module);
    std::vector<int32_t> out(16, -1);
    launch(module->kernels()[0], {1, 1, 1}, {out});
    for (int i = 0; i < 16; ++i)
      if (out[i] != i) {
        ADD_FAILURE() << type << ": lane " << i << " not stored\n" << s.str();
        break;
      }
  }
}

} // namespace

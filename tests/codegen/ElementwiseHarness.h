//===- ElementwiseHarness.h - 1D elementwise kernels against C++ -*- C++ -*-===//
//
// Shared by the elementwise and cast tests: a generator of `out[i] = EXPR` kernels
// over n elements (BLOCK lanes a program, masked on n), random inputs biased toward
// edge values, and a runner that checks every element and the guard past n.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Reference.h"

#include <functional>
#include <sstream>

namespace blockc::test {

inline constexpr int kBlock = 256;
// 1 and 7 stay inside one strip, 1023 and 1025 end one element either side of a
// block boundary, 4097 needs 17 programs with a one-element last block.
inline const int kSizes[] = {1, 7, 1023, 1025, 4097};

/// Which values an operand may take: integer divisors exclude 0 (unspecified), shift
/// amounts stay below the width (beyond it the result is unspecified).
enum class Domain { Any, NonZero, ShiftAmount };

/// A random element of `t` biased toward the values where code goes wrong: limits,
/// zeros of both signs, infinities, NaN, subnormals, and random bit patterns.
inline Val randomValue(DType t, std::mt19937_64 &rng, Domain domain = Domain::Any) {
  int bits = bitsOf(t);
  std::uniform_int_distribution<int> pick(0, 99);
  int p = pick(rng);
  if (domain == Domain::ShiftAmount)
    return intVal(int64_t(rng() % unsigned(bits)));
  if (isBool(t))
    return intVal(int64_t(rng() & 1));
  if (isInt(t)) {
    int64_t lo = wrapInt(uint64_t(1) << (bits - 1), bits), hi = ~lo;
    const int64_t special[] = {0, 1, -1, 2, -2, lo, hi, lo + 1, hi - 1};
    int64_t v = p < 25   ? special[rng() % 9]
                : p < 60 ? int64_t(rng() % 201) - 100
                         : wrapInt(rng(), bits);
    return intVal(domain == Domain::NonZero && v == 0 ? 3 : v);
  }
  FloatFormat f = formatOf(t);
  int bias = (1 << (f.exp - 1)) - 1;
  const double special[] = {0.0,
                            -0.0,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1.0,
                            -1.0,
                            std::ldexp(1.0, 1 - bias - f.man),
                            std::ldexp(1.0, 1 - bias),
                            std::ldexp(2.0 - std::ldexp(1.0, -f.man), bias)};
  if (p < 15)
    return floatVal(special[rng() % 10]);
  if (p < 60)
    return floatVal(roundTo(t, std::uniform_real_distribution<double>(-1000, 1000)(rng)));
  uint64_t raw = bits == 64 ? rng() : rng() & ((uint64_t(1) << bits) - 1);
  return decode(t, raw);
}

/// `scalar` names the operand passed as a scalar kernel argument: an index, kNone
/// (every operand a block) or kAll (every operand a scalar; the result, a scalar,
/// is broadcast by the store).
inline constexpr int kNone = -1, kAll = -2;
inline bool isScalarOperand(int scalar, size_t k) {
  return scalar == kAll || scalar == int(k);
}

/// A kernel over `ins` (a block pointer each, or a scalar argument where `scalar`
/// is set) computing `%v = EXPR` with operands %a0, %a1, ..., stored to `out`.
inline std::string elementwiseKernel(const std::vector<DType> &ins, int scalar, DType out,
                                     const std::string &expr) {
  std::ostringstream params, loads;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (isScalarOperand(scalar, i)) {
      params << "%a" << i << ": " << typeName(ins[i]) << ", ";
      continue;
    }
    params << "%p" << i << ": ptr<" << typeName(ins[i]) << ">, ";
    loads << "  %q" << i << " = addptr %p" << i << ", %offs\n"
          << "  %a" << i << " = load %q" << i << ", mask=%m\n";
  }
  std::ostringstream s;
  s << "constexpr BLOCK: i32 = " << kBlock << "\n"
    << "kernel @k(" << params.str() << "%out: ptr<" << typeName(out) << ">, %n: i32) {\n"
    << "  %pid = program_id 0\n  %bs = const BLOCK : i32\n  %start = mul %pid, %bs\n"
    << "  %r = arange 0, BLOCK\n  %offs = add %start, %r\n  %m = cmp lt %offs, %n\n"
    << loads.str() << "  %v = " << expr << "\n"
    << "  %po = addptr %out, %offs\n  store %po, %v, mask=%m\n}\n";
  return s.str();
}

/// Encoded elements: a generator gives operand k's next input, a reference maps
/// the inputs of one lane to its expected result.
using InputGen = std::function<uint64_t(int k, std::mt19937_64 &)>;
using LaneRef = std::function<uint64_t(const std::vector<uint64_t> &)>;

/// Runs `source` for every size with inputs from `gen` and checks every element
/// (and that nothing past n was written) against `ref`.
inline void runElementwise(const std::string &source, const std::vector<DType> &ins, int scalar,
                           DType out, const InputGen &gen, const LaneRef &ref, Tolerance tol) {
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(12345);
  const uint64_t sentinel = 0x5a5a5a5a5a5a5a5aULL;
  for (int n : kSizes) {
    std::vector<Buffer> inputs;
    std::vector<uint64_t> scalarBits(ins.size());
    for (size_t k = 0; k < ins.size(); ++k) {
      inputs.emplace_back(ins[k], n);
      if (isScalarOperand(scalar, k))
        scalarBits[k] = gen(int(k), rng);
      else
        for (int i = 0; i < n; ++i)
          inputs[k].setBits(i, gen(int(k), rng));
    }
    Buffer result(out, n);
    result.fillBits(sentinel);
    std::vector<Arg> args;
    for (size_t k = 0; k < ins.size(); ++k)
      args.push_back(isScalarOperand(scalar, k) ? scalarArg(ins[k], scalarBits[k])
                                                : Arg(inputs[k]));
    args.push_back(result);
    args.push_back(n);
    launch(module->kernels()[0], {cdiv(n, kBlock), 1, 1}, args);
    int failures = 0;
    for (int i = 0; i < n && failures < 5; ++i) {
      std::vector<uint64_t> lane;
      std::string shown;
      for (size_t k = 0; k < ins.size(); ++k) {
        lane.push_back(isScalarOperand(scalar, k) ? scalarBits[k] : inputs[k].bits(i));
        shown += " " + describe(ins[k], lane.back());
      }
      uint64_t want = ref(lane), got = result.bits(i);
      if (!matches(out, want, got, tol)) {
        ++failures;
        ADD_FAILURE() << "n=" << n << " i=" << i << " inputs:" << shown << "\n  expected "
                      << describe(out, want) << "\n  got      " << describe(out, got) << "\n"
                      << source;
      }
    }
    uint64_t untouched = sentinel & (bitsOf(out) == 64 ? ~0ULL : (1ULL << (8 * bytesOf(out))) - 1);
    for (size_t i = n; i < result.capacity(); ++i)
      ASSERT_EQ(result.bits(i), untouched) << "wrote past n=" << n << " at " << i;
  }
}

} // namespace blockc::test

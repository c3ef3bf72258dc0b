//===- ExampleTesting.h - What the tests of examples/ share -----*- C++ -*-===//
//
// Tolerances come from the f32 error bounds of what each kernel computes
// (u = 2^-24, the unit roundoff of f32): a sum of k terms in any order, with or
// without fma, is within gamma_k = k*u/(1 - k*u) times the sum of the terms'
// magnitudes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Reference.h"

#include <fstream>
#include <sstream>

namespace blockc::test {

constexpr double kU = 1.0 / (1 << 24);

inline double gammaK(double k) {
  return k * kU / (1 - k * kU);
}

/// The text of examples/NAME.bir.
inline std::string example(const std::string &name) {
  std::ifstream in(std::string(BLOCKC_EXAMPLES_DIR) + "/" + name + ".bir");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

inline std::vector<float> randomFloats(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// What output padding holds before a launch, and must hold after it.
constexpr float kUntouched = -777.f;

} // namespace blockc::test

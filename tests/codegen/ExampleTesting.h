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

#include <algorithm>
#include <cmath>
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

/// softmax of `x[0 .. cols)` in double, from x - max formed in f32 as the
/// kernels form it (so exp's inputs are the kernels' own).
inline std::vector<double> softmaxReference(const float *x, int cols) {
  float mx = *std::max_element(x, x + cols);
  std::vector<double> e(cols);
  double sum = 0;
  for (int j = 0; j < cols; ++j) {
    float d = x[j] - mx;
    sum += e[j] = std::exp(double(d));
  }
  for (double &v : e)
    v /= sum;
  return e;
}

/// What output padding holds before a launch, and must hold after it.
constexpr float kUntouched = -777.f;

} // namespace blockc::test

// The IME model (ImeModel.h) against plain integer matrix products: one
// instruction of each signedness, the sliding forms, and a 12 x 16 x K tile
// built from 4 x 4 x 8 instructions over operands packed the way an IME
// micro-kernel packs them (A in 4-row blocks of 8 columns, B in 4-column
// blocks of 8 rows, each column's 8 values contiguous), with K not a
// multiple of 8 padded with zeros.
#include "ImeModel.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace blockc::test::ime;

namespace {

Register randomRegister(std::mt19937 &rng) {
  Register r;
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t &b : r)
    b = uint8_t(byte(rng));
  return r;
}

TEST(ImeModel, OneInstructionOfEachSignedness) {
  std::mt19937 rng(1);
  for (Signs signs : {Signs::SignedSigned, Signs::UnsignedUnsigned, Signs::SignedUnsigned,
                      Signs::UnsignedSigned}) {
    bool aSigned = signs == Signs::SignedSigned || signs == Signs::SignedUnsigned;
    bool bSigned = signs == Signs::SignedSigned || signs == Signs::UnsignedSigned;
    Register a = randomRegister(rng), b = randomRegister(rng);
    Accumulator c;
    for (int i = 0; i < kM * kN; ++i)
      c[i] = i * 1000 - 7000;
    Accumulator before = c;
    vmadot(c, a, b, signs);
    for (int m = 0; m < kM; ++m)
      for (int n = 0; n < kN; ++n) {
        int64_t want = before[m * kN + n];
        for (int k = 0; k < kK; ++k) {
          int64_t x = aSigned ? int8_t(a[m * kK + k]) : a[m * kK + k];
          int64_t y = bSigned ? int8_t(b[n * kK + k]) : b[n * kK + k];
          want += x * y;
        }
        EXPECT_EQ(c[m * kN + n], want) << "signs " << int(signs) << " C[" << m << "][" << n << "]";
      }
  }
}

TEST(ImeModel, SlidingFormsTakeLaterRowsOfTheRegisterPair) {
  std::mt19937 rng(2);
  Register a = randomRegister(rng), aNext = randomRegister(rng), b = randomRegister(rng);
  for (int slide = 1; slide <= 3; ++slide) {
    Accumulator slid{}, shifted{};
    vmadot(slid, a, b, Signs::SignedSigned, slide, &aNext);
    // The same rows, moved into a register of their own, through the plain form.
    Register window;
    for (int i = 0; i < kRegisterBytes; ++i) {
      int index = slide * kK + i;
      window[i] = index < kRegisterBytes ? a[index] : aNext[index - kRegisterBytes];
    }
    vmadot(shifted, window, b, Signs::SignedSigned);
    EXPECT_EQ(slid, shifted) << "slide " << slide;
  }
}

TEST(ImeModel, TwelveBySixteenTileFromPackedOperands) {
  constexpr int kTileM = 12, kTileN = 16;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> value(-128, 127);
  for (int depth : {1, 8, 13, 64}) {
    std::vector<int8_t> a(size_t(kTileM) * depth), b(size_t(depth) * kTileN);
    for (int8_t &x : a)
      x = int8_t(value(rng));
    for (int8_t &x : b)
      x = int8_t(value(rng));
    std::vector<Accumulator> acc(size_t(kTileM / kM) * (kTileN / kN), Accumulator{});
    for (int k0 = 0; k0 < depth; k0 += kK) {
      auto at = [&](const std::vector<int8_t> &v, int row, int col, int cols, int rows) {
        return row < rows && col < cols ? uint8_t(v[size_t(row) * cols + col]) : uint8_t(0);
      };
      for (int mt = 0; mt < kTileM / kM; ++mt)
        for (int nt = 0; nt < kTileN / kN; ++nt) {
          Register aPacked, bPacked;
          for (int i = 0; i < kM; ++i)
            for (int k = 0; k < kK; ++k)
              aPacked[i * kK + k] = k0 + k < depth ? at(a, mt * kM + i, k0 + k, depth, kTileM) : 0;
          for (int j = 0; j < kN; ++j)
            for (int k = 0; k < kK; ++k)
              bPacked[j * kK + k] = k0 + k < depth ? at(b, k0 + k, nt * kN + j, kTileN, depth) : 0;
          vmadot(acc[size_t(mt) * (kTileN / kN) + nt], aPacked, bPacked, Signs::SignedSigned);
        }
    }
    for (int m = 0; m < kTileM; ++m)
      for (int n = 0; n < kTileN; ++n) {
        int32_t want = 0;
        for (int k = 0; k < depth; ++k)
          want += int32_t(a[size_t(m) * depth + k]) * int32_t(b[size_t(k) * kTileN + n]);
        const Accumulator &block = acc[size_t(m / kM) * (kTileN / kN) + n / kN];
        ASSERT_EQ(block[(m % kM) * kN + n % kN], want)
            << "K=" << depth << " C[" << m << "][" << n << "]";
      }
  }
}

} // namespace

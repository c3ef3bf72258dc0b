//===- ImeModel.h - What SpacemiT's smt.vmadot computes, in C++ -*- C++ -*-===//
//
// QEMU cannot execute the IME, so code that uses it is checked against this
// model: the instruction's arithmetic on the bytes of its registers, at VLEN
// 256, as SpacemiT's IME specification defines it (docs/k1.md, section 6).
// The model works on register images, not matrices, so that a test feeds it
// exactly the packed operands the generated code would load.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>

namespace blockc::test::ime {

/// VLEN 256: one vector register is 32 bytes.
constexpr int kRegisterBytes = 32;
/// One instruction's tile: C[kM x kN] += A[kM x kK] * B[kK x kN].
constexpr int kM = 4, kN = 4, kK = 8;

/// The signedness of A (vs1) and B (vs2): vmadot, vmadotu, vmadotsu, vmadotus.
enum class Signs { SignedSigned, UnsignedUnsigned, SignedUnsigned, UnsignedSigned };

using Register = std::array<uint8_t, kRegisterBytes>;
/// The register pair vd, vd+1: sixteen i32, row-major 4 x 4.
using Accumulator = std::array<int32_t, kM * kN>;

inline int32_t element(uint8_t byte, bool isSigned) {
  return isSigned ? int32_t(int8_t(byte)) : int32_t(byte);
}

/// `smt.vmadot{,u,su,us} vd, vs1, vs2` when `slide` is 0, and the sliding
/// `smt.vmadot{1,2,3}*` otherwise: A's rows are rows slide .. slide + 3 of the
/// eight held by vs1 and vs1 + 1 (`a` and `aNext`). vs1 holds A row-major
/// (A[m][k] is byte 8m + k), vs2 holds B by columns (B[k][n] is byte 8n + k).
/// The sum wraps modulo 2^32, as the 32-bit accumulator does.
inline void vmadot(Accumulator &c, const Register &a, const Register &b, Signs signs, int slide = 0,
                   const Register *aNext = nullptr) {
  bool aSigned = signs == Signs::SignedSigned || signs == Signs::SignedUnsigned;
  bool bSigned = signs == Signs::SignedSigned || signs == Signs::UnsignedSigned;
  auto aByte = [&](int row, int k) {
    int index = row * kK + k;
    return index < kRegisterBytes ? a[index] : (*aNext)[index - kRegisterBytes];
  };
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      uint32_t sum = uint32_t(c[m * kN + n]);
      for (int k = 0; k < kK; ++k)
        sum += uint32_t(element(aByte(slide + m, k), aSigned) * element(b[n * kK + k], bSigned));
      c[m * kN + n] = int32_t(sum);
    }
}

} // namespace blockc::test::ime

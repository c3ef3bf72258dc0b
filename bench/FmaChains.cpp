//===- FmaChains.cpp - Independent FMA chains, one vector width -----------===//
//
// Compiled twice by bench/CMakeLists.txt, for AVX-512 (FMA_CHAINS_NAME
// fmaChainsZmm) and for AVX2 + FMA (fmaChainsYmm): each object holds only its
// own instruction set, which FmaProbe.cpp calls after checking the CPU has it.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <immintrin.h>

#if defined(__AVX512F__)
using Vector = __m512;
constexpr int kChains = 24; // of 32 registers
#define SPLAT _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#else
using Vector = __m256;
constexpr int kChains = 12; // of 16 registers
#define SPLAT _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#endif

/// Runs kChains independent FMA chains (enough to cover the FMA latency of
/// any core, few enough to stay in registers) `steps` times; returns their
/// sum, so that none is dead code, and the flops of one step.
extern "C" float FMA_CHAINS_NAME(int64_t steps, int64_t *flopsPerStep) {
  *flopsPerStep = kChains * int64_t(sizeof(Vector) / sizeof(float)) * 2;
  Vector chains[kChains];
  for (int i = 0; i < kChains; ++i)
    chains[i] = SPLAT(float(i) * 1e-3f);
  Vector scale = SPLAT(0.999f), offset = SPLAT(1e-6f);
  for (int64_t step = 0; step < steps; ++step) {
    for (int i = 0; i < kChains; ++i)
      chains[i] = FMA(scale, chains[i], offset);
    // The scale is unknown to the optimizer each step: nothing folds.
    asm volatile("" : "+v"(scale));
  }
  Vector sum = chains[0];
  for (int i = 1; i < kChains; ++i)
    sum = ADD(sum, chains[i]);
  float lanes[sizeof(Vector) / sizeof(float)];
  __builtin_memcpy(lanes, &sum, sizeof lanes);
  float total = 0;
  for (float lane : lanes)
    total += lane;
  return total;
}

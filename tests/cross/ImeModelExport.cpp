//===- ImeModelExport.cpp - smt.vmadot's model, for ime-model kernels -----===//
//
// Kernels compiled with --dot-strategy=ime-model call this function where the
// IME strategy executes smt.vmadot, with the images of the instruction's
// registers in memory. The runner exports it (-rdynamic) so that the kernel
// libraries it loads resolve it: the IME's code runs under QEMU with the
// instruction's arithmetic from the same model its own tests check.
//
//===----------------------------------------------------------------------===//
#include "../codegen/ImeModel.h"

#include <cstring>

using namespace blockc::test::ime;

// NOLINTNEXTLINE(readability-identifier-naming): a C symbol kernels call.
extern "C" void blockc_ime_vmadot_model(int32_t *accumulator, const uint8_t *a, const uint8_t *b,
                                        int32_t signs) {
  Accumulator c;
  Register aRegister, bRegister;
  std::memcpy(c.data(), accumulator, sizeof c);
  std::memcpy(aRegister.data(), a, sizeof aRegister);
  std::memcpy(bRegister.data(), b, sizeof bRegister);
  vmadot(c, aRegister, bRegister, static_cast<Signs>(signs));
  std::memcpy(accumulator, c.data(), sizeof c);
}

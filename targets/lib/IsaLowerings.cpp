//===- IsaLowerings.cpp - The one factory of ISA lowerings ----------------===//
//
// The only file that knows which ISAs exist: adding one is a folder with the
// same files as targets/x86 and a line here.
//
//===----------------------------------------------------------------------===//
#include "blockc/targets/IsaLowerings.h"

#include "blockc/aarch64/IsaLowering.h"
#include "blockc/riscv/IsaLowering.h"
#include "blockc/x86/IsaLowering.h"

#include <mutex>

namespace blockc {

void registerIsaLowerings() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerIsaLowering(Arch::X86_64, x86::makeIsaLowering);
    registerIsaLowering(Arch::AArch64, aarch64::makeIsaLowering);
    registerIsaLowering(Arch::RISCV64, riscv::makeIsaLowering);
  });
}

} // namespace blockc

//===- IsaLowering.cpp - The one factory of ISA lowerings -----------------===//
//
// The only file of lowering/ that knows which ISAs exist: adding one is a
// folder with the same files as targets/x86 and a line here.
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/IsaLowering.h"

#include "aarch64/IsaLowering.h"
#include "riscv/IsaLowering.h"
#include "x86/IsaLowering.h"

namespace blockc {

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  switch (target.arch) {
  case Arch::X86_64:
    return x86::makeIsaLowering(target);
  case Arch::AArch64:
    return aarch64::makeIsaLowering(target);
  case Arch::RISCV64:
    return riscv::makeIsaLowering(target);
  }
  return nullptr;
}

} // namespace blockc

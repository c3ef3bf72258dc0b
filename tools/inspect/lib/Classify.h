//===- Classify.h - Sorting instructions into the report's categories -*- C++ -*-===//
//
// One set of rules per ISA, on the instruction as LLVM's printer writes it
// (mnemonic and operands) and the facts its descriptor gives (loads, stores,
// calls, branches). Text rules read the way the ISA manuals name things, and
// work the same for every compiler's code.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/inspect/Inspect.h"

#include <set>
#include <string>

namespace blockc::inspect {

enum class Isa { X86, AArch64, RiscV };

struct InstructionFacts {
  std::string mnemonic, operands;
  bool mayLoad = false, mayStore = false, isCall = false, isBranch = false, isReturn = false;
  /// A branch that may fall through to the next instruction.
  bool isConditional = false;
};

struct Classification {
  Category category = Category::Scalar;
  /// The vector width the instruction works at (empty for scalar code).
  std::string width;
  bool spill = false, reload = false;
};

/// What RISC-V code has set up before an instruction, as far as the
/// instructions so far (in address order) say.
struct RiscvState {
  /// The vector type RVV instructions run at, as the last vsetvli set it.
  std::string vtype = "e?,m?";
  /// Scalar registers holding an address in the stack frame, computed from
  /// sp (LLVM's spill slots: `csrr vlenb`, scaled, `add a2, a2, sp`). A
  /// whole-register load or store through one is a spill or reload; through
  /// any other register it moves data (LLVM's unmasked VLMAX loads and
  /// stores are whole-register too).
  std::set<std::string> stackAddresses;
  /// Follows `facts`; returns whether it was a vsetvli.
  bool update(const InstructionFacts &facts);
  /// Whether the memory operand of `operands`, `(reg)`, is in the stack.
  bool addressesStack(const std::string &operands) const;
};

Classification classify(Isa isa, const InstructionFacts &facts, const RiscvState &riscv);

} // namespace blockc::inspect

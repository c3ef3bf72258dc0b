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

/// The vector type RVV instructions run at, as the last vsetvli set it.
struct RiscvVectorType {
  std::string text = "e?,m?";
  /// Reads `facts` when it is a vsetvli; returns whether it was one.
  bool update(const InstructionFacts &facts);
};

Classification classify(Isa isa, const InstructionFacts &facts, const RiscvVectorType &vtype);

} // namespace blockc::inspect

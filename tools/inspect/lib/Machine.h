//===- Machine.h - LLVM's view of one architecture, for inspect -*- C++ -*-===//
#pragma once

#include "Classify.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace blockc::inspect {

/// The MC layer of one architecture and CPU: disassembler, printer,
/// analysis and the scheduling model's subtarget.
struct Machine {
  Isa isa;
  llvm::Triple triple;
  std::string cpu;
  const llvm::Target *target = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCInstrAnalysis> analysis;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  llvm::MCTargetOptions options;

  /// The machine for `triple`, or nothing with the reason in `error`.
  static std::unique_ptr<Machine> create(const llvm::Triple &triple, const std::string &cpu,
                                         const std::string &features, std::string &error);

  /// The instruction's mnemonic and operands as LLVM prints them, and what
  /// its descriptor says.
  InstructionFacts facts(const llvm::MCInst &inst, uint64_t address) const;
};

/// One decoded instruction.
struct Decoded {
  uint64_t address = 0;
  uint64_t size = 0;
  llvm::MCInst inst;
  InstructionFacts facts;
  /// Where a direct branch or call goes.
  std::optional<uint64_t> target;
};

} // namespace blockc::inspect

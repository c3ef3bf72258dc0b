//===- Machine.cpp - LLVM's view of one architecture, for inspect ---------===//
#include "Machine.h"

#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

namespace blockc::inspect {

namespace {

/// Defaults that decode every vector and matrix extension of the
/// architecture, and schedule with the model of the CPU blockc's users
/// most often inspect code for (docs/inspect.md).
struct ArchDefaults {
  Isa isa;
  const char *cpu;
  const char *features;
};

std::optional<ArchDefaults> defaultsFor(const llvm::Triple &triple) {
  switch (triple.getArch()) {
  case llvm::Triple::x86_64:
    return ArchDefaults{Isa::X86, "sapphirerapids", ""};
  case llvm::Triple::aarch64:
    return ArchDefaults{Isa::AArch64, "neoverse-v1", "+all"};
  case llvm::Triple::riscv64:
    return ArchDefaults{Isa::RiscV, "spacemit-x60", "+xsmtvdot"};
  default:
    return std::nullopt;
  }
}

std::string trim(const std::string &s) {
  size_t begin = s.find_first_not_of(" \t"), end = s.find_last_not_of(" \t");
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

} // namespace

std::unique_ptr<Machine> Machine::create(const llvm::Triple &triple, const std::string &cpu,
                                         const std::string &features, std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllDisassemblers();
    llvm::InitializeAllTargetMCAs();
  });
  std::optional<ArchDefaults> defaults = defaultsFor(triple);
  if (!defaults) {
    error = "the object is for " + triple.getArchName().str() +
            "; inspect reads x86-64, AArch64 and RISC-V (riscv64)";
    return nullptr;
  }
  auto machine = std::make_unique<Machine>();
  machine->isa = defaults->isa;
  machine->triple = triple;
  machine->cpu = cpu.empty() ? defaults->cpu : cpu;
  std::string lookupError;
  machine->target = llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!machine->target) {
    error = "LLVM was built without " + triple.getArchName().str() + ": " + lookupError;
    return nullptr;
  }
  const llvm::Target &t = *machine->target;
  machine->registers.reset(t.createMCRegInfo(triple));
  machine->asmInfo.reset(t.createMCAsmInfo(*machine->registers, triple, machine->options));
  std::string allFeatures = features.empty() ? defaults->features : features;
  machine->subtarget.reset(t.createMCSubtargetInfo(triple, machine->cpu, allFeatures));
  machine->instructions.reset(t.createMCInstrInfo());
  if (!machine->registers || !machine->asmInfo || !machine->subtarget || !machine->instructions) {
    error = "LLVM cannot describe " + triple.str() + " for CPU '" + machine->cpu + "'";
    return nullptr;
  }
  if (!machine->subtarget->isCPUStringValid(machine->cpu)) {
    error = "unknown CPU '" + machine->cpu + "' for " + triple.getArchName().str();
    return nullptr;
  }
  machine->analysis.reset(t.createMCInstrAnalysis(machine->instructions.get()));
  machine->context = std::make_unique<llvm::MCContext>(
      triple, machine->asmInfo.get(), machine->registers.get(), machine->subtarget.get());
  machine->disassembler.reset(t.createMCDisassembler(*machine->subtarget, *machine->context));
  machine->printer.reset(t.createMCInstPrinter(triple, machine->asmInfo->getAssemblerDialect(),
                                               *machine->asmInfo, *machine->instructions,
                                               *machine->registers));
  if (!machine->analysis || !machine->disassembler || !machine->printer) {
    error = "LLVM has no disassembler for " + triple.str();
    return nullptr;
  }
  return machine;
}

InstructionFacts Machine::facts(const llvm::MCInst &inst, uint64_t address) const {
  InstructionFacts f;
  std::string text;
  llvm::raw_string_ostream out(text);
  printer->printInst(&inst, address, "", *subtarget, out);
  text = trim(text);
  size_t space = text.find_first_of(" \t");
  f.mnemonic = text.substr(0, space);
  f.operands = space == std::string::npos ? "" : trim(text.substr(space));
  const llvm::MCInstrDesc &desc = instructions->get(inst.getOpcode());
  f.mayLoad = desc.mayLoad();
  f.mayStore = desc.mayStore();
  f.isCall = analysis->isCall(inst);
  f.isReturn = analysis->isReturn(inst);
  f.isBranch = !f.isCall && !f.isReturn &&
               (analysis->isBranch(inst) || analysis->isUnconditionalBranch(inst) ||
                analysis->isIndirectBranch(inst));
  f.isConditional = f.isBranch && analysis->isConditionalBranch(inst);
  return f;
}

} // namespace blockc::inspect

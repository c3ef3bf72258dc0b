//===- Inspect.cpp - Functions, loops and their instruction mix -----------===//
#include "Estimate.h"
#include "Loops.h"
#include "Machine.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <map>
#include <set>

namespace blockc::inspect {

namespace {

std::string hex(uint64_t address) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format_hex(address, 2);
  return text;
}

struct FunctionSymbol {
  std::string name;
  uint64_t address, size;
  llvm::object::SectionRef section;
};

/// What calls in one section go to: relocations by the offset they patch.
std::map<uint64_t, std::string> relocationTargets(const llvm::object::SectionRef &section) {
  std::map<uint64_t, std::string> targets;
  const llvm::object::ObjectFile &object = *section.getObject();
  for (const llvm::object::SectionRef &candidate : object.sections()) {
    llvm::Expected<llvm::object::section_iterator> relocated = candidate.getRelocatedSection();
    if (!relocated) {
      llvm::consumeError(relocated.takeError());
      continue;
    }
    if (*relocated == object.section_end() || **relocated != section)
      continue;
    for (const llvm::object::RelocationRef &relocation : candidate.relocations()) {
      llvm::object::symbol_iterator symbol = relocation.getSymbol();
      if (symbol == object.symbol_end())
        continue;
      if (llvm::Expected<llvm::StringRef> name = symbol->getName())
        targets[relocation.getOffset()] = name->str();
      else
        llvm::consumeError(name.takeError());
    }
  }
  return targets;
}

/// Names of addresses a linked object calls: its functions and its PLT.
std::map<uint64_t, std::string> addressNames(const llvm::object::ObjectFile &object,
                                             const std::vector<FunctionSymbol> &functions,
                                             const Machine &machine) {
  std::map<uint64_t, std::string> names;
  for (const FunctionSymbol &f : functions)
    names[f.address] = f.name;
  if (auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(&object))
    for (const llvm::object::ELFPltEntry &entry : elf->getPltEntries(*machine.subtarget)) {
      if (!entry.Symbol)
        continue;
      llvm::object::SymbolRef symbol(*entry.Symbol, elf);
      if (llvm::Expected<llvm::StringRef> name = symbol.getName())
        names[entry.Address] = name->str() + "@plt";
      else
        llvm::consumeError(name.takeError());
    }
  return names;
}

std::vector<FunctionSymbol> functionSymbols(const llvm::object::ObjectFile &object) {
  std::vector<FunctionSymbol> functions;
  for (const llvm::object::SymbolRef &symbol : object.symbols()) {
    llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    llvm::Expected<uint64_t> address = symbol.getAddress();
    llvm::Expected<llvm::object::section_iterator> section = symbol.getSection();
    if (!type || !name || !address || !section) {
      llvm::consumeError(type.takeError());
      llvm::consumeError(name.takeError());
      llvm::consumeError(address.takeError());
      llvm::consumeError(section.takeError());
      continue;
    }
    if (*type != llvm::object::SymbolRef::ST_Function || *section == object.section_end() ||
        !(*section)->isText())
      continue;
    uint64_t size = llvm::object::ELFSymbolRef(symbol).getSize();
    if (size == 0 || name->empty())
      continue;
    functions.push_back({name->str(), *address, size, **section});
  }
  std::sort(functions.begin(), functions.end(), [](const auto &a, const auto &b) {
    return std::tie(a.section, a.address, a.name) < std::tie(b.section, b.address, b.name);
  });
  // Aliases (the same code under two names) are read once.
  functions.erase(std::unique(functions.begin(), functions.end(),
                              [](const auto &a, const auto &b) {
                                return a.section == b.section && a.address == b.address;
                              }),
                  functions.end());
  return functions;
}

unsigned minimumInstructionSize(Isa isa) {
  return isa == Isa::X86 ? 1 : isa == Isa::RiscV ? 2 : 4;
}

std::vector<Decoded> decode(const Machine &machine, const FunctionSymbol &function,
                            llvm::ArrayRef<uint8_t> bytes, uint64_t sectionAddress) {
  std::vector<Decoded> code;
  uint64_t begin = function.address - sectionAddress;
  uint64_t end = std::min<uint64_t>(begin + function.size, bytes.size());
  for (uint64_t offset = begin; offset < end;) {
    Decoded d;
    d.address = function.address + (offset - begin);
    uint64_t size = 0;
    auto status = machine.disassembler->getInstruction(d.inst, size, bytes.slice(offset), d.address,
                                                       llvm::nulls());
    if (status != llvm::MCDisassembler::Success || size == 0) {
      offset += minimumInstructionSize(machine.isa);
      continue;
    }
    d.size = size;
    d.facts = machine.facts(d.inst, d.address);
    uint64_t target = 0;
    if ((d.facts.isBranch || d.facts.isCall) &&
        machine.analysis->evaluateBranch(d.inst, d.address, size, target))
      d.target = target;
    code.push_back(std::move(d));
    offset += size;
  }
  return code;
}

/// Adds one instruction to `summary`; `riscv` is what RISC-V code set up
/// before it.
void summarize(CodeSummary &summary, const Machine &machine, const Decoded &d,
               const RiscvState &riscv, const std::string &callee) {
  Classification c = classify(machine.isa, d.facts, riscv);
  summary.mix.add(c.category);
  if (!c.width.empty() && isVectorOrMatrix(c.category) &&
      c.category != Category::VectorConfiguration)
    ++summary.widths[c.width];
  summary.vectorSpills += c.spill;
  summary.vectorReloads += c.reload;
  if (c.category == Category::Call)
    ++summary.calls[callee];
}

/// The warnings of a function's report (docs/inspect.md lists them);
/// `computesDot` when the function is known to compute a dot.
std::vector<std::string> warningsFor(const FunctionReport &function, bool computesDot) {
  std::vector<std::string> warnings;
  // The hottest loop, statically: the deepest innermost loop, the largest
  // at equal depth.
  const LoopReport *hottest = nullptr;
  for (const LoopReport &loop : function.loops)
    if (loop.innermost &&
        (!hottest || loop.depth > hottest->depth ||
         (loop.depth == hottest->depth && loop.code.mix.total() > hottest->code.mix.total())))
      hottest = &loop;
  auto where = [](const LoopReport &loop) { return "loop " + std::to_string(loop.index); };
  if (hottest && hottest->code.mix.vectorOrMatrix() == 0)
    warnings.push_back("the hottest loop (" + where(*hottest) +
                       ") is scalar: no vector or matrix instruction");
  if (computesDot && hottest && hottest->code.mix[Category::VectorFma] == 0 &&
      hottest->code.mix[Category::Matrix] == 0)
    warnings.push_back("the function computes a dot, but its hottest loop (" + where(*hottest) +
                       ") has no FMA or matrix instruction");
  for (const LoopReport &loop : function.loops) {
    if (!loop.innermost)
      continue;
    unsigned gathers =
        loop.code.mix[Category::VectorGather] + loop.code.mix[Category::VectorScatter];
    if (gathers)
      warnings.push_back(where(loop) + " has " + std::to_string(gathers) +
                         " gathers or scatters: if its lanes are consecutive (a stride of 1 "
                         "the compiler could not see), a contiguous access is several times "
                         "faster");
    if (loop.code.vectorSpills || loop.code.vectorReloads)
      warnings.push_back(where(loop) + " spills " + std::to_string(loop.code.vectorSpills) +
                         " and reloads " + std::to_string(loop.code.vectorReloads) +
                         " vector registers");
  }
  return warnings;
}

} // namespace

std::optional<Report> inspectObject(const llvm::object::ObjectFile &object,
                                    const InspectOptions &options, std::string &error) {
  // Sizes of functions come from ELF symbols (an archive may hold other
  // formats).
  if (!llvm::isa<llvm::object::ELFObjectFileBase>(&object)) {
    error = "not an ELF object; inspect reads ELF objects and libraries";
    return std::nullopt;
  }
  std::unique_ptr<Machine> machine =
      Machine::create(object.makeTriple(), options.cpu, options.features, error);
  if (!machine)
    return std::nullopt;
  std::vector<FunctionSymbol> functions = functionSymbols(object);
  if (functions.empty()) {
    error = "no function symbols: inspect needs the symbol table to find functions (the file "
            "may be stripped)";
    return std::nullopt;
  }
  Report report;
  report.architecture = machine->triple.getArchName().str();
  report.cpu = machine->cpu;
  std::map<uint64_t, std::string> names = addressNames(object, functions, *machine);
  std::map<llvm::object::SectionRef, std::map<uint64_t, std::string>> relocations;
  for (const FunctionSymbol &function : functions) {
    if (!options.function.empty() && function.name.find(options.function) == std::string::npos)
      continue;
    llvm::Expected<llvm::StringRef> contents = function.section.getContents();
    if (!contents) {
      error =
          "cannot read the code of " + function.name + ": " + llvm::toString(contents.takeError());
      return std::nullopt;
    }
    auto found = relocations.find(function.section);
    if (found == relocations.end())
      found = relocations.emplace(function.section, relocationTargets(function.section)).first;
    const std::map<uint64_t, std::string> &relocated = found->second;
    uint64_t sectionAddress = function.section.getAddress();
    std::vector<Decoded> code =
        decode(*machine, function,
               llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(contents->data()),
                                       contents->size()),
               sectionAddress);
    // The callee of each call: a relocation in its bytes (RISC-V's auipc
    // just before its jalr), else the symbol or PLT entry at its target.
    auto calleeOf = [&](size_t i) -> std::string {
      const Decoded &d = code[i];
      uint64_t from = d.address - sectionAddress;
      if (i > 0 && machine->isa == Isa::RiscV)
        from = code[i - 1].address - sectionAddress;
      auto r = relocated.lower_bound(from);
      if (r != relocated.end() && r->first < d.address - sectionAddress + d.size)
        return r->second;
      if (d.target) {
        auto n = names.find(*d.target);
        return n != names.end() ? n->second : hex(*d.target);
      }
      return "(indirect)";
    };
    FunctionReport f;
    f.name = function.name;
    f.address = function.address;
    std::vector<RiscvState> states(code.size());
    RiscvState state;
    for (size_t i = 0; i < code.size(); ++i) {
      state.update(code[i].facts);
      states[i] = state;
      summarize(f.code, *machine, code[i], state,
                code[i].facts.isCall ? calleeOf(i) : std::string());
    }
    for (const Loop &loop : findLoops(code)) {
      LoopReport l;
      l.header = code[loop.body.front()].address;
      l.index = unsigned(f.loops.size());
      l.depth = loop.depth;
      l.innermost = loop.innermost;
      std::vector<const Decoded *> body;
      for (size_t i : loop.body) {
        summarize(l.code, *machine, code[i], states[i],
                  code[i].facts.isCall ? calleeOf(i) : std::string());
        body.push_back(&code[i]);
        if (options.keepListings)
          l.listing.push_back(hex(code[i].address) + ": " + code[i].facts.mnemonic + " " +
                              code[i].facts.operands);
      }
      if (loop.innermost) {
        // RVV's vtype on entry: the last vsetvli before the header.
        const llvm::MCInst *entryVtype = nullptr;
        for (size_t i = loop.body.front(); i-- > 0;)
          if (RiscvState().update(code[i].facts)) {
            entryVtype = &code[i].inst;
            break;
          }
        for (const std::vector<size_t> &indices : loop.paths) {
          std::vector<const Decoded *> path;
          for (size_t i : indices)
            path.push_back(&code[i]);
          std::optional<Estimate> e = estimateLoop(*machine, path, entryVtype);
          if (!e)
            continue;
          LoopReport::Path estimated{unsigned(path.size()), *e};
          if (!l.fastestPath || e->cyclesPerIteration < l.fastestPath->estimate.cyclesPerIteration)
            l.fastestPath = estimated;
          if (!l.slowestPath || e->cyclesPerIteration > l.slowestPath->estimate.cyclesPerIteration)
            l.slowestPath = estimated;
        }
        if (l.fastestPath) {
          l.paths = unsigned(loop.paths.size());
          l.estimate = l.fastestPath->estimate;
        } else {
          l.estimate = estimateLoop(*machine, body, entryVtype);
        }
      }
      f.loops.push_back(std::move(l));
    }
    f.warnings = warningsFor(f, std::find(options.dotFunctions.begin(), options.dotFunctions.end(),
                                          f.name) != options.dotFunctions.end());
    report.functions.push_back(std::move(f));
  }
  return report;
}

} // namespace blockc::inspect

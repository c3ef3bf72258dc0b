//===- Emit.cpp -----------------------------------------------------------===//
#include "blockc/lowering/Emit.h"

#include "blockc/lowering/Compiler.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <functional>
#include <mutex>

namespace blockc {

namespace {

/// Every kernel's prologue stays in its entry block. Kernels probe their stack inline
/// (CodeGen.cpp), and LLVM 22's x86 probe loop counts in R11 without asking whether R11
/// is live: where shrink-wrapping sinks the prologue below code that keeps a value in R11
/// (on AMD CPUs' tuning, attorch's batch-norm backward kept its loop's trip count there),
/// the probe overwrites it and the loop runs on past its end. What shrink-wrapping saves,
/// a few pushes on a path that returns early, is nothing to a kernel.
void disableShrinkWrapping() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto found = options.find("enable-shrink-wrap");
  if (found == options.end())
    return;
  static_cast<llvm::cl::opt<llvm::cl::boolOrDefault> *>(found->second)
      ->setValue(llvm::cl::BOU_FALSE);
}

} // namespace

void initializeLLVMTargets() {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    disableShrinkWrapping();
  });
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const Target &target, std::string &error) {
  initializeLLVMTargets();
  llvm::Triple triple(target.triple);
  std::string lookupError;
  const llvm::Target *backend = llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!backend) {
    error = "target '" + target.name + "': " + lookupError;
    return nullptr;
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(backend->createTargetMachine(
      triple, target.cpu, target.llvmFeatures, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = "target '" + target.name + "': LLVM cannot create a machine for " + target.triple;
  return machine;
}

namespace {

/// blockc keeps bf16 vectors as i16 bit patterns (CodeGen.h), but InstCombine
/// turns a splat of a bf16 scalar's bits back into an insertelement of the
/// bf16 scalar into a bf16 vector, which RISC-V cannot legalize for scalable
/// vectors without Zvfbfmin ("Scalarization of scalable vectors"). Such
/// inserts go back to their bits here.
void insertBF16AsBits(llvm::Module &module) {
  std::vector<llvm::InsertElementInst *> inserts;
  for (llvm::Function &fn : module)
    for (llvm::Instruction &inst : llvm::instructions(fn))
      if (auto *insert = llvm::dyn_cast<llvm::InsertElementInst>(&inst))
        if (llvm::isa<llvm::ScalableVectorType>(insert->getType()) &&
            insert->getType()->getElementType()->isBFloatTy())
          inserts.push_back(insert);
  for (llvm::InsertElementInst *insert : inserts) {
    llvm::IRBuilder<> b(insert);
    auto *bits = llvm::VectorType::get(b.getInt16Ty(), insert->getType()->getElementCount());
    llvm::Value *vector = b.CreateBitCast(insert->getOperand(0), bits);
    llvm::Value *scalar = b.CreateBitCast(insert->getOperand(1), b.getInt16Ty());
    llvm::Value *inserted = b.CreateInsertElement(vector, scalar, insert->getOperand(2));
    insert->replaceAllUsesWith(b.CreateBitCast(inserted, insert->getType()));
    insert->eraseFromParent();
  }
}

} // namespace

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  // blockc writes the vector code itself (DESIGN.md, principle 0): the loop
  // vectorizer would only widen the scalar loops over outer dimensions.
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
  insertBF16AsBits(module);
}

bool emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine, bool assembly,
                     std::string &out, std::string &error) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  auto kind = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, kind)) {
    error = "LLVM cannot emit this file type for " + machine.getTargetTriple().str();
    return false;
  }
  passes.run(module);
  out.assign(buffer.begin(), buffer.end());
  return true;
}

namespace {

// What every process running a kernel has: the C library and libm, and
// SLEEF, which the JIT loads and `.so` and AOT links name.
constexpr llvm::StringRef kMemoryFunctions[] = {"memcpy", "memmove", "memset"};
// libm: what LLVM's intrinsics become without a vector instruction, and the
// math functions a strip too narrow for any SLEEF variant falls back to.
constexpr llvm::StringRef kLibmFunctions[] = {
    "fmod",   "fmodf",   "fmin",      "fminf",      "fmax",  "fmaxf",  "fma",    "fmaf",
    "sqrt",   "sqrtf",   "floor",     "floorf",     "ceil",  "ceilf",  "trunc",  "truncf",
    "rint",   "rintf",   "nearbyint", "nearbyintf", "round", "roundf", "exp",    "expf",
    "exp2",   "exp2f",   "log",       "logf",       "log2",  "log2f",  "sin",    "sinf",
    "cos",    "cosf",    "tanh",      "tanhf",      "pow",   "powf",   "erf",    "erff",
    "asin",   "asinf",   "acos",      "acosf",      "atan",  "atanf",  "atan2",  "atan2f",
    "sinh",   "sinhf",   "cosh",      "coshf",      "tan",   "tanf",   "asinh",  "asinhf",
    "acosh",  "acoshf",  "atanh",     "atanhf",     "expm1", "expm1f", "log1p",  "log1pf",
    "log10",  "log10f",  "exp10",     "exp10f",     "cbrt",  "cbrtf",  "lgamma", "lgammaf",
    "tgamma", "tgammaf", "erfc",      "erfcf",      "j0",    "j0f",    "j1",     "j1f",
    "y0",     "y0f",     "y1",        "y1f",        "jn",    "jnf",    "yn",     "ynf"};

/// Calls `visit` with each symbol `object` leaves undefined; false with
/// `error` when the object cannot be read.
bool forEachUndefinedSymbol(const std::string &object, std::string &error,
                            const std::function<bool(llvm::StringRef)> &visit) {
  auto file =
      llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(object, "kernel object"));
  if (!file) {
    error = "internal error: cannot read the generated object: " + llvm::toString(file.takeError());
    return false;
  }
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    if (!flags || !(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    auto name = symbol.getName();
    if (name && !name->empty() && !visit(*name))
      break;
  }
  return true;
}

} // namespace

bool checkRuntimeSymbols(const std::string &object, const Target &target,
                         const std::vector<std::string_view> &processProvided, std::string &error) {
  bool ok = true;
  bool readable = forEachUndefinedSymbol(object, error, [&](llvm::StringRef name) {
    if (name.starts_with("Sleef_") || llvm::is_contained(kMemoryFunctions, name) ||
        llvm::is_contained(kLibmFunctions, name) || name == "_GLOBAL_OFFSET_TABLE_" ||
        name == kScratchArenaFunction || name == kPrintFunction || name == kPackedOperandFunction ||
        llvm::is_contained(processProvided, std::string_view(name)))
      return true;
    error = "internal error: the code generated for target '" + target.name + "' calls '" +
            name.str() +
            "', a compiler runtime function that kernels cannot rely on (please report it)";
    ok = false;
    return false;
  });
  return readable && ok;
}

RuntimeLibraries runtimeLibraries(const std::string &object) {
  RuntimeLibraries needs;
  std::string error;
  forEachUndefinedSymbol(object, error, [&](llvm::StringRef name) {
    if (name.starts_with("Sleef_") && needs.sleefSymbol.empty())
      needs.sleefSymbol = name.str();
    needs.libm |= llvm::is_contained(kLibmFunctions, name);
    return true;
  });
  return needs;
}

} // namespace blockc

//===- Emit.cpp -----------------------------------------------------------===//
#include "blockc/lowering/Emit.h"

#include "blockc/lowering/IsaLowering.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <functional>
#include <mutex>

namespace blockc {

void initializeLLVMTargets() {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
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
    "fmod", "fmodf", "fmin",      "fminf",      "fmax",  "fmaxf",  "fma",   "fmaf",
    "sqrt", "sqrtf", "floor",     "floorf",     "ceil",  "ceilf",  "trunc", "truncf",
    "rint", "rintf", "nearbyint", "nearbyintf", "round", "roundf", "exp",   "expf",
    "exp2", "exp2f", "log",       "logf",       "log2",  "log2f",  "sin",   "sinf",
    "cos",  "cosf",  "tanh",      "tanhf",      "pow",   "powf",   "erf",   "erff"};

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

bool checkRuntimeSymbols(const std::string &object, const Target &target, std::string &error) {
  bool ok = true;
  bool readable = forEachUndefinedSymbol(object, error, [&](llvm::StringRef name) {
    if (name.starts_with("Sleef_") || llvm::is_contained(kMemoryFunctions, name) ||
        llvm::is_contained(kLibmFunctions, name) || name == "_GLOBAL_OFFSET_TABLE_" ||
        name == kImeModelFunction)
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

namespace {

std::string cType(const Type &t) {
  static const char *names[] = {"bool",     "int8_t",   "int16_t", "int32_t", "int64_t",
                                "uint16_t", "uint16_t", "float",   "double"};
  std::string base = names[static_cast<unsigned>(t.kind())];
  return t.isPointer() ? base + " *" : base + " ";
}

} // namespace

std::string emitHeader(const Module &module, const std::string &guard) {
  std::string out = "/* Generated by blockc. f16 and bf16 elements are uint16_t bit patterns. */\n"
                    "#ifndef " +
                    guard + "\n#define " + guard +
                    "\n\n"
                    "#include <blockc/runtime.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const auto &fn : module.functions) {
    if (!fn->isKernel)
      continue;
    out += "/* The kernel itself, as blockc_launch calls it. */\n";
    out += "void " + fn->name +
           "(void **args, int32_t pid_x, int32_t pid_y, int32_t pid_z, int32_t grid_x, "
           "int32_t grid_y, int32_t grid_z);\n";
    out += "/* Stack scratch one program of it uses. */\n";
    out += "extern const uint64_t blockc_scratch_bytes_" + fn->name + ";\n";
    out += "/* BLOCKC_REQUIRES_* bits: units of the core the launcher must run it on. */\n";
    out += "extern const uint64_t blockc_core_requirements_" + fn->name + ";\n\n";
    out += "/* Runs every program of `grid`; options may be NULL (defaults and BLOCKC_* "
           "variables). Returns 0 or a BLOCKC_ERROR_* code (see blockc_last_error()). */\n";
    out += "static inline int " + fn->name + "_launch(";
    std::string args;
    for (size_t i = 0; i < fn->body.args.size(); ++i) {
      const Value &p = *fn->body.args[i];
      out += cType(p.type()) + p.name() + ", ";
      args += (i ? ", " : "") + std::string("(void *)&") + p.name();
    }
    out += "blockc_grid grid, const blockc_launch_options *options) {\n";
    out += "  void *args[] = {" + (args.empty() ? std::string("0") : args) + "};\n";
    out += "  blockc_kernel_info info = BLOCKC_KERNEL_INFO(\"" + fn->name +
           "\", blockc_scratch_bytes_" + fn->name + ", blockc_core_requirements_" + fn->name +
           ");\n";
    out += "  return blockc_launch_kernel(" + fn->name + ", args, grid, options, &info);\n}\n\n";
  }
  out += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return out;
}

} // namespace blockc

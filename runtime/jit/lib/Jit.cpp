//===- Jit.cpp - ORC LLJIT over cached kernel objects ---------------------===//
#include "blockc/jit/Jit.h"

#include "KernelCache.h"
#include "blockc/jit/HostCompatibility.h"
#include "blockc/lowering/Emit.h"
#include "blockc/lowering/IsaLowering.h"
#include "blockc/riscv/IsaLowering.h"
#include "blockc/targets/IsaLowerings.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

// The compiler writes CoreRequirements bits into objects, the launcher reads
// them as BLOCKC_REQUIRES_* bits: this is where both headers meet.
static_assert(blockc::riscv::kRequiresSpacemitIme == BLOCKC_REQUIRES_SPACEMIT_IME,
              "riscv's kRequiresSpacemitIme and runtime.h's BLOCKC_REQUIRES_* disagree");
// Where compiled kernels put their scratch, and how the launcher prepares it.
static_assert(blockc::kMaxStackScratchBytes == BLOCKC_MAX_STACK_SCRATCH_BYTES,
              "Compiler.h's kMaxStackScratchBytes and runtime.h's "
              "BLOCKC_MAX_STACK_SCRATCH_BYTES disagree");
// How `print` values are shown: the code generator's bytes, the runtime's enum.
static_assert(unsigned(blockc::PrintFormat::Signed) == BLOCKC_PRINT_SIGNED &&
                  unsigned(blockc::PrintFormat::Unsigned) == BLOCKC_PRINT_UNSIGNED &&
                  unsigned(blockc::PrintFormat::Float) == BLOCKC_PRINT_FLOAT &&
                  unsigned(blockc::PrintFormat::Hex) == BLOCKC_PRINT_HEX,
              "blockc::PrintFormat and blockc_print_format disagree");

namespace blockc {

struct JitModule::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

JitModule::JitModule() : impl_(std::make_unique<Impl>()) {}
JitModule::~JitModule() = default;

const JitKernel *JitModule::kernel(std::string_view name) const {
  for (const JitKernel &k : kernels_)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::unique_ptr<JitModule> JitModule::compile(const SourceFile &source,
                                              const CompileOptions &options,
                                              DiagnosticEngine &diags) {
  Target target;
  std::string error;
  if (!resolveTarget(options, target, error) || !canRunOnThisMachine(target, error)) {
    diags.error({}, error);
    return nullptr;
  }
  // Kernels call SLEEF; make its symbols visible to the JIT's linker.
  static std::once_flag sleefLoaded;
  std::call_once(sleefLoaded,
                 [] { llvm::sys::DynamicLibrary::LoadLibraryPermanently("libsleef.so.3"); });

  // Signatures come from the Block IR, which is cheap to parse even on a hit.
  std::unique_ptr<Module> module = parseModule(source, options.defines, diags);
  if (!module)
    return nullptr;
  KernelCache cache;
  std::string key = compileKey(source, options, target.cpu + " " + target.llvmFeatures);
  // A compile asked to show its stages must run, cached or not.
  if (!wantsDebugOutput(options)) {
    if (std::optional<std::string> cached = cache.load(key)) {
      if (std::unique_ptr<JitModule> linked = link(*module, *cached, options, diags))
        return linked;
      // Checksummed, yet not loadable: not what this compiler writes, so
      // recompiling is the cure, as for any other damaged entry.
      cache.discard(key, "the JIT cannot load it (" + diags.diagnostic().message + ")");
      diags.clear();
    }
  }
  registerIsaLowerings();
  std::optional<CompiledModule> compiled = compileSource(source, options, EmitKind::Object, diags);
  if (!compiled)
    return nullptr;
  cache.store(key, compiled->bytes);
  return link(*module, compiled->bytes, options, diags);
}

/// Loads `object` into a JIT of its own and looks up the kernels of `module`
/// (those `options.kernels` names, when it names any).
std::unique_ptr<JitModule> JitModule::link(const Module &module, const std::string &object,
                                           const CompileOptions &options, DiagnosticEngine &diags) {
  auto result = std::unique_ptr<JitModule>(new JitModule());
  // A cache hit compiles nothing, so nothing else has registered the backends.
  initializeLLVMTargets();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    diags.error({}, "cannot start the JIT: " + llvm::toString(jit.takeError()));
    return nullptr;
  }
  result->impl_->jit = std::move(*jit);
  llvm::orc::LLJIT &lljit = *result->impl_->jit;
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      lljit.getDataLayout().getGlobalPrefix());
  if (!generator) {
    diags.error({}, "JIT symbol lookup: " + llvm::toString(generator.takeError()));
    return nullptr;
  }
  lljit.getMainJITDylib().addGenerator(std::move(*generator));
  // The process's own runtime, whether or not its symbols are exported (the
  // Python module's are not): the arena is the one its launcher grows.
  llvm::orc::SymbolMap runtimeSymbols;
  runtimeSymbols[lljit.mangleAndIntern(kScratchArenaFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&blockc_scratch_arena),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtimeSymbols[lljit.mangleAndIntern(kPrintFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&blockc_print),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  runtimeSymbols[lljit.mangleAndIntern(kPackedOperandFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&blockc_packed_operand),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (llvm::Error e =
          lljit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtimeSymbols)))) {
    diags.error({}, "JIT: " + llvm::toString(std::move(e)));
    return nullptr;
  }
  if (llvm::Error e = lljit.addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object))) {
    diags.error({}, "JIT: " + llvm::toString(std::move(e)));
    return nullptr;
  }
  for (const auto &fn : module.functions) {
    if (!fn->isKernel ||
        (!options.kernels.empty() && !llvm::is_contained(options.kernels, fn->name)))
      continue;
    auto address = lljit.lookup(fn->name);
    if (!address) {
      diags.error({}, "JIT: " + llvm::toString(address.takeError()));
      return nullptr;
    }
    auto scratch = lljit.lookup("blockc_scratch_bytes_" + fn->name);
    if (!scratch) {
      diags.error({}, "JIT: " + llvm::toString(scratch.takeError()));
      return nullptr;
    }
    auto requirements = lljit.lookup("blockc_core_requirements_" + fn->name);
    if (!requirements) {
      diags.error({}, "JIT: " + llvm::toString(requirements.takeError()));
      return nullptr;
    }
    JitKernel kernel;
    kernel.name = fn->name;
    for (const auto &arg : fn->body.args)
      kernel.params.push_back({arg->name(), arg->type()});
    kernel.fn = address->toPtr<blockc_kernel_fn>();
    kernel.scratchBytes = *scratch->toPtr<const uint64_t *>();
    kernel.coreRequirements = *requirements->toPtr<const uint64_t *>();
    kernel.checksBounds = options.checkBounds;
    result->kernels_.push_back(std::move(kernel));
  }
  return result;
}

std::string kernelCacheDirectory() {
  return KernelCache().dir();
}

} // namespace blockc

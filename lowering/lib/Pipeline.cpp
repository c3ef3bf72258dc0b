//===- Pipeline.cpp - The whole compiler, top to bottom, a line a stage ---===//
//
// compileSource parses (SpecializeConstexprs), runs the Block IR passes of
// kBlockIRPasses in order, plans each kernel's fusion (FuseElementwise),
// generates and optimizes LLVM IR and emits machine code. Each stage is
// followed by its dump; the stages and their names are Stages.h's.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "DebugDumper.h"
#include "blockc/frontend/Printer.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/DotCascade.h"
#include "blockc/lowering/Emit.h"
#include "blockc/lowering/Passes.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <cstdlib>

namespace blockc {

const std::vector<Stage> &pipelineStages() {
  static const std::vector<Stage> stages = {stage::SpecializeConstexprs, stage::InlineCalls,
                                            stage::FoldConstants,        stage::SimplifyMasks,
                                            stage::CanonicalizePointers, stage::ReduceCarriedBlocks,
                                            stage::FuseElementwise,      stage::GenerateLLVM,
                                            stage::OptimizeLLVM,         stage::EmitMachineCode};
  return stages;
}

const std::vector<std::string> &stageNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const Stage &s : pipelineStages())
      all.emplace_back(s.name);
    return all;
  }();
  return names;
}

int debugLevelOf(StageOutput output) {
  switch (output) {
  case StageOutput::BlockIR:
  case StageOutput::FusionPlan:
    return 1;
  case StageOutput::LLVMIR:
    return 2;
  case StageOutput::Assembly:
    return 3;
  }
  return 3;
}

std::string_view dumpExtensionOf(StageOutput output) {
  switch (output) {
  case StageOutput::BlockIR:
    return ".bir";
  case StageOutput::FusionPlan:
    return ".txt";
  case StageOutput::LLVMIR:
    return ".ll";
  case StageOutput::Assembly:
    return ".s";
  }
  return ".txt";
}

bool wantsDebugOutput(const CompileOptions &options) {
  return !options.printAfter.empty() || !options.dumpDir.empty() ||
         DebugDumper::levelFromEnvironment() > 0;
}

namespace {

std::string printLLVM(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return text;
}

/// Drops the kernels `wanted` does not name (all are kept when it is empty),
/// so that one kernel's code generation errors never stop another's; helper
/// functions stay for InlineCalls.
bool selectKernels(Module &module, const std::vector<std::string> &wanted, std::string &error) {
  if (wanted.empty())
    return true;
  std::string available;
  for (const auto &fn : module.functions)
    if (fn->isKernel)
      available += (available.empty() ? "" : ", ") + fn->name;
  for (const std::string &name : wanted) {
    bool found = std::any_of(module.functions.begin(), module.functions.end(),
                             [&](const auto &fn) { return fn->isKernel && fn->name == name; });
    if (!found) {
      error = "no kernel '" + name + "'; " +
              (available.empty() ? "there is none" : "the kernels are " + available);
      return false;
    }
  }
  llvm::erase_if(module.functions, [&](const auto &fn) {
    return fn->isKernel && std::find(wanted.begin(), wanted.end(), fn->name) == wanted.end();
  });
  return true;
}

/// The first block value of `region` whose elements the ISA cannot carry,
/// with the reason; null when there is none.
const Value *findUnsupportedElement(const Region &region, const IsaLowering &isa,
                                    std::string &reason) {
  auto check = [&](const Value &v) {
    if (!v.type().isBlock() || v.type().isPointer())
      return false;
    std::optional<std::string> why = isa.unsupportedElement(v.type().kind());
    if (why)
      reason = *why;
    return why.has_value();
  };
  for (const auto &arg : region.args)
    if (check(*arg))
      return arg.get();
  for (const auto &op : region.ops) {
    for (const auto &r : op->results)
      if (check(*r))
        return r.get();
    for (const auto &inner : op->regions)
      if (const Value *v = findUnsupportedElement(*inner, isa, reason))
        return v;
  }
  return nullptr;
}

/// A Block IR -> Block IR pass: its stage and its entry function, which
/// returns whether it changed the module.
struct BlockIRPass {
  const Stage &stage;
  bool (*run)(Module &module, const CompileOptions &options);
};

/// The passes after parsing, in the order they run.
const BlockIRPass kBlockIRPasses[] = {
    {stage::InlineCalls, [](Module &m, const CompileOptions &) { return inlineCalls(m); }},
    {stage::FoldConstants, [](Module &m, const CompileOptions &) { return foldConstants(m); }},
    {stage::SimplifyMasks, [](Module &m, const CompileOptions &) { return simplifyMasks(m); }},
    // What SimplifyMasks decided, folded.
    {stage::FoldConstants, [](Module &m, const CompileOptions &) { return foldConstants(m); }},
    {stage::CanonicalizePointers,
     [](Module &m, const CompileOptions &options) {
       return options.canonicalizePointers && canonicalizePointers(m);
     }},
    {stage::ReduceCarriedBlocks,
     [](Module &m, const CompileOptions &) { return reduceCarriedBlocks(m); }},
};

} // namespace

std::optional<CompiledModule> compileSource(const SourceFile &source, const CompileOptions &options,
                                            EmitKind kind, DiagnosticEngine &diags) {
  std::string error;
  auto fail = [&](const std::string &message) {
    diags.error({}, message);
    return std::optional<CompiledModule>();
  };
  Target target;
  if (!resolveTarget(options, target, error))
    return fail(error);
  std::optional<DebugDumper> dumper = DebugDumper::open(options, error);
  if (!dumper)
    return fail(error);

  std::unique_ptr<Module> module = parseModule(source, options.defines, diags);
  if (!module)
    return std::nullopt;
  // Before the passes, so that no kernel left out is worked on; helper
  // functions stay until InlineCalls has used them.
  if (!selectKernels(*module, options.kernels, error) ||
      !dumper->afterPass(stage::SpecializeConstexprs, *module, true, error))
    return fail(error);
  for (const BlockIRPass &pass : kBlockIRPasses)
    if (!dumper->afterPass(pass.stage, *module, pass.run(*module, options), error))
      return fail(error);

  std::vector<FusionPlan> plans;
  std::string planText;
  for (auto &fn : module->functions) {
    plans.push_back(fuseElementwise(*fn));
    if (dumper->wants(stage::FuseElementwise))
      planText += "kernel @" + fn->name + "\n" + describeFusionPlan(*fn, plans.back());
  }
  if (!dumper->afterStage(stage::FuseElementwise, planText, error))
    return fail(error);

  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(target, error);
  if (!machine)
    return fail(error);
  llvm::LLVMContext context;
  llvm::Module llvmModule(source.name, context);
  llvmModule.setTargetTriple(machine->getTargetTriple());
  llvmModule.setDataLayout(machine->createDataLayout());
  std::unique_ptr<IsaLowering> isa = makeIsaLowering(target);
  if (!isa)
    return fail("internal error: no ISA lowering is registered for target '" + target.name +
                "' (a program that compiles kernels calls blockc::registerIsaLowerings() first)");
  if (std::optional<std::string> why = isa->unsupportedTarget())
    return fail(*why);
  if (!options.dotStrategy.empty() && !selectDotStrategy(nullptr, *isa, options.dotStrategy)) {
    std::string known;
    for (std::string_view name : dotCascadeNames(*isa))
      known += (known.empty() ? "" : ", ") + std::string(name);
    return fail("--dot-strategy=" + options.dotStrategy + ": target '" + target.name +
                "' has no such dot strategy (it has: " + known + ")");
  }
  CompiledModule result;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    Function &fn = *module->functions[i];
    std::string reason;
    if (const Value *v = findUnsupportedElement(fn.body, *isa, reason)) {
      diags.error(v->loc(), "%" + v->name() + " (" + v->type().str() +
                                ") cannot be lowered for target '" + target.name + "': " + reason);
      return std::nullopt;
    }
    KernelCodeGen codegen(target, *isa, llvmModule, options,
                          machine->getMCSubtargetInfo()->getSchedModel());
    codegen.emitKernel(fn, plans[i]);
    result.kernels.push_back({fn.name, codegen.scratchBytes(), codegen.coreRequirements()});
  }
  std::string broken;
  llvm::raw_string_ostream brokenStream(broken);
  if (llvm::verifyModule(llvmModule, &brokenStream))
    return fail("internal error: blockc generated invalid LLVM IR (please report it):\n" + broken);
  if (dumper->wants(stage::GenerateLLVM) &&
      !dumper->afterStage(stage::GenerateLLVM, printLLVM(llvmModule), error))
    return fail(error);

  optimizeModule(llvmModule, *machine);
  if (dumper->wants(stage::OptimizeLLVM) &&
      !dumper->afterStage(stage::OptimizeLLVM, printLLVM(llvmModule), error))
    return fail(error);

  // LLVM does not support running code generation twice on one module: an
  // assembly dump beside an object is emitted from a clone.
  bool dumpAssembly = dumper->wants(stage::EmitMachineCode);
  std::string assembly;
  if (kind == EmitKind::LLVMIR) {
    result.bytes = printLLVM(llvmModule);
    if (dumpAssembly && !emitMachineCode(llvmModule, *machine, true, assembly, error))
      return fail(error);
  } else if (kind == EmitKind::Assembly) {
    if (!emitMachineCode(llvmModule, *machine, true, result.bytes, error))
      return fail(error);
    assembly = result.bytes;
  } else {
    if (dumpAssembly &&
        !emitMachineCode(*llvm::CloneModule(llvmModule), *machine, true, assembly, error))
      return fail(error);
    if (!emitMachineCode(llvmModule, *machine, false, result.bytes, error) ||
        !checkRuntimeSymbols(result.bytes, target, isa->processProvidedFunctions(), error))
      return fail(error);
  }
  if (dumpAssembly && !dumper->afterStage(stage::EmitMachineCode, assembly, error))
    return fail(error);
  return result;
}

} // namespace blockc

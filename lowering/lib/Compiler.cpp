//===- Compiler.cpp - Source to LLVM module to files ----------------------===//
#include "blockc/lowering/Compiler.h"

#include "CodeGen.h"
#include "blockc/lowering/Emit.h"
#include "blockc/lowering/Pipeline.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdio>
#include <fstream>

namespace blockc {

LoweredModule::LoweredModule() = default;
LoweredModule::~LoweredModule() {
  // The module must die before its context.
  module.reset();
  context.reset();
}
LoweredModule::LoweredModule(LoweredModule &&) = default;

namespace {

std::string printLLVM(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return text;
}

bool writeFile(const std::string &path, const std::string &data, std::string &error) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace

std::unique_ptr<LoweredModule> lowerSource(const SourceFile &source, const CompileOptions &options,
                                           DiagnosticEngine &diags) {
  Target target;
  std::string error;
  if (!lookupTarget(options.target, target, error)) {
    diags.error({}, error);
    return nullptr;
  }
  auto lowered = std::make_unique<LoweredModule>();
  lowered->blockIR = parseModule(source, options.defines, diags);
  if (!lowered->blockIR)
    return nullptr;
  lowered->machine = createTargetMachine(target, error);
  if (!lowered->machine) {
    diags.error({}, error);
    return nullptr;
  }
  DebugDumper dumper(options);
  runPassPipeline(*lowered->blockIR, dumper);

  lowered->context = std::make_unique<llvm::LLVMContext>();
  lowered->module = std::make_unique<llvm::Module>(source.name, *lowered->context);
  lowered->module->setTargetTriple(lowered->machine->getTargetTriple());
  lowered->module->setDataLayout(lowered->machine->createDataLayout());
  for (auto &fn : lowered->blockIR->functions) {
    if (!fn->isKernel)
      continue;
    if (dumper.wants(1))
      dumper.stage(fn->name + ".fusion.txt", describeFusionPlan(*fn, fuseElementwise(*fn)), 1);
    KernelCodeGen codegen(target, *lowered->module, options);
    codegen.emitKernel(*fn);
    // Scratch lives on the stack of whichever thread runs the program; OpenMP
    // workers get 4 MiB by default, so stay well inside that.
    constexpr uint64_t kScratchLimit = uint64_t(2) << 20;
    if (codegen.scratchBytes() > kScratchLimit) {
      diags.error(fn->loc,
                  "kernel @" + fn->name + " needs " + std::to_string(codegen.scratchBytes() >> 10) +
                      " KiB of scratch memory per program, more than the " +
                      std::to_string(kScratchLimit >> 10) +
                      " KiB limit (largest: " + codegen.largestScratch() + "); use smaller blocks");
      return nullptr;
    }
  }
  std::string broken;
  llvm::raw_string_ostream brokenStream(broken);
  if (llvm::verifyModule(*lowered->module, &brokenStream)) {
    diags.error({},
                "internal error: blockc generated invalid LLVM IR (please report it):\n" + broken);
    return nullptr;
  }
  if (dumper.wants(2))
    dumper.stage("module.ll", printLLVM(*lowered->module), 2);
  optimizeModule(*lowered->module, *lowered->machine);
  if (dumper.wants(2))
    dumper.stage("module.opt.ll", printLLVM(*lowered->module), 2);
  if (dumper.wants(3)) {
    std::string assembly;
    if (emitMachineCode(*lowered->module, *lowered->machine, true, assembly, error))
      dumper.stage("module.s", assembly, 3);
  }
  return lowered;
}

bool compileToFile(const SourceFile &source, const CompileOptions &options, EmitKind kind,
                   const std::string &outputPath, DiagnosticEngine &diags) {
  std::string error;
  if (kind == EmitKind::Header) {
    std::unique_ptr<Module> module = parseModule(source, options.defines, diags);
    if (!module)
      return false;
    std::string guard = "BLOCKC_KERNELS_";
    for (char c : llvm::sys::path::stem(outputPath).str())
      guard += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
    if (!writeFile(outputPath, emitHeader(*module, guard + "_H"), error)) {
      diags.error({}, error);
      return false;
    }
    return true;
  }
  std::unique_ptr<LoweredModule> lowered = lowerSource(source, options, diags);
  if (!lowered)
    return false;
  std::string data;
  bool ok = true;
  switch (kind) {
  case EmitKind::LLVMIR:
    data = printLLVM(*lowered->module);
    break;
  case EmitKind::Assembly:
  case EmitKind::Object:
  case EmitKind::SharedLibrary:
    ok = emitMachineCode(*lowered->module, *lowered->machine, kind == EmitKind::Assembly, data,
                         error);
    break;
  case EmitKind::Header:
    break;
  }
  if (ok && kind == EmitKind::SharedLibrary) {
    // Link the object with lld into a shared library that needs SLEEF.
    llvm::SmallString<128> objectPath;
    llvm::sys::fs::createTemporaryFile("blockc", "o", objectPath);
    ok = writeFile(objectPath.str().str(), data, error);
    auto linker = llvm::sys::findProgramByName("ld.lld-22");
    if (!linker)
      linker = llvm::sys::findProgramByName("ld.lld");
    if (ok && !linker) {
      error = "--emit=so needs ld.lld (package lld-22)";
      ok = false;
    }
    if (ok) {
      std::string out = outputPath, obj = objectPath.str().str();
      std::vector<llvm::StringRef> argv = {*linker, "-shared", "-o", out, obj, "--as-needed"};
      std::string sleefDir = "/usr/lib/x86_64-linux-gnu";
      if (lowered->machine->getTargetTriple().isX86()) {
        argv.push_back("-L");
        argv.push_back(sleefDir);
        argv.push_back("-lsleef");
        argv.push_back("-lm");
      }
      std::string message;
      if (llvm::sys::ExecuteAndWait(*linker, argv, std::nullopt, {}, 0, 0, &message) != 0) {
        error = "linking " + outputPath + " failed" + (message.empty() ? "" : ": " + message);
        ok = false;
      }
    }
    llvm::sys::fs::remove(objectPath);
    if (ok)
      return true;
  }
  if (ok)
    ok = writeFile(outputPath, data, error);
  if (!ok)
    diags.error({}, error);
  return ok;
}

} // namespace blockc

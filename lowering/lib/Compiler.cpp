//===- Compiler.cpp - Compiled bytes to files -----------------------------===//
#include "blockc/lowering/Compiler.h"

#include "blockc/lowering/Emit.h"
#include "blockc/targets/Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace blockc {

namespace {

bool writeFile(const std::string &path, const std::string &data, std::string &error) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  out.close();
  if (!out) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

/// Links `object` with lld into a shared library that names SLEEF and libm,
/// the only libraries generated code calls (checkRuntimeSymbols). Cross
/// targets' libraries are not on this machine: their `.so` names none.
bool linkSharedLibrary(const std::string &object, const std::string &outputPath,
                       const std::string &targetName, std::string &error) {
  auto linker = llvm::sys::findProgramByName("ld.lld-22");
  if (!linker)
    linker = llvm::sys::findProgramByName("ld.lld");
  if (!linker) {
    error = "--emit=so needs ld.lld (package lld-22)";
    return false;
  }
  llvm::SmallString<128> objectPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("blockc", "o", objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  bool ok = writeFile(objectPath.str().str(), object, error);
  if (ok) {
    std::string out = outputPath, obj = objectPath.str().str();
    std::vector<llvm::StringRef> argv = {*linker, "-shared", "-o", out, obj, "--as-needed"};
    Target target;
    if (lookupTarget(targetName, target, error) && target.arch == Arch::X86_64)
      argv.insert(argv.end(), {"-L", "/usr/lib/x86_64-linux-gnu", "-lsleef", "-lm"});
    std::string message;
    if (llvm::sys::ExecuteAndWait(*linker, argv, std::nullopt, {}, 0, 0, &message) != 0) {
      error = "linking " + outputPath + " failed" + (message.empty() ? "" : ": " + message);
      ok = false;
    }
  }
  llvm::sys::fs::remove(objectPath);
  return ok;
}

} // namespace

bool compileToFile(const SourceFile &source, const CompileOptions &options, EmitKind kind,
                   const std::string &outputPath, DiagnosticEngine &diags) {
  std::string error;
  if (kind == EmitKind::Header) {
    if (options.checkBounds) {
      // The header's NAME_launch passes only the parameters; a bounds-checked
      // kernel also reads extents and a report after them.
      diags.error({}, "--emit=header cannot describe a --check-bounds kernel: its launch "
                      "functions pass no extents and no report (docs/reference.md, "
                      "\"Bounds checking\"); build the args array by hand");
      return false;
    }
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
  EmitKind bytesKind = kind == EmitKind::SharedLibrary ? EmitKind::Object : kind;
  std::optional<CompiledModule> compiled = compileSource(source, options, bytesKind, diags);
  if (!compiled)
    return false;
  bool ok = kind == EmitKind::SharedLibrary
                ? linkSharedLibrary(compiled->bytes, outputPath, options.target, error)
                : writeFile(outputPath, compiled->bytes, error);
  if (!ok)
    diags.error({}, error);
  return ok;
}

} // namespace blockc

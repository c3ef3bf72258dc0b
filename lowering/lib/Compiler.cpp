//===- Compiler.cpp - Compiled bytes to files -----------------------------===//
#include "blockc/lowering/Compiler.h"

#include "ElfLinker.h"
#include "blockc/frontend/Files.h"
#include "blockc/lowering/Emit.h"
#include "blockc/targetinfo/Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>

namespace blockc {

namespace {

bool writeFile(const std::string &path, const std::string &data, std::string &error) {
  return writeOutputFile(path, data, error);
}

/// Where the target's libraries live on a Debian machine: the system's
/// multiarch folder for this machine's architecture, the cross sysroot that
/// the gcc-TRIPLE packages install for another one.
std::string systemLibraryFolder(const Target &target) {
  llvm::Triple triple(target.triple);
  std::string multiarch = triple.getArchName().str() + "-linux-gnu";
  if (triple.getArch() == llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    return "/usr/lib/" + multiarch;
  return "/usr/" + multiarch + "/lib";
}

/// Links `object` with ld.lld into a shared library that names the libraries
/// it calls (SLEEF, libm: the only ones checkRuntimeSymbols allows), found
/// in `options.librarySearchPaths` or the target's system folder.
bool linkSharedLibrary(const std::string &object, const std::string &outputPath,
                       const CompileOptions &options, std::string &error) {
  Target target;
  if (!resolveTarget(options, target, error))
    return false;
  std::vector<std::string> folders = options.librarySearchPaths;
  folders.push_back(systemLibraryFolder(target));
  RuntimeLibraries needs = runtimeLibraries(object);
  if (!needs.sleefSymbol.empty() &&
      std::none_of(folders.begin(), folders.end(), [](const std::string &folder) {
        return llvm::sys::fs::exists(folder + "/libsleef.so");
      })) {
    error = "the kernels call SLEEF (" + needs.sleefSymbol + "), but no libsleef.so for " +
            llvm::Triple(target.triple).getArchName().str() + " is in";
    for (const std::string &folder : folders)
      error += " " + folder;
    error += "; pass its folder with -L (scripts/setup fetches SLEEF for riscv64 and aarch64 "
             "into build/third_party)";
    return false;
  }
  // lld writes its output itself and would replace a link or a device with a
  // regular file: it links into a folder of its own, and the library goes to
  // `outputPath` the way every other output does.
  llvm::SmallString<128> linkFolder;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("blockc-link", linkFolder)) {
    error = "cannot create a temporary folder to link in: " + ec.message();
    return false;
  }
  std::string objectPath = (linkFolder + "/kernels.o").str();
  std::string libraryPath = (linkFolder + "/kernels.so").str();
  bool ok = writeFile(objectPath, object, error);
  if (ok) {
    std::vector<std::string> args = {"-shared", "-o", libraryPath, objectPath};
    for (const std::string &folder : folders)
      args.insert(args.end(), {"-L", folder});
    if (!needs.sleefSymbol.empty())
      args.push_back("-lsleef");
    if (needs.libm)
      args.push_back("-lm");
    std::string message;
    if (!runElfLinker(args, message)) {
      error = "linking " + outputPath + " failed: " + message;
      ok = false;
    }
  }
  if (ok) {
    auto library = llvm::MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false);
    ok = library
             ? writeFile(outputPath, (*library)->getBuffer().str(), error)
             : (error = "cannot read the linked library: " + library.getError().message(), false);
  }
  llvm::sys::fs::remove(objectPath);
  llvm::sys::fs::remove(libraryPath);
  llvm::sys::fs::remove(linkFolder);
  return ok;
}

} // namespace

std::string compileKey(const SourceFile &source, const CompileOptions &options,
                       const std::string &targetFeatures) {
  llvm::SHA256 hash;
  auto add = [&](const std::string &s) {
    hash.update(s);
    hash.update(llvm::StringRef("\0", 1));
  };
  // The compiler that generates the code, not the process that embeds it: an
  // application linked with a newer blockc must never load older code.
  add(compilerBuildId());
  add(source.text);
  for (const auto &[name, value] : options.defines)
    add(name + "=" + value);
  add(options.target);
  add(targetFeatures);
  add(options.fastMath ? "fast" : "precise");
  add(options.sleefMath ? "sleef-math" : "inline-math");
  add(options.checkBounds ? "bounds-checked" : "unchecked");
  add(options.canonicalizePointers ? "canonical-pointers" : "carried-pointer-tiles");
  add("dot strategy " + options.dotStrategy);
  add("streaming stores " + std::to_string(int(options.streamingStores)));
  for (const std::string &kernel : options.kernels)
    add("kernel " + kernel);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

bool linksSharedLibrariesInProcess() {
  return elfLinkerRunsInProcess();
}

bool resolveTarget(const CompileOptions &options, Target &target, std::string &error) {
  return lookupTarget(options.target, target, error) &&
         applyFeatureChanges(options.features, target, error);
}

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
    std::optional<std::string> header = emitHeader(*module, guard + "_H", diags);
    if (!header)
      return false;
    if (!writeFile(outputPath, *header, error)) {
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
                ? linkSharedLibrary(compiled->bytes, outputPath, options, error)
                : writeFile(outputPath, compiled->bytes, error);
  if (!ok)
    diags.error({}, error);
  return ok;
}

} // namespace blockc

//===- InspectCommand.cpp - `blockc inspect` ------------------------------===//
//
// Reads a .bir file (compiled here for --target), an ELF object, a static
// library or a shared library, and prints what its functions and loops ask
// of the vector and matrix units (docs/inspect.md).
//
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Commands.h"
#include "blockc/frontend/Files.h"
#include "blockc/frontend/IRUtils.h"
#include "blockc/inspect/Inspect.h"
#include "blockc/lowering/Compiler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <iostream>

namespace blockc::driver {

namespace {

// Larger than any object or library of kernels; a bound, so that a device or
// a runaway file is refused rather than read into memory.
constexpr uint64_t kMaxObjectFileBytes = uint64_t(4) << 30;

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Checks what LLVM's ELF reader takes on trust: that every section lies
/// inside the file, and that the tables inspect walks (symbols, relocations)
/// have the entry size of their type and link to a section that exists. A
/// symbol table claiming 2^60 bytes would otherwise be walked entry by entry.
template <class ELFT>
bool checkSections(const llvm::object::ELFFile<ELFT> &elf, std::string &error) {
  auto sections = elf.sections();
  if (!sections) {
    error = "malformed object: " + llvm::toString(sections.takeError());
    return false;
  }
  uint64_t fileSize = elf.getBufSize();
  for (const auto &[index, section] : llvm::enumerate(*sections)) {
    std::string where = "malformed object: section " + std::to_string(index);
    if (section.sh_type != llvm::ELF::SHT_NOBITS &&
        (section.sh_offset > fileSize || section.sh_size > fileSize - section.sh_offset)) {
      error = where + " lies past the end of the file (offset " +
              std::to_string(section.sh_offset) + ", size " + std::to_string(section.sh_size) +
              ", file " + std::to_string(fileSize) + " bytes)";
      return false;
    }
    uint64_t entrySize = 0;
    switch (section.sh_type) {
    case llvm::ELF::SHT_SYMTAB:
    case llvm::ELF::SHT_DYNSYM:
      entrySize = sizeof(typename ELFT::Sym);
      break;
    case llvm::ELF::SHT_REL:
      entrySize = sizeof(typename ELFT::Rel);
      break;
    case llvm::ELF::SHT_RELA:
      entrySize = sizeof(typename ELFT::Rela);
      break;
    default:
      continue;
    }
    if (section.sh_entsize != entrySize || section.sh_link >= sections->size()) {
      error = where + " has entries of " + std::to_string(section.sh_entsize) + " bytes (" +
              std::to_string(entrySize) + " expected) linked to section " +
              std::to_string(section.sh_link) + " of " + std::to_string(sections->size());
      return false;
    }
  }
  return true;
}

bool checkSections(const llvm::object::ObjectFile &object, std::string &error) {
  if (auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(&object))
    return checkSections(elf->getELFFile(), error);
  if (auto *elf = llvm::dyn_cast<llvm::object::ELF32LEObjectFile>(&object))
    return checkSections(elf->getELFFile(), error);
  if (auto *elf = llvm::dyn_cast<llvm::object::ELF64BEObjectFile>(&object))
    return checkSections(elf->getELFFile(), error);
  if (auto *elf = llvm::dyn_cast<llvm::object::ELF32BEObjectFile>(&object))
    return checkSections(elf->getELFFile(), error);
  return true;
}

/// Inspects one object (a file, or a member of an archive named `source`).
bool inspectOne(const llvm::object::ObjectFile &object, const std::string &source,
                const inspect::InspectOptions &options, std::vector<inspect::Report> &reports,
                std::string &error) {
  if (!checkSections(object, error)) {
    error = source + ": " + error;
    return false;
  }
  std::optional<inspect::Report> report = inspect::inspectObject(object, options, error);
  if (!report) {
    error = source + ": " + error;
    return false;
  }
  report->source = source;
  reports.push_back(std::move(*report));
  return true;
}

/// The reports of every object in `buffer`: itself, or each member of an
/// archive.
bool inspectBuffer(llvm::MemoryBufferRef buffer, const std::string &path,
                   const inspect::InspectOptions &options, std::vector<inspect::Report> &reports,
                   std::string &error) {
  llvm::file_magic magic = llvm::identify_magic(buffer.getBuffer());
  if (magic == llvm::file_magic::archive) {
    llvm::Expected<std::unique_ptr<llvm::object::Archive>> archive =
        llvm::object::Archive::create(buffer);
    if (!archive) {
      error = path + ": not a readable archive: " + llvm::toString(archive.takeError());
      return false;
    }
    llvm::Error failure = llvm::Error::success();
    size_t members = 0;
    for (const llvm::object::Archive::Child &child : (*archive)->children(failure)) {
      llvm::Expected<llvm::MemoryBufferRef> member = child.getMemoryBufferRef();
      llvm::Expected<llvm::StringRef> name = child.getName();
      if (!member || !name) {
        llvm::consumeError(member.takeError());
        llvm::consumeError(name.takeError());
        continue;
      }
      // LLVM's reader takes a member's size from its header: in a truncated
      // archive the member would run past the buffer.
      if (member->getBufferStart() < buffer.getBufferStart() ||
          member->getBufferEnd() > buffer.getBufferEnd()) {
        error = path + ": damaged archive: member '" + name->str() + "' of " +
                std::to_string(member->getBufferSize()) + " bytes runs past the end of the file";
        return false;
      }
      llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
          llvm::object::ObjectFile::createObjectFile(*member);
      if (!object) {
        // Archives hold symbol tables and other non-objects too.
        llvm::consumeError(object.takeError());
        continue;
      }
      ++members;
      if (!inspectOne(**object, path + "(" + name->str() + ")", options, reports, error))
        return false;
    }
    if (failure) {
      error = path + ": damaged archive: " + llvm::toString(std::move(failure));
      return false;
    }
    if (members == 0) {
      error = path + ": the archive holds no object";
      return false;
    }
    return true;
  }
  if (magic != llvm::file_magic::elf_relocatable && magic != llvm::file_magic::elf_shared_object &&
      magic != llvm::file_magic::elf_executable) {
    error = path + ": not an ELF object, static library (.a) or shared library (.so), nor a "
                   ".bir file";
    return false;
  }
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile(buffer);
  if (!object) {
    error = path + ": " + llvm::toString(object.takeError());
    return false;
  }
  return inspectOne(**object, path, options, reports, error);
}

bool hasLoop(const std::vector<inspect::Report> &reports, unsigned index) {
  for (const inspect::Report &report : reports)
    for (const inspect::FunctionReport &function : report.functions)
      for (const inspect::LoopReport &loop : function.loops)
        if (loop.index == index)
          return true;
  return false;
}

} // namespace

int runInspect(const std::vector<std::string> &argv) {
  std::vector<FlagSpec> flags = compilerFlags();
  flags.push_back(
      {"--cpu", "NAME",
       "the CPU whose scheduling model estimates loops (default: the target's CPU "
       "for a .bir file; sapphirerapids, neoverse-v1 or spacemit-x60 by architecture)"});
  flags.push_back({"--json", "", "print JSON (docs/inspect.md has the schema)"});
  flags.push_back({"--function", "NAME", "only functions whose name contains NAME"});
  flags.push_back({"--loop", "N", "only loop N of each function, with its instructions"});
  flags.push_back({"--help", "", "show this help"});
  CommandSpec spec{"inspect",
                   "FILE [--target T] [--cpu CPU] [--json] [--function NAME] [--loop N]",
                   "Report the vector and matrix instructions of every function and loop of a .bir "
                   "file (compiled for --target), an ELF object, a static library or a shared "
                   "library, with llvm-mca's estimate of each innermost loop.",
                   flags,
                   1,
                   1};
  int exitCode;
  std::optional<Arguments> args = parseCommandLine(spec, argv, exitCode);
  if (!args)
    return exitCode;
  auto fail = [](const std::string &message) {
    std::cerr << "blockc inspect: " << message << "\n";
    return 1;
  };
  inspect::InspectOptions options;
  options.cpu = args->value("--cpu");
  options.function = args->value("--function");
  int loop = -1;
  if (args->has("--loop")) {
    std::string text = args->value("--loop");
    char *end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0 || value > 1000000)
      return fail("--loop=" + text + ": expected a loop number (0, 1, ...)");
    loop = int(value);
    options.keepListings = true;
  }
  const std::string &path = args->positional()[0];
  std::string error;
  std::vector<inspect::Report> reports;
  if (endsWith(path, ".bir") || path == "-") {
    CompileOptions compile;
    if (!compileOptionsFrom(*args, compile, error))
      return fail(error);
    SourceFile file;
    if (!readSource(path, file, error))
      return fail(error);
    DiagnosticEngine diags;
    std::optional<ConstexprBindings> defines = args->defines(error);
    if (!defines)
      return fail(error);
    std::unique_ptr<Module> module = parseModule(file, *defines, diags);
    if (!module) {
      std::cerr << formatDiagnostic(diags.diagnostic(), &file);
      return 1;
    }
    for (auto &fn : module->functions) {
      bool hasDot = false;
      walkOps(fn->body, [&](Operation &op) { hasDot |= op.kind() == OpKind::Dot; });
      if (hasDot && fn->isKernel)
        options.dotFunctions.push_back(fn->name);
    }
    Target target;
    if (!resolveTarget(compile, target, error))
      return fail(error);
    if (options.cpu.empty())
      options.cpu = target.cpu;
    std::optional<CompiledModule> compiled = compileSource(file, compile, EmitKind::Object, diags);
    if (!compiled) {
      std::cerr << formatDiagnostic(diags.diagnostic(),
                                    diags.diagnostic().loc.isValid() ? &file : nullptr);
      return 1;
    }
    auto buffer = llvm::MemoryBuffer::getMemBuffer(compiled->bytes, file.name, false);
    if (!inspectBuffer(buffer->getMemBufferRef(), file.name + " (" + target.name + ")", options,
                       reports, error))
      return fail(error);
  } else {
    if (!checkInputFile(path, kMaxObjectFileBytes, error, /*pipesAllowed=*/false))
      return fail(error);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("cannot read '" + path + "': " + buffer.getError().message());
    // LLVM's ELF reader checks most of what it reads and says so through
    // llvm::Error; a few accessors (relocations, their symbols) report a
    // malformed file as a fatal error instead, which would abort. Any such
    // error is the file's fault: it becomes a located error and exit 1.
    // Nothing has been printed yet, so exiting leaves no partial report.
    llvm::ScopedFatalErrorHandler malformed(
        [](void *file, const char *reason, bool) {
          std::cerr << "blockc inspect: " << *static_cast<const std::string *>(file)
                    << ": malformed object: " << reason << "\n";
          std::_Exit(1);
        },
        const_cast<std::string *>(&path));
    if (!inspectBuffer((*buffer)->getMemBufferRef(), path, options, reports, error))
      return fail(error);
  }
  if (!options.function.empty()) {
    size_t matched = 0;
    for (const inspect::Report &report : reports)
      matched += report.functions.size();
    if (matched == 0)
      return fail("no function's name contains '" + options.function + "'");
  }
  if (loop >= 0 && !hasLoop(reports, unsigned(loop)))
    return fail("--loop " + std::to_string(loop) + ": no function has a loop " +
                std::to_string(loop) + " (run without --loop to list the loops)");
  std::cout << (args->has("--json") ? inspect::renderJson(reports)
                                    : inspect::renderTable(reports, loop >= 0, loop));
  return 0;
}

} // namespace blockc::driver

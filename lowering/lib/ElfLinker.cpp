//===- ElfLinker.cpp - ld.lld, in process or as a program -----------------===//
#include "ElfLinker.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

#if BLOCKC_IN_PROCESS_LLD
#include "lld/Common/Driver.h"
LLD_HAS_DRIVER(elf)
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOCKC_LEAK_CHECKED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BLOCKC_LEAK_CHECKED 1
#endif
#if BLOCKC_LEAK_CHECKED
#include <sanitizer/lsan_interface.h>
#endif

namespace blockc {

namespace {

/// lld quotes names from its inputs, and a damaged input's names are any
/// bytes: those that are not printable ASCII are shown as \xNN, so the error
/// stays one readable, valid UTF-8 text.
std::string printable(llvm::StringRef message) {
  message = message.rtrim('\n');
  std::string text;
  for (char c : message) {
    auto byte = static_cast<unsigned char>(c);
    if (byte == '\n' || (byte >= 0x20 && byte < 0x7f)) {
      text += c;
    } else {
      text += "\\x";
      text += llvm::hexdigit(byte >> 4, /*LowerCase=*/true);
      text += llvm::hexdigit(byte & 15, /*LowerCase=*/true);
    }
  }
  return text;
}

bool runLinkerProgram(const std::vector<std::string> &arguments, std::string &error) {
  auto linker = llvm::sys::findProgramByName("ld.lld-22");
  if (!linker)
    linker = llvm::sys::findProgramByName("ld.lld");
  if (!linker) {
    error = "linking a shared library needs ld.lld (package lld-22)";
    return false;
  }
  std::vector<llvm::StringRef> argv = {*linker};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  // What ld.lld prints becomes the error, as an in-process link's does.
  llvm::SmallString<128> printedPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("blockc-ld", "txt", printedPath)) {
    error = "cannot create a temporary file for ld.lld's messages: " + ec.message();
    return false;
  }
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, std::nullopt, printedPath.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, argv, std::nullopt, redirects, 0, 0, &message);
  auto printed = llvm::MemoryBuffer::getFile(printedPath, /*IsText=*/true);
  llvm::sys::fs::remove(printedPath);
  if (status != 0) {
    if (printed && !(*printed)->getBuffer().trim().empty())
      error = printable((*printed)->getBuffer());
    else
      error = message.empty() ? "ld.lld failed" : message;
    return false;
  }
  return true;
}

#if BLOCKC_IN_PROCESS_LLD
/// lld keeps its state in one global context, so links in one process take
/// turns; and once lld reports that a link left that state unusable, every
/// later link runs the program instead.
std::mutex inProcessLinkerMutex;
bool inProcessLinkerUsable = true;

bool linkInProcess(const std::vector<std::string> &arguments, std::string &error) {
  // One thread: a kernel object is small, and lld's thread pool would
  // outlive the link in a process that may fork (Python) or be checked by
  // ThreadSanitizer.
  std::vector<const char *> argv = {"ld.lld", "--threads=1"};
  for (const std::string &argument : arguments)
    argv.push_back(argument.c_str());
  std::string printed;
  llvm::raw_string_ostream out(printed);
  // lld ends a link that meets a damaged input by exiting the process, which
  // lldMain turns into a return only while crash recovery is on. It stays on
  // just for the link: its signal handlers are process-wide, and a process
  // that embeds blockc (Python) has its own.
  llvm::CrashRecoveryContext::Enable();
#if BLOCKC_LEAK_CHECKED
  // A link that ends that way abandons what lld had allocated, by design:
  // the leak checker is not to report lld's memory as blockc's.
  __lsan_disable();
#endif
  lld::Result result = lld::lldMain(argv, out, out, {{lld::Gnu, &lld::elf::link}});
#if BLOCKC_LEAK_CHECKED
  __lsan_enable();
#endif
  llvm::CrashRecoveryContext::Disable();
  if (!result.canRunAgain)
    inProcessLinkerUsable = false;
  if (result.retCode != 0) {
    error = printed.empty() ? "ld.lld failed" : printable(printed);
    return false;
  }
  return true;
}
#endif

} // namespace

bool elfLinkerRunsInProcess() {
#if BLOCKC_IN_PROCESS_LLD
  std::lock_guard<std::mutex> lock(inProcessLinkerMutex);
  return inProcessLinkerUsable;
#else
  return false;
#endif
}

bool runElfLinker(const std::vector<std::string> &arguments, std::string &error) {
#if BLOCKC_IN_PROCESS_LLD
  {
    std::lock_guard<std::mutex> lock(inProcessLinkerMutex);
    if (inProcessLinkerUsable)
      return linkInProcess(arguments, error);
  }
#endif
  return runLinkerProgram(arguments, error);
}

} // namespace blockc

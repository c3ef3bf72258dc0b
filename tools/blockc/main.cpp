//===- main.cpp - The blockc driver ---------------------------------------===//
//
// `blockc COMMAND ...`: one table of subcommands, each in its own file.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "blockc/targets/IsaLowerings.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>

namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const std::vector<std::string> &);
};

const Command kCommands[] = {
    {"check", "parse and verify a .bir file", blockc::driver::runCheck},
    {"print", "print a .bir file in canonical form with constexprs bound",
     blockc::driver::runPrint},
    {"compile", "compile a .bir file to LLVM IR, assembly, an object, a .so or a C header",
     blockc::driver::runCompile},
    {"run", "compile a kernel in process and run it over a grid", blockc::driver::runRun},
    {"inspect", "report the vector and matrix instructions of each function and loop",
     blockc::driver::runInspect},
    {"targets", "list the targets with their features and vector widths",
     blockc::driver::runTargets},
};

void printUsage(std::ostream &out) {
  out << "usage: blockc COMMAND [options]\n\n"
         "blockc compiles blocked kernels written in Block IR to vector and matrix code.\n\n"
         "commands:\n";
  for (const Command &c : kCommands)
    out << "  " << c.name << std::string(10 - c.name.size(), ' ') << c.summary << "\n";
  out << "\n'blockc COMMAND --help' describes a command's options.\n"
         "  --version  print the version\n";
}

/// A report that could not be written is an error like any other (`blockc
/// print x.bir > /dev/full` must not exit 0): stdout is buffered, so the
/// failure shows only when it is flushed, here, once the command is done.
int finishStandardOutput(int exitCode) {
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout)
    return exitCode;
  std::cerr << "blockc: cannot write standard output"
            << (errno ? std::string(": ") + std::strerror(errno) : std::string()) << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  blockc::registerIsaLowerings();
  if (argc < 2) {
    printUsage(std::cerr);
    return 1;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    printUsage(std::cout);
    return 0;
  }
  if (command == "--version") {
    std::cout << "blockc " << BLOCKC_VERSION << "\n";
    return 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const Command &c : kCommands)
    if (c.name == command)
      return finishStandardOutput(c.run(args));
  std::cerr << "blockc: unknown command '" << command << "'; run 'blockc --help'\n";
  return 1;
}

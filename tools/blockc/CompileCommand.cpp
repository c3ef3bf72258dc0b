//===- CompileCommand.cpp - `blockc compile` and `blockc targets` ---------===//
#include "Arguments.h"
#include "Commands.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/DotCascade.h"
#include "blockc/lowering/IsaLowering.h"
#include "blockc/targetinfo/Target.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace blockc::driver {

namespace {

const FlagSpec kHelp{"--help", "", "show this help"};

bool parseEmit(const std::string &text, EmitKind &kind) {
  static const std::pair<const char *, EmitKind> kinds[] = {{"llvm", EmitKind::LLVMIR},
                                                            {"asm", EmitKind::Assembly},
                                                            {"obj", EmitKind::Object},
                                                            {"so", EmitKind::SharedLibrary},
                                                            {"header", EmitKind::Header}};
  for (const auto &[name, k] : kinds)
    if (text == name) {
      kind = k;
      return true;
    }
  return false;
}

} // namespace

std::vector<FlagSpec> compilerFlags() {
  return {
      {"--target", "T", "target from 'blockc targets' (default: host)"},
      {"--features", "LIST",
       "add or remove target features, e.g. +zvfh,-zicond (names as 'blockc targets' prints)"},
      {"-D", "NAME=VALUE", "bind a constexpr (repeatable)", true},
      {"--fast-math", "", "allow SLEEF's 3.5-ULP math variants"},
      {"--sleef-math", "",
       "call SLEEF's 1-ULP functions for f32 exp, exp2, sigmoid, log, tanh and erf instead of "
       "inline code"},
      {"--print-after", "STAGE",
       "print the IR after STAGE ('all' for every stage; see docs/reference.md)", true},
      {"--check-bounds", "",
       "check every load and store lane against its argument's extent (changes the kernel's "
       "arguments: see docs/reference.md)"},
      {"--dump-dir", "DIR",
       "write every stage (.bir per pass, fusion plans, LLVM IR, assembly) to DIR"},
      {"--no-canonicalize-pointers", "",
       "keep pointer tiles carried through loops as tiles (skips CanonicalizePointers)"},
      {"--dot-strategy", "NAME",
       "compute dots with NAME from the target's cascade where it applies, or 'generic' "
       "(default: the best that applies; 'blockc targets' lists them)"},
      {"--streaming-stores", "WHEN",
       "auto, always or never: non-temporal stores for outputs the kernel never reads back "
       "(auto: where a launch writes 32 MiB or more through the store; x86 and AArch64)"},
      {"-L", "DIR", "--emit=so: look for the target's SLEEF and libm in DIR first (repeatable)",
       true},
  };
}

bool compileOptionsFrom(const Arguments &args, CompileOptions &options, std::string &error) {
  options.target = args.value("--target", "host");
  options.features = args.value("--features");
  std::optional<ConstexprBindings> defines = args.defines(error);
  if (!defines)
    return false;
  options.defines = *defines;
  options.fastMath = args.has("--fast-math");
  options.sleefMath = args.has("--sleef-math");
  options.checkBounds = args.has("--check-bounds");
  options.canonicalizePointers = !args.has("--no-canonicalize-pointers");
  options.dotStrategy = args.value("--dot-strategy");
  std::string streaming = args.value("--streaming-stores", "auto");
  if (streaming == "auto") {
    options.streamingStores = CompileOptions::StreamingStores::Auto;
  } else if (streaming == "always") {
    options.streamingStores = CompileOptions::StreamingStores::Always;
  } else if (streaming == "never") {
    options.streamingStores = CompileOptions::StreamingStores::Never;
  } else {
    error = "--streaming-stores=" + streaming + ": expected auto, always or never";
    return false;
  }
  options.dumpDir = args.value("--dump-dir");
  options.librarySearchPaths = args.values("-L");
  for (const std::string &stage : args.values("--print-after")) {
    const auto &names = stageNames();
    if (stage != "all" && std::find(names.begin(), names.end(), stage) == names.end()) {
      error = "--print-after=" + stage + ": unknown stage; stages:";
      for (const std::string &n : names)
        error += " " + n;
      return false;
    }
    options.printAfter.push_back(stage);
  }
  return true;
}

int runCompile(const std::vector<std::string> &argv) {
  std::vector<FlagSpec> flags = compilerFlags();
  flags.push_back({"--emit", "KIND", "llvm, asm, obj, so or header (default: obj)"});
  flags.push_back(
      {"-o", "FILE", "output file (default: FILE with the kind's extension; - for stdout)"});
  flags.push_back(kHelp);
  CommandSpec spec{"compile",
                   "FILE.bir [--target T] [--emit=KIND] [-o OUT] [-D NAME=VALUE]...",
                   "Compile every kernel of a Block IR file for a target.",
                   flags,
                   1,
                   1};
  std::string error;
  int exitCode;
  std::optional<Arguments> args = parseCommandLine(spec, argv, exitCode);
  if (!args)
    return exitCode;
  CompileOptions options;
  EmitKind kind = EmitKind::Object;
  std::string emit = args->value("--emit", "obj");
  if (!parseEmit(emit, kind)) {
    std::cerr << "blockc compile: --emit=" << emit << ": expected llvm, asm, obj, so or header\n";
    return 1;
  }
  if (!compileOptionsFrom(*args, options, error)) {
    std::cerr << "blockc compile: " << error << "\n";
    return 1;
  }
  SourceFile file;
  if (!readSource(args->positional()[0], file, error)) {
    std::cerr << "blockc compile: " << error << "\n";
    return 1;
  }
  std::string output = args->value("-o");
  if (output.empty()) {
    static const char *extensions[] = {".ll", ".s", ".o", ".so", ".h"};
    std::string stem = file.name == "<stdin>" ? "out" : file.name;
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".bir") == 0)
      stem.resize(stem.size() - 4);
    output = stem + extensions[static_cast<int>(kind)];
  }
  DiagnosticEngine diags;
  if (!compileToFile(file, options, kind, output, diags)) {
    std::cerr << formatDiagnostic(diags.diagnostic(),
                                  diags.diagnostic().loc.isValid() ? &file : nullptr);
    return 1;
  }
  return 0;
}

int runTargets(const std::vector<std::string> &argv) {
  CommandSpec spec{
      "targets", "", "List every target with its features, vector width and dot strategies.",
      {kHelp},   0,  0};
  std::string error;
  int exitCode;
  std::optional<Arguments> args = parseCommandLine(spec, argv, exitCode);
  if (!args)
    return exitCode;
  for (const std::string &name : targetNames()) {
    Target t;
    if (!lookupTarget(name, t, error)) {
      std::cerr << "blockc targets: " << error << "\n";
      return 1;
    }
    std::cout << t.name << "\n  " << t.description << "\n  triple " << t.triple << ", cpu " << t.cpu
              << ", vectors "
              << (t.scalable ? "scalable (vscale x " + std::to_string(t.vectorBits) + " bits)"
                             : std::to_string(t.vectorBits) + " bits")
              << ", f32 lanes per register " << (t.scalable ? "vscale x " : "")
              << t.lanes(ScalarKind::F32)
              << (t.fixedVscale ? ", vscale fixed at " + std::to_string(t.fixedVscale) : "")
              << "\n  features";
    for (Feature f : t.features.list())
      std::cout << " " << featureName(f);
    for (const std::string &line : t.detection)
      std::cout << "\n  detected: " << line;
    // The names --dot-strategy takes, in the order lowering tries them.
    std::cout << "\n  dot strategies";
    std::unique_ptr<IsaLowering> isa = makeIsaLowering(t);
    for (const std::unique_ptr<DotStrategy> &strategy : isa->dotStrategies())
      std::cout << " " << strategy->name() << (strategy->onlyWhenNamed() ? " (when named)" : "");
    std::cout << " " << genericDotStrategy().name() << "\n";
  }
  return 0;
}

} // namespace blockc::driver

//===- Compiler.h - Block IR source to machine code -------------*- C++ -*-===//
//
// The compiler's one entry point for tools: parse, verify, run the Block IR
// passes, generate LLVM IR for a Target, optimize, and emit. The stages, in
// order, are in Pipeline.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/Parser.h"
#include "blockc/lowering/Stages.h"
#include "blockc/targetinfo/Target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blockc {

struct CompileOptions {
  /// A name from `blockc targets` (`host`, `x86-64-v4`, `rv64gcv`, ...).
  std::string target = "host";
  /// Features added to or removed from the target (`+zvfh,-zicond`).
  std::string features;
  ConstexprBindings defines;
  /// Lets math ops use SLEEF's faster 3.5-ULP variants.
  bool fastMath = false;
  /// f32 exp, exp2, sigmoid, log, tanh and erf call SLEEF's 1-ULP vector
  /// functions instead of the inline polynomials (InlineMath.cpp: exp, exp2
  /// and log within 1 ULP, tanh and erf within 1.1).
  bool sleefMath = false;
  /// Stages after which the IR is printed to stderr (or `all`); stageNames()
  /// lists them.
  std::vector<std::string> printAfter;
  /// When set, every stage (.bir per pass, fusion plans, LLVM IR before and
  /// after optimization, assembly) is written here.
  std::string dumpDir;
  /// When not empty, code is generated only for these kernels; the others
  /// are still parsed and verified.
  std::vector<std::string> kernels;
  /// Every active load and store lane checks its address against the extent
  /// of the argument it was derived from (blockc_bounds_report in blockc/runtime.h describes
  /// the calling convention this adds).
  bool checkBounds = false;
  /// Runs CanonicalizePointers (off: `--no-canonicalize-pointers`, to compare).
  bool canonicalizePointers = true;
  /// Computes every dot with this strategy of the target's cascade where it
  /// applies, and with the generic path elsewhere (`generic`: always); empty:
  /// the best strategy that accepts each dot. For tests and comparisons.
  std::string dotStrategy;
  /// Stores that bypass the cache (non-temporal) for outputs the kernel never
  /// reads: `Auto` where a launch writes at least kStreamingStoreBytes through
  /// the store (decided when the kernel runs, from its grid) unless its strips
  /// compute math and are narrower than a cache line, `Always`, `Never`.
  enum class StreamingStores { Auto, Always, Never };
  StreamingStores streamingStores = StreamingStores::Auto;
  /// Folders where `--emit=so` looks for the target's SLEEF and libm before
  /// the system's (for a cross target: its Debian sysroot, /usr/TRIPLE/lib).
  std::vector<std::string> librarySearchPaths;
};

/// The most scratch memory one program keeps on the stack of the thread running
/// it (the launcher checks, at each launch, that the stacks hold it). A kernel
/// that needs more takes all of its scratch from the thread's arena, through
/// kScratchArenaFunction, once per program. Part of the kernel ABI: the
/// runtime's BLOCKC_MAX_STACK_SCRATCH_BYTES (runtime/jit/lib/Jit.cpp checks
/// that they agree; docs/launcher.md, "Scratch").
constexpr uint64_t kMaxStackScratchBytes = uint64_t(256) << 10;

/// The runtime function that returns the calling thread's scratch arena:
/// blockc_scratch_arena in blockc/runtime.h.
inline constexpr const char *kScratchArenaFunction = "blockc_scratch_arena";

/// The runtime function through which the programs of a launch on one thread
/// share a dot operand's packed panel: blockc_packed_operand in
/// blockc/runtime.h.
inline constexpr const char *kPackedOperandFunction = "blockc_packed_operand";

/// The runtime function a kernel's `print` calls once per element:
/// blockc_print in blockc/runtime.h. Its format bytes hold a PrintFormat in
/// the low 4 bits and the value's width in bytes in the high 4: part of the
/// kernel ABI (blockc_print_format; runtime/jit/lib/Jit.cpp checks that they
/// agree).
inline constexpr const char *kPrintFunction = "blockc_print";
enum class PrintFormat : uint8_t { Signed = 0, Unsigned = 1, Float = 2, Hex = 3 };

/// The bytes one store writes over a whole launch from which
/// `--streaming-stores=auto` bypasses the cache: more than the last-level cache
/// of the boards and desktop CPUs blockc targets, so that output would not stay
/// cached for the next kernel anyway.
constexpr uint64_t kStreamingStoreBytes = uint64_t(32) << 20;

/// The cache line the generated code plans for: 64 bytes on every CPU blockc
/// targets (x86, the K1's X60, AArch64 cores).
constexpr int64_t kCacheLineBytes = 64;

enum class EmitKind { LLVMIR, Assembly, Object, SharedLibrary, Header };

/// What the launcher and tools need to know about one compiled kernel.
struct CompiledKernel {
  std::string name;
  /// Scratch memory one program needs, on the stack of the thread running it
  /// or, beyond kMaxStackScratchBytes, in that thread's arena (also in the
  /// object, as the constant `blockc_scratch_bytes_NAME`).
  uint64_t scratchBytes = 0;
  /// CoreRequirement bits (IsaLowering.h): units only some cores have, which
  /// the launcher must run the kernel on (also in the object, as the constant
  /// `blockc_core_requirements_NAME`).
  uint64_t coreRequirements = 0;
};

/// The output of a compile: the bytes of the requested kind (LLVM IR text,
/// assembly text or an ELF object) and its kernels.
struct CompiledModule {
  std::string bytes;
  std::vector<CompiledKernel> kernels;
};

/// Runs the whole pipeline for `kind` (LLVMIR, Assembly or Object). On
/// failure returns nothing, with the first error in `diags` (source errors
/// carry locations; target and LLVM errors do not).
std::optional<CompiledModule> compileSource(const SourceFile &source, const CompileOptions &options,
                                            EmitKind kind, DiagnosticEngine &diags);

/// Compiles and writes `kind` to `outputPath` (a shared library is linked
/// with ld.lld; a header needs only the parsed kernels).
bool compileToFile(const SourceFile &source, const CompileOptions &options, EmitKind kind,
                   const std::string &outputPath, DiagnosticEngine &diags);

/// Whether compileToFile links a shared library inside this process (blockc
/// built with liblld) rather than by running the ld.lld program.
bool linksSharedLibrariesInProcess();

/// The target `options` name, with its feature changes applied.
bool resolveTarget(const CompileOptions &options, Target &target, std::string &error);

/// Whether a compile with `options` prints or writes anything besides its
/// output (printAfter, dumpDir or BLOCKC_DEBUG): such a compile must run even
/// when its result is cached.
bool wantsDebugOutput(const CompileOptions &options);

/// The key of a compile: the compiler (compilerBuildId()), the source text,
/// its constexpr bindings, the target with its resolved features
/// (`targetFeatures`: the CPU and LLVM feature string), and every option that
/// changes the code. Two compiles with one key generate the same object, so
/// caches of compiled kernels key on it; an option added to CompileOptions
/// that changes code belongs here.
std::string compileKey(const SourceFile &source, const CompileOptions &options,
                       const std::string &targetFeatures);

/// Identifies the code blockc generates: a hash of the compiler's own sources
/// and build settings, taken when blockc was built, and LLVM's version.
/// Kernel caches key on it.
const char *compilerBuildId();

} // namespace blockc

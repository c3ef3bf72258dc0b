//===- Inspect.h - What the vector and matrix units do in an object -*- C++ -*-===//
//
// `blockc inspect` answers, for any ELF object of x86-64, AArch64 or RISC-V
// (blockc's or another compiler's), the question its users asked by reading
// assembly line by line: does this function use the vector and matrix units,
// and where does its hottest loop spend its time? Functions come from the
// symbol table, their instructions from LLVM's disassembler, loops from the
// control-flow graph, and each innermost loop's cycles per iteration from
// llvm-mca's library with the target CPU's scheduling model.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm::object {
class ObjectFile;
} // namespace llvm::object

namespace blockc::inspect {

/// What an instruction does, as the report counts it.
enum class Category {
  VectorLoad,          // contiguous (or broadcast) vector load
  VectorStridedLoad,   // lanes a register's stride apart (RVV vlse)
  VectorGather,        // lanes at a vector of addresses
  VectorStore,         // contiguous vector store
  VectorStridedStore,  // RVV vsse
  VectorScatter,       // lanes to a vector of addresses
  VectorFma,           // fused multiply-add, multiply-accumulate, dot products
  VectorArithmetic,    // other lane-wise arithmetic, logic, conversions
  VectorReduction,     // across the lanes of a vector
  VectorPermute,       // shuffles, slides, gathers within registers, broadcasts
  VectorMask,          // mask and predicate operations
  VectorConfiguration, // vsetvli and kin
  Matrix,              // AMX tiles, the SpacemiT IME
  Scalar,              // everything else but calls and branches
  Call,
  Branch,
};
constexpr size_t kCategoryCount = size_t(Category::Branch) + 1;

/// The name of `category` in the report (`vector load`, ...).
const char *categoryName(Category category);
/// Whether `category` is work of the vector or matrix units.
bool isVectorOrMatrix(Category category);

/// Instruction counts by category.
struct InstructionMix {
  std::array<unsigned, kCategoryCount> counts{};
  unsigned total() const;
  unsigned vectorOrMatrix() const;
  unsigned operator[](Category c) const { return counts[size_t(c)]; }
  void add(Category c) { ++counts[size_t(c)]; }
  void add(const InstructionMix &other);
};

/// What llvm-mca's scheduling model says of one loop body.
struct Estimate {
  double cyclesPerIteration = 0;
  /// The busiest resource, its busy cycles per iteration and their share
  /// of all cycles.
  std::string busiestUnit;
  double busyCycles = 0;
  double busyShare = 0;
  /// `busiestUnit` when it is busy at least 70% of the cycles, else
  /// `latency` (dependencies stall the loop).
  std::string bound;
  /// Instructions the model has no timing for, and calls: left out.
  unsigned unmodelled = 0;
};

/// A body of instructions: a whole function or one loop.
struct CodeSummary {
  InstructionMix mix;
  /// Vector register widths in use (`zmm`, `ymm`, `xmm`, `q (128-bit)`,
  /// `z (scalable)`, RVV `e32,m4` ...), with instruction counts.
  std::map<std::string, unsigned> widths;
  unsigned vectorSpills = 0, vectorReloads = 0;
  /// Callees by name (`Sleef_expf16_u10avx512f`), or by address.
  std::map<std::string, unsigned> calls;
};

struct LoopReport {
  /// The address of the loop's header, and its position in the function's
  /// list of loops.
  uint64_t header = 0;
  unsigned index = 0;
  unsigned depth = 1;
  bool innermost = true;
  CodeSummary code;
  /// An innermost loop's cycles per iteration. Where its body branches
  /// inside (a rare path, a choice between two stores), each path from the
  /// header back to it is estimated alone, since the two sides of a branch
  /// never run in one iteration: this is the fastest path's estimate, and
  /// `slowestPath` the slowest's.
  std::optional<Estimate> estimate;
  struct Path {
    unsigned instructions = 0;
    Estimate estimate;
  };
  /// Set where the body has several paths (`paths` of them).
  std::optional<Path> fastestPath, slowestPath;
  unsigned paths = 1;
  /// The body as disassembled, in address order (for --loop).
  std::vector<std::string> listing;
};

struct FunctionReport {
  std::string name;
  uint64_t address = 0;
  CodeSummary code;
  std::vector<LoopReport> loops;
  std::vector<std::string> warnings;
};

struct Report {
  /// The file (and, in an archive, the member) that was read.
  std::string source;
  std::string architecture;
  /// The CPU whose scheduling model gave the estimates.
  std::string cpu;
  std::vector<FunctionReport> functions;
};

struct InspectOptions {
  /// The CPU for scheduling estimates and the features for disassembly
  /// (empty: a default per architecture that knows every vector extension).
  std::string cpu;
  std::string features;
  /// Only functions whose name contains this (empty: all).
  std::string function;
  /// Whether loop bodies are kept for listing.
  bool keepListings = false;
  /// Functions known to compute a dot (kernels of a .bir file with a `dot`):
  /// their hottest loop should multiply-add.
  std::vector<std::string> dotFunctions;
};

/// Reads every function of `object`. On failure returns nothing and says
/// why in `error` (an architecture LLVM was not built for, no symbols).
std::optional<Report> inspectObject(const llvm::object::ObjectFile &object,
                                    const InspectOptions &options, std::string &error);

/// The report as a table for people.
std::string renderTable(const std::vector<Report> &reports, bool withListings, int loopIndex);
/// The report as JSON (docs/inspect.md gives its schema).
std::string renderJson(const std::vector<Report> &reports);

} // namespace blockc::inspect

//===- Stages.h - The stages of a compile, named once -----------*- C++ -*-===//
//
// compileSource runs these stages in this order. Their names are what
// `--print-after` accepts, what BLOCKC_DEBUG and `--dump-dir` label their
// output with, and what docs/reference.md lists (a test compares them); they
// are written here and nowhere else.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace blockc {

/// What a stage produces, and so where and from which BLOCKC_DEBUG level it
/// is shown.
enum class StageOutput { BlockIR, FusionPlan, LLVMIR, Assembly };

struct Stage {
  std::string_view name;
  StageOutput output;
  /// What the stage does, in a line.
  std::string_view does;
};

namespace stage {
inline constexpr Stage SpecializeConstexprs{
    "SpecializeConstexprs", StageOutput::BlockIR,
    "-D values, or the defaults, replace every constexpr as the text is parsed"};
inline constexpr Stage InlineCalls{"InlineCalls", StageOutput::BlockIR,
                                   "helper functions into the kernels that call them"};
inline constexpr Stage FoldConstants{"FoldConstants", StageOutput::BlockIR,
                                     "scalar integer arithmetic on constants"};
inline constexpr Stage SimplifyMasks{"SimplifyMasks", StageOutput::BlockIR,
                                     "masks true in every lane disappear"};
inline constexpr Stage CanonicalizePointers{"CanonicalizePointers", StageOutput::BlockIR,
                                            "pointer tiles carried by loops as scalar bases"};
inline constexpr Stage ReduceCarriedBlocks{"ReduceCarriedBlocks", StageOutput::BlockIR,
                                           "block accumulators of loops reduced every trip"};
inline constexpr Stage FuseElementwise{"FuseElementwise", StageOutput::FusionPlan,
                                       "which block values live in scratch"};
inline constexpr Stage GenerateLLVM{"GenerateLLVM", StageOutput::LLVMIR,
                                    "strip loops for the target"};
inline constexpr Stage OptimizeLLVM{"OptimizeLLVM", StageOutput::LLVMIR,
                                    "LLVM's O3, its vectorizers off"};
inline constexpr Stage EmitMachineCode{"EmitMachineCode", StageOutput::Assembly,
                                       "assembly or an object, emitted once"};
} // namespace stage

/// Every stage, in the order compileSource runs them; a stage that runs
/// twice (FoldConstants) is listed once, where it first runs.
const std::vector<Stage> &pipelineStages();

/// pipelineStages()'s names.
const std::vector<std::string> &stageNames();

/// The BLOCKC_DEBUG level from which stages of `output` are printed.
int debugLevelOf(StageOutput output);

/// The file extension of a `--dump-dir` file of `output`, with its dot.
std::string_view dumpExtensionOf(StageOutput output);

} // namespace blockc

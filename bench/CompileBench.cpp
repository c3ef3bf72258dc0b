//===- CompileBench.cpp - Compile time must not grow with block size ------===//
//
// Lowers vector_add (parse, passes, code generation, LLVM O3, object code)
// for BLOCK = 64 ... 65536, and the matmul example (its dots through the
// AVX-512 micro-kernel) for BLOCK_M = BLOCK_N = BLOCK_K = 16 ... 256, and
// prints slowest/fastest of each, which DESIGN.md (principle 1) wants at most
// 1.5.
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/Emit.h"
#include "blockc/targets/IsaLowerings.h"

#include "llvm/IR/Module.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace blockc;

namespace {

std::string readExample(const char *name) {
  std::ifstream in(std::string(BLOCKC_EXAMPLES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void compile(benchmark::State &state, const char *example, const ConstexprBindings &defines) {
  const std::string source = readExample(example);
  SourceFile file{example, source};
  CompileOptions options;
  options.target = "x86-64-v4";
  options.defines = defines;
  for (auto _ : state) {
    DiagnosticEngine diags;
    std::optional<CompiledModule> object = compileSource(file, options, EmitKind::Object, diags);
    if (!object) {
      state.SkipWithError("compile failed");
      return;
    }
    benchmark::DoNotOptimize(object->bytes.data());
  }
}

void compileVectorAdd(benchmark::State &state) {
  compile(state, "vector_add.bir", {{"BLOCK", std::to_string(state.range(0))}});
}

void compileMatmul(benchmark::State &state) {
  std::string block = std::to_string(state.range(0));
  compile(state, "matmul.bir", {{"BLOCK_M", block}, {"BLOCK_N", block}, {"BLOCK_K", block}});
}

class FlatnessReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs)
      if (run.run_type == Run::RT_Iteration && !run.error_occurred)
        times_[run.run_name.function_name].push_back(run.GetAdjustedRealTime());
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto &[name, times] : times_) {
      auto [lo, hi] = std::minmax_element(times.begin(), times.end());
      std::printf("\n%s over block sizes: fastest %.1f ms, slowest %.1f ms, "
                  "slowest/fastest %.2f",
                  name.c_str(), *lo, *hi, *hi / *lo);
    }
    std::printf("\n");
  }

private:
  std::map<std::string, std::vector<double>> times_;
};

} // namespace

BENCHMARK(compileVectorAdd)
    ->Name("compile/vector_add")
    ->ArgName("BLOCK")
    ->RangeMultiplier(4)
    ->Range(64, 65536)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(compileMatmul)
    ->Name("compile/matmul")
    ->ArgName("BLOCK")
    ->RangeMultiplier(2)
    ->Range(16, 256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char **argv) {
  blockc::registerIsaLowerings();
  benchmark::Initialize(&argc, argv);
  FlatnessReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}

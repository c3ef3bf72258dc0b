//===- CompileBench.cpp - Compile time must not grow with block size ------===//
//
// Lowers vector_add (parse, passes, code generation, LLVM O3, object code)
// for BLOCK = 64 ... 65536 and prints slowest/fastest, which DESIGN.md
// (principle 1) wants at most 1.5.
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/Emit.h"

#include "llvm/IR/Module.h"

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

void compileVectorAdd(benchmark::State &state) {
  static const std::string source = readExample("vector_add.bir");
  SourceFile file{"vector_add.bir", source};
  CompileOptions options;
  options.target = "x86-64-v4";
  options.defines = {{"BLOCK", std::to_string(state.range(0))}};
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

class FlatnessReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs)
      if (run.run_type == Run::RT_Iteration && !run.error_occurred)
        times_[run.benchmark_name()] = run.GetAdjustedRealTime();
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    if (times_.empty())
      return;
    double lo = 1e300, hi = 0;
    for (const auto &[name, t] : times_)
      lo = std::min(lo, t), hi = std::max(hi, t);
    std::printf("\ncompile time over BLOCK sizes: fastest %.1f ms, slowest %.1f ms, "
                "slowest/fastest %.2f\n",
                lo, hi, hi / lo);
  }

private:
  std::map<std::string, double> times_;
};

} // namespace

BENCHMARK(compileVectorAdd)
    ->Name("compile/vector_add")
    ->ArgName("BLOCK")
    ->RangeMultiplier(4)
    ->Range(64, 65536)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  FlatnessReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}

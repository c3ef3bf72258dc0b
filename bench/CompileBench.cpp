//===- CompileBench.cpp - Compile time must not grow with block size ------===//
//
// Lowers vector_add (parse, passes, code generation, LLVM O3, object code)
// for BLOCK = 64 ... 65536, and the matmul example (its dots through the
// AVX-512 micro-kernel) for BLOCK_M = BLOCK_N = BLOCK_K = 16 ... 256, and
// prints slowest/fastest of each, which DESIGN.md (principle 1) wants at most
// 1.5. A third family is a kernel of PAIRS chained reduce_max/sub pairs, one
// strip loop each: its time per pair should not grow with PAIRS either, and
// does (LLVM's loop passes; docs/performance.md, "A long integer chain read
// twice").
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

constexpr const char *kChainName = "compile/reduction_chain";

std::string readExample(const char *name) {
  std::ifstream in(std::string(BLOCKC_EXAMPLES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void compileSource(benchmark::State &state, const SourceFile &file,
                   const ConstexprBindings &defines) {
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

void compile(benchmark::State &state, const char *example, const ConstexprBindings &defines) {
  compileSource(state, SourceFile{example, readExample(example)}, defines);
}

void compileVectorAdd(benchmark::State &state) {
  compile(state, "vector_add.bir", {{"BLOCK", std::to_string(state.range(0))}});
}

void compileMatmul(benchmark::State &state) {
  std::string block = std::to_string(state.range(0));
  compile(state, "matmul.bir", {{"BLOCK_M", block}, {"BLOCK_N", block}, {"BLOCK_K", block}});
}

void compileReductionChain(benchmark::State &state) {
  int64_t pairs = state.range(0);
  std::string text = "kernel @chain(%p: ptr<f32>, %out: ptr<f32>) {\n"
                     "  %r = arange 0, 512\n  %pp = addptr %p, %r\n  %x0 = load %pp\n";
  for (int64_t i = 0; i < pairs; ++i) {
    std::string x = "%x" + std::to_string(i), s = "%s" + std::to_string(i);
    text += "  " + s + " = reduce_max " + x + ", axis=0\n";
    text += "  %x" + std::to_string(i + 1) + " = sub " + x + ", " + s + "\n";
  }
  text += "  %op = addptr %out, %r\n  store %op, %x" + std::to_string(pairs) + "\n}\n";
  compileSource(state, SourceFile{"chain.bir", text}, {});
}

/// Prints, per family, the slowest and fastest time over its sizes; for the
/// chain, per pair.
class FlatnessReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs)
      if (run.run_type == Run::RT_Iteration && !run.error_occurred) {
        double time = run.GetAdjustedRealTime();
        const std::string &name = run.run_name.function_name;
        if (name == kChainName)
          time /= std::stod(run.run_name.args.substr(run.run_name.args.find(':') + 1));
        times_[name].push_back(time);
      }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto &[name, times] : times_) {
      auto [lo, hi] = std::minmax_element(times.begin(), times.end());
      std::printf("\n%s over %s: fastest %.1f ms, slowest %.1f ms, slowest/fastest %.2f",
                  name.c_str(), name == kChainName ? "its lengths, per pair" : "block sizes", *lo,
                  *hi, *hi / *lo);
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

BENCHMARK(compileReductionChain)
    ->Name(kChainName)
    ->ArgName("PAIRS")
    ->Arg(25)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Arg(400)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char **argv) {
  blockc::registerIsaLowerings();
  benchmark::Initialize(&argc, argv);
  FlatnessReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}

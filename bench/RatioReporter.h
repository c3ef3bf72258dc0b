//===- RatioReporter.h - Print blockc/baseline ratios after a run -*- C++ -*-===//
//
// Benchmarks come in pairs named `NAME/blockc/...` and `NAME/baseline/...`
// (the rest of the name, e.g. thread count, must match). After the usual
// console output, this prints each pair's speed-up: baseline time / blockc
// time, so > 1 means blockc is faster.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <benchmark/benchmark.h>
#include <cstdio>
#include <map>
#include <string>

namespace blockc::bench {

class RatioReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred)
        continue;
      std::string name = run.benchmark_name();
      for (bool isBlockc : {true, false}) {
        std::string side = isBlockc ? "/blockc" : "/baseline";
        size_t at = name.find(side);
        if (at == std::string::npos)
          continue;
        std::string key = name.substr(0, at) + name.substr(at + side.size());
        (isBlockc ? blockc_ : baseline_)[key] = run.GetAdjustedRealTime();
      }
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    if (blockc_.empty())
      return;
    std::printf("\n%-48s %14s %14s %10s\n", "benchmark", "blockc", "baseline", "speed-up");
    for (const auto &[key, time] : blockc_) {
      auto base = baseline_.find(key);
      if (base == baseline_.end())
        continue;
      std::printf("%-48s %14.3f %14.3f %9.2fx\n", key.c_str(), time, base->second,
                  base->second / time);
    }
  }

private:
  std::map<std::string, double> blockc_, baseline_;
};

} // namespace blockc::bench

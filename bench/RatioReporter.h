//===- RatioReporter.h - Print blockc/baseline ratios after a run -*- C++ -*-===//
//
// Benchmarks come in groups named `NAME/blockc/...` and `NAME/BASELINE/...`,
// where BASELINE is `baseline` or starts with `baseline_` (`baseline_sleef`);
// the rest of the name, e.g. thread count, must match. After the usual console
// output, this prints each blockc run's speed-up over every baseline of its
// group: baseline time / blockc time, so > 1 means blockc is faster.
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
      // NAME/SIDE/REST: SIDE is the second path component.
      std::string name = run.benchmark_name();
      size_t first = name.find('/');
      if (first == std::string::npos)
        continue;
      size_t second = name.find('/', first + 1);
      std::string side = name.substr(first + 1, second - first - 1);
      std::string key =
          name.substr(0, first) + (second == std::string::npos ? "" : name.substr(second));
      if (side == "blockc")
        blockc_[key] = run.GetAdjustedRealTime();
      else if (side == "baseline" || side.rfind("baseline_", 0) == 0)
        baselines_[side][key] = run.GetAdjustedRealTime();
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto &[side, times] : baselines_) {
      std::printf("\n%-48s %14s %14s %10s\n", "benchmark", "blockc", side.c_str(), "speed-up");
      for (const auto &[key, time] : blockc_) {
        auto base = times.find(key);
        if (base != times.end())
          std::printf("%-48s %14.3f %14.3f %9.2fx\n", key.c_str(), time, base->second,
                      base->second / time);
      }
    }
  }

private:
  std::map<std::string, double> blockc_;
  std::map<std::string, std::map<std::string, double>> baselines_;
};

} // namespace blockc::bench

//===- TraceProfileTest.cpp - blockc run --trace and --profile ------------===//
//
// Run as a user runs them: the trace file is parsed and checked as a viewer
// would read it; the profile is read off standard output.
//
//===----------------------------------------------------------------------===//
#include "../runtime/TraceJson.h"
#include "RunProcess.h"

#include <gtest/gtest.h>
#include <map>
#include <regex>

using namespace blockc::test;

namespace {

const std::string kVectorAdd = BLOCKC_EXAMPLES_DIR "/vector_add.bir";

/// vector_add over 2^16 elements: 64 programs of BLOCK 1024.
std::string vectorAdd(const std::string &flags) {
  return "run " + kVectorAdd +
         " --grid 64 --arg a=65536xf32=random --arg b=65536xf32=random --arg c=65536xf32=0 "
         "--arg n=65536 " +
         flags;
}

Json readJson(const std::string &path) {
  Json json;
  std::string error;
  EXPECT_TRUE(JsonReader::parse(slurp(path), json, error)) << error << " in " << path;
  return json;
}

TEST(RunTrace, WritesOneLaunchWithTheSpansOfEachThread) {
  std::string path = (scratchDir("run_trace") / "trace.json").string();
  ProcessResult r = runBlockc(vectorAdd("--threads 2 --schedule dynamic,4 --trace " + path));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "");
  Json trace = readJson(path);
  std::map<int64_t, TracedLaunch> launches;
  ASSERT_EQ(checkTrace(trace, launches), "");
  ASSERT_EQ(launches.size(), 1u);
  const Json &args = (*launches[0].event)["args"];
  EXPECT_EQ(args["kernel"].string, "vector_add");
  EXPECT_EQ(args["programs"].integer(), 64);
  EXPECT_EQ(args["schedule"].string, "dynamic");
  EXPECT_EQ(args["chunk"].integer(), 4);
  EXPECT_EQ(args["requested_threads"].integer(), 2);
  EXPECT_FALSE(launches[0].spans.empty());
}

TEST(RunTrace, RepeatTracesTheWarmUpAndEveryTimedLaunch) {
  std::string path = (scratchDir("run_trace_repeat") / "trace.json").string();
  ProcessResult r = runBlockc(vectorAdd("--threads 2 --order z --repeat 3 --trace " + path));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  Json trace = readJson(path);
  std::map<int64_t, TracedLaunch> launches;
  ASSERT_EQ(checkTrace(trace, launches), "");
  EXPECT_EQ(launches.size(), 4u);
  for (auto &[id, launch] : launches)
    EXPECT_EQ((*launch.event)["args"]["order"].string, "z");
}

TEST(RunTrace, UnwritablePathIsAnErrorNamingIt) {
  ProcessResult r = runBlockc(vectorAdd("--trace /nonexistent-blockc-dir/trace.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "blockc run: --trace: cannot open the trace file "
                   "\"/nonexistent-blockc-dir/trace.json\" for writing: No such file or "
                   "directory\n");
  r = runBlockc(vectorAdd("--trace ''"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--trace ''"), std::string::npos) << r.err;
}

TEST(RunTrace, UnwritableEnvironmentPathIsAnErrorNamingIt) {
  ProcessResult r = runCommand(
      "BLOCKC_TRACE=/nonexistent-blockc-dir/env.json '" BLOCKC_BINARY "' " + vectorAdd(""));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "blockc run: launching 'vector_add' failed: "
                   "BLOCKC_TRACE=\"/nonexistent-blockc-dir/env.json\": cannot open the trace file "
                   "for writing: No such file or directory\n");
  r = runCommand("BLOCKC_TRACE=/nonexistent-blockc-dir/env.json '" BLOCKC_BINARY "' " +
                 vectorAdd("--profile"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("BLOCKC_TRACE: cannot open the trace file "
                       "\"/nonexistent-blockc-dir/env.json\""),
            std::string::npos)
      << r.err;
}

TEST(RunTrace, EnvironmentVariableTracesARun) {
  std::string path = (scratchDir("run_trace_env") / "trace.json").string();
  ProcessResult r =
      runCommand("BLOCKC_TRACE=" + path + " '" BLOCKC_BINARY "' " + vectorAdd("--threads 2"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::map<int64_t, TracedLaunch> launches;
  Json trace = readJson(path);
  ASSERT_EQ(checkTrace(trace, launches), "");
  EXPECT_EQ(launches.size(), 1u);
}

TEST(RunProfile, ReportsTimesBalanceAndEachThread) {
  ProcessResult r = runBlockc(vectorAdd("--threads 2 --schedule static --repeat 5 --profile"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("vector_add: grid 64x1x1, 5 runs after 1 warm-up"), std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n  median +[0-9.]+ [um]?s +[0-9.]+ GB/s\n")))
      << r.out;
  EXPECT_NE(r.out.find("  threads 2, order x, schedule static (default chunk)\n"),
            std::string::npos)
      << r.out;
  std::smatch balance;
  ASSERT_TRUE(std::regex_search(r.out, balance,
                                std::regex("\n  balance ([0-9.]+) busiest/average thread time in "
                                           "programs \\(median of 5; best [0-9.]+, worst "
                                           "[0-9.]+\\)\n")))
      << r.out;
  EXPECT_GE(std::stod(balance[1]), 1.0);
  EXPECT_LE(std::stod(balance[1]), 2.0); // at most the team size
  // Static without a chunk: 32 programs in one span on each thread.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n  0 +[0-9.]+ us +32 +1\n  1 +[0-9.]+ us +32 "
                                                  "+1\n")))
      << r.out;
}

TEST(RunProfile, AloneTimesOneLaunchAndTakesFlops) {
  std::string path = (scratchDir("run_profile") / "trace.json").string();
  ProcessResult r = runBlockc(vectorAdd("--threads 2 --profile --flops 65536 --trace " + path));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("1 run after 1 warm-up"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(median of 1;"), std::string::npos) << r.out;
  std::map<int64_t, TracedLaunch> launches;
  Json trace = readJson(path);
  ASSERT_EQ(checkTrace(trace, launches), "");
  EXPECT_EQ(launches.size(), 2u);
}

} // namespace

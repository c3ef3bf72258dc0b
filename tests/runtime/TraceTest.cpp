//===- TraceTest.cpp - blockc_trace_* and BLOCKC_TRACE ----------------------===//
//
// Every test parses the file the runtime wrote, as a viewer would, and checks
// it against what the kernel saw: which OpenMP thread ran each program.
//
//===----------------------------------------------------------------------===//
#include "Trace.h"

#include "GridOrder.h"
#include "Scratch.h"
#include "TraceJson.h"
#include "blockc/launcher.hpp"
#include "blockc/runtime.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <omp.h>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

using blockc::test::checkTrace;
using blockc::test::Json;
using blockc::test::JsonReader;
using blockc::test::TracedLaunch;

namespace {

std::string tempPath(const std::string &name) {
  return blockc::test::scratchPath(name).string();
}

Json readTrace(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  Json json;
  std::string error;
  EXPECT_TRUE(JsonReader::parse(text.str(), json, error)) << error << " in " << path;
  return json;
}

/// The OpenMP thread that ran each program, by (x, y, z).
struct RanBy {
  int64_t gx, gy;
  std::vector<std::atomic<int>> thread;
  RanBy(blockc_grid grid) : gx(grid.x), gy(grid.y), thread(size_t(grid.x * grid.y * grid.z)) {
    for (auto &t : thread)
      t.store(-1);
  }
  std::atomic<int> &at(int64_t x, int64_t y, int64_t z) {
    return thread[size_t((z * gy + y) * gx + x)];
  }
};

void recordThread(void **args, int32_t x, int32_t y, int32_t z, int32_t, int32_t, int32_t) {
  static_cast<RanBy *>(args[0])->at(x, y, z).store(omp_get_thread_num());
  // Enough work for the threads to interleave.
  volatile int sink = 0;
  for (int i = 0; i < 200; ++i)
    sink = sink + i;
}

blockc::runtime::ProgramId decode(const blockc_launch_options &o, blockc_grid g, int64_t flat) {
  using namespace blockc::runtime;
  if (o.order == BLOCKC_ORDER_Z_FASTEST)
    return ZFastestOrder<int64_t>{g.y, g.z}(flat);
  if (o.order == BLOCKC_ORDER_GROUPED)
    return GroupedOrder<int64_t>{g.x, g.y, std::min<int64_t>(o.group_size, g.y)}(flat);
  return XFastestOrder<int64_t>{g.x, g.y}(flat);
}

const char *kOrders[] = {"x", "z", "grouped"};
const char *kSchedules[] = {"static", "dynamic", "guided", "auto"};

// threads, order, schedule, chunk
using TraceCase = std::tuple<int, int, int, int>;

class TracedLaunches : public testing::TestWithParam<TraceCase> {};

TEST_P(TracedLaunches, OneSpanPerChunkOfEachThreadCoveringTheGrid) {
  auto [threads, order, schedule, chunk] = GetParam();
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = threads;
  options.order = order;
  options.group_size = 3;
  options.schedule = schedule;
  options.chunk_size = chunk;
  const blockc_grid grid{37, 11, 3};
  RanBy ranBy(grid);
  void *args[] = {&ranBy};
  blockc_kernel_info info = BLOCKC_KERNEL_INFO("record_thread", 0, 0);

  std::string path = tempPath("case.json");
  ASSERT_EQ(blockc_trace_start(path.c_str()), BLOCKC_SUCCESS) << blockc_last_error();
  ASSERT_EQ(blockc_launch_kernel(recordThread, args, grid, &options, &info), BLOCKC_SUCCESS);
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS) << blockc_last_error();

  Json trace = readTrace(path);
  std::map<int64_t, TracedLaunch> launches;
  ASSERT_EQ(checkTrace(trace, launches), "");
  ASSERT_EQ(launches.size(), 1u);
  const TracedLaunch &launch = launches.begin()->second;
  const Json &args0 = (*launch.event)["args"];
  EXPECT_EQ((*launch.event)["name"].string, "launch record_thread");
  EXPECT_EQ((*launch.event)["pid"].integer(), int64_t(getpid()));
  EXPECT_EQ(args0["kernel"].string, "record_thread");
  EXPECT_EQ(args0["grid"].array.size(), 3u);
  EXPECT_EQ(args0["grid"].array[0].integer(), 37);
  EXPECT_EQ(args0["programs"].integer(), 37 * 11 * 3);
  EXPECT_EQ(args0["requested_threads"].integer(), threads);
  EXPECT_LE(args0["threads"].integer(), threads);
  EXPECT_EQ(args0["order"].string, kOrders[order]);
  EXPECT_EQ(args0["schedule"].string, kSchedules[schedule]);
  EXPECT_EQ(args0["untraced_programs"].integer(), 0);
  int64_t team = args0["threads"].integer();

  // Each span's programs ran on the span's thread; a thread's spans follow
  // one another in time.
  const int64_t programs = args0["programs"].integer();
  std::map<int64_t, std::vector<const Json *>> spansOfThread;
  for (const Json *span : launch.spans) {
    const Json &a = (*span)["args"];
    int64_t thread = a["thread"].integer();
    spansOfThread[thread].push_back(span);
    for (int64_t flat = a["first"].integer(); flat < a["first"].integer() + a["programs"].integer();
         ++flat) {
      auto id = decode(options, grid, flat);
      ASSERT_EQ(ranBy.at(id.x, id.y, id.z).load(), thread) << "program " << flat;
    }
    auto first = decode(options, grid, a["first"].integer());
    EXPECT_EQ(a["first_program"].array[0].integer(), first.x);
    EXPECT_EQ(a["first_program"].array[1].integer(), first.y);
    EXPECT_EQ(a["first_program"].array[2].integer(), first.z);
    // A span is a whole number of chunks: consecutive chunks of one thread
    // make one span.
    if ((schedule == BLOCKC_SCHEDULE_DYNAMIC || schedule == BLOCKC_SCHEDULE_STATIC) && chunk > 0) {
      EXPECT_EQ(a["first"].integer() % chunk, 0);
      int64_t end = a["first"].integer() + a["programs"].integer();
      EXPECT_TRUE(end % chunk == 0 || end == programs);
    }
  }
  for (auto &[thread, spans] : spansOfThread)
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE((*spans[i - 1])["ts"].number + (*spans[i - 1])["dur"].number,
                (*spans[i])["ts"].number + 1e-6);

  // Static schedules decide every span in advance.
  if (schedule == BLOCKC_SCHEDULE_STATIC && team == threads) {
    if (chunk == 0) {
      EXPECT_EQ(launch.spans.size(), size_t(team));
    } else {
      int64_t chunks = (programs + chunk - 1) / chunk;
      for (auto &[thread, spans] : spansOfThread)
        EXPECT_EQ(int64_t(spans.size()), (chunks - thread + team - 1) / team)
            << "thread " << thread;
    }
  }

  // blockc_trace_read gives the same records.
  int64_t count = blockc_trace_read(nullptr, 0, 0);
  ASSERT_EQ(count, int64_t(launch.spans.size()) + 1);
  std::vector<blockc_trace_span> records(static_cast<size_t>(count));
  ASSERT_EQ(blockc_trace_read(records.data(), 0, count), count);
  EXPECT_EQ(records[0].thread, -1);
  EXPECT_EQ(records[0].programs, programs);
  int64_t covered = 0;
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_GE(records[i].thread, 0);
    EXPECT_GE(records[i].start_us, records[0].start_us);
    EXPECT_LE(records[i].end_us, records[0].end_us);
    covered += records[i].programs;
  }
  EXPECT_EQ(covered, programs);
}

std::string caseName(const testing::TestParamInfo<TraceCase> &info) {
  auto [threads, order, schedule, chunk] = info.param;
  return std::to_string(threads) + "threads_" + kOrders[order] + "_" + kSchedules[schedule] +
         (chunk ? "_chunk" + std::to_string(chunk) : "");
}

INSTANTIATE_TEST_SUITE_P(
    Trace, TracedLaunches,
    testing::Combine(testing::Values(2, 4),
                     testing::Values(BLOCKC_ORDER_X_FASTEST, BLOCKC_ORDER_Z_FASTEST,
                                     BLOCKC_ORDER_GROUPED),
                     testing::Values(BLOCKC_SCHEDULE_STATIC, BLOCKC_SCHEDULE_DYNAMIC,
                                     BLOCKC_SCHEDULE_GUIDED, BLOCKC_SCHEDULE_AUTO),
                     testing::Values(0, 7)),
    caseName);

void nothing(void **, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {}

TEST(Trace, OneThreadRunsOneSpanOnTheCallingThread) {
  std::string path = tempPath("one.json");
  ASSERT_EQ(blockc_trace_start(path.c_str()), BLOCKC_SUCCESS);
  ASSERT_EQ(blockc::launch(nothing, {100, 2, 1}, blockc::LaunchOptions().threads(1)),
            BLOCKC_SUCCESS);
  ASSERT_EQ(blockc_launch(nothing, nullptr, {0, 5, 1}, nullptr), BLOCKC_SUCCESS);
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  std::map<int64_t, TracedLaunch> launches;
  Json written = readTrace(path);
  ASSERT_EQ(checkTrace(written, launches), "");
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_EQ(launches[0].spans.size(), 1u);
  EXPECT_EQ((*launches[0].spans[0])["args"]["programs"].integer(), 200);
  EXPECT_EQ((*launches[0].spans[0])["tid"].integer(), (*launches[0].event)["tid"].integer());
  // Without kernel info the kernel has no name; an empty grid is a launch too.
  EXPECT_EQ((*launches[1].event)["args"]["kernel"].string, "kernel");
  EXPECT_EQ((*launches[1].event)["args"]["programs"].integer(), 0);
  EXPECT_TRUE(launches[1].spans.empty());
}

TEST(Trace, NamesProcessAndThreads) {
  std::string path = tempPath("names.json");
  ASSERT_EQ(blockc_trace_start(path.c_str()), BLOCKC_SUCCESS);
  ASSERT_EQ(blockc::launch(nothing, {64, 1, 1}, blockc::LaunchOptions().threads(2)),
            BLOCKC_SUCCESS);
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  Json trace = readTrace(path);
  std::set<int64_t> named, used;
  bool process = false;
  for (const Json &e : trace["traceEvents"].array) {
    if (e["ph"].string == "M" && e["name"].string == "thread_name")
      named.insert(e["tid"].integer());
    if (e["ph"].string == "M" && e["name"].string == "process_name")
      process = e["args"]["name"].string == "blockc";
    if (e["ph"].string == "X")
      used.insert(e["tid"].integer());
  }
  EXPECT_TRUE(process);
  EXPECT_EQ(named, used);
}

TEST(Trace, FlushWritesACompleteFileAndRecordingGoesOn) {
  std::string path = tempPath("flush.json");
  ASSERT_EQ(blockc_trace_start(path.c_str()), BLOCKC_SUCCESS);
  // Valid from the start, before any launch.
  std::map<int64_t, TracedLaunch> launches;
  Json written = readTrace(path);
  ASSERT_EQ(checkTrace(written, launches), "");
  EXPECT_TRUE(launches.empty());
  blockc::LaunchOptions options = blockc::LaunchOptions().threads(2);
  for (int flush = 1; flush <= 3; ++flush) {
    ASSERT_EQ(blockc::launch(nothing, {1000, 1, 1}, options), BLOCKC_SUCCESS);
    ASSERT_EQ(blockc_trace_flush(), BLOCKC_SUCCESS);
    launches.clear();
    Json written = readTrace(path);
    ASSERT_EQ(checkTrace(written, launches), "");
    EXPECT_EQ(launches.size(), size_t(flush));
  }
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  // Stopped: launches are not recorded, and the records stay readable.
  int64_t records = blockc_trace_read(nullptr, 0, 0);
  ASSERT_EQ(blockc::launch(nothing, {1000, 1, 1}, options), BLOCKC_SUCCESS);
  EXPECT_EQ(blockc_trace_read(nullptr, 0, 0), records);
  EXPECT_EQ(blockc_trace_flush(), BLOCKC_SUCCESS);
  launches.clear();
  written = readTrace(path);
  ASSERT_EQ(checkTrace(written, launches), "");
  EXPECT_EQ(launches.size(), 3u);
  // A new trace starts empty, in memory.
  ASSERT_EQ(blockc_trace_start(nullptr), BLOCKC_SUCCESS);
  EXPECT_EQ(blockc_trace_read(nullptr, 0, 0), 0);
  ASSERT_EQ(blockc::launch(nothing, {10, 1, 1}, options), BLOCKC_SUCCESS);
  EXPECT_GE(blockc_trace_read(nullptr, 0, 0), 2);
  EXPECT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
}

TEST(Trace, UnwritablePathIsAnErrorNamingIt) {
  std::string good = tempPath("kept.json");
  ASSERT_EQ(blockc_trace_start(good.c_str()), BLOCKC_SUCCESS);
  const char *bad = "/nonexistent-blockc-dir/trace.json";
  EXPECT_EQ(blockc_trace_start(bad), BLOCKC_ERROR_TRACE_FILE);
  EXPECT_NE(std::string(blockc_last_error()).find(bad), std::string::npos) << blockc_last_error();
  EXPECT_NE(std::string(blockc_last_error()).find("No such file"), std::string::npos);
  // The trace that was recording goes on.
  ASSERT_EQ(blockc::launch(nothing, {10, 1, 1}, blockc::LaunchOptions().threads(2)),
            BLOCKC_SUCCESS);
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  std::map<int64_t, TracedLaunch> launches;
  Json written = readTrace(good);
  ASSERT_EQ(checkTrace(written, launches), "");
  EXPECT_EQ(launches.size(), 1u);
}

TEST(Trace, EnvironmentVariableStartsATraceAtTheFirstLaunch) {
  std::string path = tempPath("env.json");
  setenv("BLOCKC_TRACE", path.c_str(), 1);
  blockc::runtime::rereadTraceEnvironmentForTesting();
  // Explicit options too: BLOCKC_TRACE is about the process, not a launch.
  EXPECT_EQ(blockc::launch(nothing, {50, 1, 1}, blockc::LaunchOptions().threads(2)),
            BLOCKC_SUCCESS);
  EXPECT_EQ(blockc_trace_flush(), BLOCKC_SUCCESS);
  unsetenv("BLOCKC_TRACE");
  std::map<int64_t, TracedLaunch> launches;
  Json written = readTrace(path);
  ASSERT_EQ(checkTrace(written, launches), "");
  EXPECT_EQ(launches.size(), 1u);
  EXPECT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
}

TEST(Trace, UnwritableEnvironmentPathFailsEveryLaunch) {
  const char *bad = "/nonexistent-blockc-dir/env.json";
  setenv("BLOCKC_TRACE", bad, 1);
  blockc::runtime::rereadTraceEnvironmentForTesting();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(blockc::launch(nothing, {50, 1, 1}, blockc::LaunchOptions().threads(2)),
              BLOCKC_ERROR_INVALID_ENVIRONMENT);
    EXPECT_EQ(std::string(blockc_last_error()),
              std::string("BLOCKC_TRACE=\"") + bad +
                  "\": cannot open the trace file for writing: No such file or directory");
  }
  // The API takes over from the variable.
  EXPECT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  EXPECT_EQ(blockc::launch(nothing, {50, 1, 1}, blockc::LaunchOptions().threads(2)),
            BLOCKC_SUCCESS);
  unsetenv("BLOCKC_TRACE");
  blockc::runtime::rereadTraceEnvironmentForTesting();
  EXPECT_EQ(blockc::launch(nothing, {50, 1, 1}, blockc::LaunchOptions().threads(2)),
            BLOCKC_SUCCESS);
}

TEST(Trace, FullSpanBuffersAreMarkedAndCounted) {
  blockc::runtime::setMaxSpansPerLaunchForTesting(4);
  std::string path = tempPath("full.json");
  ASSERT_EQ(blockc_trace_start(path.c_str()), BLOCKC_SUCCESS);
  // Static with chunk 1 on two threads: every program is a span of its own.
  int status = blockc::launch(
      nothing, {100, 1, 1}, blockc::LaunchOptions().threads(2).schedule(BLOCKC_SCHEDULE_STATIC, 1));
  blockc::runtime::setMaxSpansPerLaunchForTesting(0);
  ASSERT_EQ(status, BLOCKC_SUCCESS);
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  Json trace = readTrace(path);
  std::map<int64_t, TracedLaunch> launches;
  ASSERT_EQ(checkTrace(trace, launches), "");
  const Json &args = (*launches[0].event)["args"];
  if (args["threads"].integer() < 2)
    GTEST_SKIP() << "OpenMP gave one thread";
  EXPECT_EQ(launches[0].spans.size(), 4u);
  EXPECT_EQ(args["untraced_programs"].integer(), 96);
  bool marked = false;
  for (const Json &e : trace["traceEvents"].array)
    marked |= e["ph"].string == "i" && e["name"].string.find("trace truncated") == 0;
  EXPECT_TRUE(marked);
}

TEST(Trace, ConcurrentLaunchesFromApplicationThreadsAreEachRecordedWhole) {
  std::string path = tempPath("concurrent.json");
  ASSERT_EQ(blockc_trace_start(path.c_str()), BLOCKC_SUCCESS);
  constexpr int kThreads = 4, kLaunches = 20;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLaunches; ++i) {
        blockc::LaunchOptions options = blockc::LaunchOptions().threads(2).schedule(
            i % 2 ? BLOCKC_SCHEDULE_DYNAMIC : BLOCKC_SCHEDULE_AUTO, i % 3);
        if (blockc::launch(nothing, {200 + t, 3, 1}, options) != BLOCKC_SUCCESS)
          ++failures;
        // Flushing and reading race with the launches.
        if (i % 7 == 0 &&
            (blockc_trace_flush() != BLOCKC_SUCCESS || blockc_trace_read(nullptr, 0, 0) < 0))
          ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(blockc_trace_stop(), BLOCKC_SUCCESS);
  std::map<int64_t, TracedLaunch> launches;
  Json written = readTrace(path);
  ASSERT_EQ(checkTrace(written, launches), "");
  EXPECT_EQ(launches.size(), size_t(kThreads * kLaunches));
}

} // namespace

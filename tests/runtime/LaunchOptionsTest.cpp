//===- LaunchOptionsTest.cpp - Defaults, environment, and bad options -----===//
//
// Every error must name the option or variable and its value; the tests pin
// the whole message so that a vaguer rewording shows up as a failure.
//
//===----------------------------------------------------------------------===//
#include "blockc/launcher.hpp"
#include "blockc/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <omp.h>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *const kVariables[] = {"BLOCKC_NUM_THREADS", "BLOCKC_GRID_ORDER", "BLOCKC_GROUP_SIZE",
                                  "BLOCKC_SCHEDULE",    "BLOCKC_CHUNK",      "BLOCKC_AFFINITY"};

/// Each test starts and ends with no BLOCKC_* variable set.
class Environment : public testing::Test {
protected:
  void SetUp() override { unsetAll(); }
  void TearDown() override { unsetAll(); }
  static void unsetAll() {
    for (const char *name : kVariables)
      unsetenv(name);
  }
};

bool sameOptions(const blockc_launch_options &a, const blockc_launch_options &b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(LaunchOptions, Defaults) {
  blockc_launch_options options;
  std::memset(&options, 0xff, sizeof options);
  blockc_launch_options_init(&options);
  EXPECT_EQ(options.num_threads, 0);
  EXPECT_EQ(options.order, BLOCKC_ORDER_X_FASTEST);
  EXPECT_EQ(options.group_size, 8);
  EXPECT_EQ(options.schedule, BLOCKC_SCHEDULE_AUTO);
  EXPECT_EQ(options.chunk_size, 0);
  EXPECT_EQ(options.num_affinity_cores, 0);
  EXPECT_EQ(blockc_launch_options_check(&options), BLOCKC_SUCCESS);
}

TEST_F(Environment, UnsetOrEmptyVariablesChangeNothing) {
  blockc_launch_options options = blockc::LaunchOptions().threads(3).grouped(4).raw();
  blockc_launch_options before = options;
  const char *message = "not touched";
  EXPECT_EQ(blockc_launch_options_from_env(&options, &message), BLOCKC_SUCCESS);
  EXPECT_EQ(message, nullptr);
  for (const char *name : kVariables)
    setenv(name, "", 1);
  EXPECT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_SUCCESS);
  EXPECT_TRUE(sameOptions(options, before));
}

TEST_F(Environment, EachVariableSetsItsField) {
  setenv("BLOCKC_NUM_THREADS", "3", 1);
  setenv("BLOCKC_GRID_ORDER", "Grouped", 1);
  setenv("BLOCKC_GROUP_SIZE", " 16 ", 1);
  setenv("BLOCKC_SCHEDULE", "dynamic, 64", 1);
  setenv("BLOCKC_AFFINITY", "0-3,6,8", 1);
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  ASSERT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(options.num_threads, 3);
  EXPECT_EQ(options.order, BLOCKC_ORDER_GROUPED);
  EXPECT_EQ(options.group_size, 16);
  EXPECT_EQ(options.schedule, BLOCKC_SCHEDULE_DYNAMIC);
  EXPECT_EQ(options.chunk_size, 64);
  ASSERT_EQ(options.num_affinity_cores, 6);
  EXPECT_EQ(std::vector<int32_t>(options.affinity_cores, options.affinity_cores + 6),
            (std::vector<int32_t>{0, 1, 2, 3, 6, 8}));
}

TEST_F(Environment, OrdersSchedulesAndChunk) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  setenv("BLOCKC_GRID_ORDER", "z", 1);
  setenv("BLOCKC_SCHEDULE", "guided", 1);
  setenv("BLOCKC_CHUNK", "5", 1);
  ASSERT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_SUCCESS);
  EXPECT_EQ(options.order, BLOCKC_ORDER_Z_FASTEST);
  EXPECT_EQ(options.schedule, BLOCKC_SCHEDULE_GUIDED);
  EXPECT_EQ(options.chunk_size, 5);

  setenv("BLOCKC_GRID_ORDER", "X", 1);
  setenv("BLOCKC_SCHEDULE", "STATIC,5", 1); // the same chunk twice agrees
  ASSERT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_SUCCESS)
      << blockc_last_error();
  EXPECT_EQ(options.order, BLOCKC_ORDER_X_FASTEST);
  EXPECT_EQ(options.schedule, BLOCKC_SCHEDULE_STATIC);
  EXPECT_EQ(options.chunk_size, 5);
}

TEST_F(Environment, ScheduleWithoutChunkMeansItsDefaultChunk) {
  blockc_launch_options options =
      blockc::LaunchOptions().schedule(BLOCKC_SCHEDULE_STATIC, 64).raw();
  setenv("BLOCKC_SCHEDULE", "dynamic", 1);
  ASSERT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_SUCCESS);
  EXPECT_EQ(options.schedule, BLOCKC_SCHEDULE_DYNAMIC);
  EXPECT_EQ(options.chunk_size, 0);

  setenv("BLOCKC_CHUNK", "16", 1);
  ASSERT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_SUCCESS);
  EXPECT_EQ(options.chunk_size, 16);
}

struct BadVariable {
  const char *name;
  const char *value;
  const char *message;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadVariable &c, std::ostream *os) {
  *os << c.name;
}

class BadEnvironment : public testing::TestWithParam<BadVariable> {
protected:
  void SetUp() override {
    for (const char *name : kVariables)
      unsetenv(name);
  }
  void TearDown() override { SetUp(); }
};

TEST_P(BadEnvironment, IsAnErrorQuotingTheVariableAndLeavesOptionsAlone) {
  const BadVariable &bad = GetParam();
  setenv(bad.name, bad.value, 1);
  blockc_launch_options options, before;
  blockc_launch_options_init(&options);
  before = options;
  const char *message = nullptr;
  EXPECT_EQ(blockc_launch_options_from_env(&options, &message), BLOCKC_ERROR_INVALID_ENVIRONMENT);
  ASSERT_NE(message, nullptr);
  EXPECT_STREQ(message, bad.message);
  EXPECT_STREQ(blockc_last_error(), bad.message);
  EXPECT_TRUE(sameOptions(options, before));

  // A launch without options reads the environment and must refuse too.
  EXPECT_EQ(blockc_launch([](void **, int32_t, int32_t, int32_t, int32_t, int32_t,
                             int32_t) { ADD_FAILURE() << "a kernel ran"; },
                          nullptr, {4, 1, 1}, nullptr),
            BLOCKC_ERROR_INVALID_ENVIRONMENT);
  EXPECT_STREQ(blockc_last_error(), bad.message);
}

const BadVariable kBadVariables[] = {
    {"BLOCKC_NUM_THREADS", "4x", "BLOCKC_NUM_THREADS=\"4x\": expected an integer from 0 to 1024"},
    {"BLOCKC_NUM_THREADS", "-1", "BLOCKC_NUM_THREADS=\"-1\": expected an integer from 0 to 1024"},
    {"BLOCKC_NUM_THREADS", "99999999999999999999",
     "BLOCKC_NUM_THREADS=\"99999999999999999999\": expected an integer from 0 to 1024"},
    {"BLOCKC_NUM_THREADS", "two", "BLOCKC_NUM_THREADS=\"two\": expected an integer from 0 to 1024"},
    {"BLOCKC_GRID_ORDER", "y", "BLOCKC_GRID_ORDER=\"y\": expected x, z or grouped"},
    {"BLOCKC_GROUP_SIZE", "0", "BLOCKC_GROUP_SIZE=\"0\": expected an integer from 1 to 2147483647"},
    {"BLOCKC_GROUP_SIZE", "8.5",
     "BLOCKC_GROUP_SIZE=\"8.5\": expected an integer from 1 to 2147483647"},
    {"BLOCKC_SCHEDULE", "runtime",
     "BLOCKC_SCHEDULE=\"runtime\": expected static, dynamic, guided or auto, optionally followed "
     "by ,CHUNK"},
    {"BLOCKC_SCHEDULE", "static,",
     "BLOCKC_SCHEDULE=\"static,\": the chunk after the comma must be an integer from 0 to "
     "2147483647"},
    {"BLOCKC_SCHEDULE", "dynamic,x4",
     "BLOCKC_SCHEDULE=\"dynamic,x4\": the chunk after the comma must be an integer from 0 to "
     "2147483647"},
    {"BLOCKC_CHUNK", "-8", "BLOCKC_CHUNK=\"-8\": expected an integer from 0 to 2147483647"},
    {"BLOCKC_AFFINITY", "0-x",
     "BLOCKC_AFFINITY=\"0-x\": \"0-x\" is not a core id or a range FIRST-LAST of core ids from 0 "
     "to 1023"},
    {"BLOCKC_AFFINITY", "0,,1",
     "BLOCKC_AFFINITY=\"0,,1\": \"\" is not a core id or a range FIRST-LAST of core ids from 0 to "
     "1023"},
    {"BLOCKC_AFFINITY", "1024",
     "BLOCKC_AFFINITY=\"1024\": \"1024\" is not a core id or a range FIRST-LAST of core ids from "
     "0 to 1023"},
    {"BLOCKC_AFFINITY", "3-1", "BLOCKC_AFFINITY=\"3-1\": the range \"3-1\" is descending"},
    {"BLOCKC_AFFINITY", "0-3,2", "BLOCKC_AFFINITY=\"0-3,2\": core 2 is listed twice"},
    {"BLOCKC_AFFINITY", "0-300", "BLOCKC_AFFINITY=\"0-300\": more than 256 cores"},
};

INSTANTIATE_TEST_SUITE_P(Environment, BadEnvironment, testing::ValuesIn(kBadVariables),
                         [](const testing::TestParamInfo<BadVariable> &info) {
                           return std::string(info.param.name + 7) + "_" +
                                  std::to_string(info.index);
                         });

TEST_F(Environment, ChunkContradictingTheScheduleIsAnError) {
  setenv("BLOCKC_SCHEDULE", "static,32", 1);
  setenv("BLOCKC_CHUNK", "64", 1);
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  EXPECT_EQ(blockc_launch_options_from_env(&options, nullptr), BLOCKC_ERROR_INVALID_ENVIRONMENT);
  EXPECT_STREQ(blockc_last_error(),
               "BLOCKC_CHUNK=\"64\" contradicts the chunk of BLOCKC_SCHEDULE=\"static,32\"");
  EXPECT_EQ(options.chunk_size, 0);
}

void countCalls(void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  static_cast<std::atomic<int> *>(args[0])->fetch_add(1);
}

TEST_F(Environment, LaunchWithoutOptionsUsesTheEnvironment) {
  setenv("BLOCKC_NUM_THREADS", "1", 1);
  std::atomic<int> level{-1};
  void *args[] = {&level};
  ASSERT_EQ(blockc_launch(
                [](void **args, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
                  static_cast<std::atomic<int> *>(args[0])->store(omp_get_level());
                },
                args, {50, 1, 1}, nullptr),
            BLOCKC_SUCCESS);
  EXPECT_EQ(level.load(), 0) << "one thread runs without entering OpenMP";
}

//===- Bad options and arguments --------------------------------------------===//

struct BadOption {
  const char *name;
  std::function<void(blockc_launch_options &)> change;
  const char *message;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadOption &c, std::ostream *os) {
  *os << c.name;
}

class BadOptions : public testing::TestWithParam<BadOption> {};

TEST_P(BadOptions, AreAnErrorNamingTheFieldAndValue) {
  const BadOption &bad = GetParam();
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  bad.change(options);
  EXPECT_EQ(blockc_launch_options_check(&options), BLOCKC_ERROR_INVALID_OPTION);
  EXPECT_STREQ(blockc_last_error(), bad.message);

  std::atomic<int> calls{0};
  void *args[] = {&calls};
  EXPECT_EQ(blockc_launch(countCalls, args, {16, 2, 1}, &options), BLOCKC_ERROR_INVALID_OPTION);
  EXPECT_STREQ(blockc_last_error(), bad.message);
  EXPECT_EQ(calls.load(), 0);
}

const BadOption kBadOptions[] = {
    {"NegativeThreads", [](auto &o) { o.num_threads = -1; },
     "num_threads = -1: expected 0 (the default) to 1024"},
    {"TooManyThreads", [](auto &o) { o.num_threads = 5000; },
     "num_threads = 5000: expected 0 (the default) to 1024"},
    {"UnknownOrder", [](auto &o) { o.order = 7; },
     "order = 7: expected BLOCKC_ORDER_X_FASTEST (0), BLOCKC_ORDER_Z_FASTEST (1) or "
     "BLOCKC_ORDER_GROUPED (2)"},
    {"GroupOfZero",
     [](auto &o) {
       o.order = BLOCKC_ORDER_GROUPED;
       o.group_size = 0;
     },
     "group_size = 0: the grouped order needs a group size of at least 1"},
    {"UnknownSchedule", [](auto &o) { o.schedule = -2; },
     "schedule = -2: expected BLOCKC_SCHEDULE_STATIC (0), BLOCKC_SCHEDULE_DYNAMIC (1), "
     "BLOCKC_SCHEDULE_GUIDED (2) or BLOCKC_SCHEDULE_AUTO (3)"},
    {"NegativeChunk", [](auto &o) { o.chunk_size = -4; },
     "chunk_size = -4: expected 0 (the schedule's default) or more"},
    {"NegativeCoreCount", [](auto &o) { o.num_affinity_cores = -1; },
     "num_affinity_cores = -1: expected 0 to 256"},
    {"TooManyCores", [](auto &o) { o.num_affinity_cores = 257; },
     "num_affinity_cores = 257: expected 0 to 256"},
    {"NegativeCore",
     [](auto &o) {
       o.num_affinity_cores = 1;
       o.affinity_cores[0] = -3;
     },
     "affinity_cores[0] = -3: expected a core id from 0 to 1023"},
    {"CoreAboveTheLimit",
     [](auto &o) {
       o.num_affinity_cores = 2;
       o.affinity_cores[1] = 4096;
     },
     "affinity_cores[1] = 4096: expected a core id from 0 to 1023"},
    {"CoreListedTwice",
     [](auto &o) {
       o.num_affinity_cores = 2;
       o.affinity_cores[0] = o.affinity_cores[1] = 0;
     },
     "affinity_cores[1] = 0: core 0 is listed twice"},
};

INSTANTIATE_TEST_SUITE_P(LaunchOptions, BadOptions, testing::ValuesIn(kBadOptions),
                         [](const testing::TestParamInfo<BadOption> &info) {
                           return std::string(info.param.name);
                         });

TEST(LaunchOptions, GroupSizeIsIgnoredByOtherOrders) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.group_size = 0;
  EXPECT_EQ(blockc_launch_options_check(&options), BLOCKC_SUCCESS);
}

struct BadLaunch {
  const char *name;
  blockc_kernel_fn kernel;
  blockc_grid grid;
  const char *message;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadLaunch &c, std::ostream *os) {
  *os << c.name;
}

class BadLaunches : public testing::TestWithParam<BadLaunch> {};

TEST_P(BadLaunches, AreAnInvalidArgumentError) {
  const BadLaunch &bad = GetParam();
  std::atomic<int> calls{0};
  void *args[] = {&calls};
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  EXPECT_EQ(blockc_launch(bad.kernel, args, bad.grid, &options), BLOCKC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(blockc_last_error(), bad.message);
  EXPECT_EQ(calls.load(), 0);
}

const BadLaunch kBadLaunches[] = {
    {"NullKernel", nullptr, {4, 4, 4}, "kernel is NULL"},
    {"NegativeX",
     countCalls,
     {-1, 4, 4},
     "grid.x = -1: expected 0 to 2147483647 (program ids are int32)"},
    {"NegativeZWithEmptyX",
     countCalls,
     {0, 4, -2},
     "grid.z = -2: expected 0 to 2147483647 (program ids are int32)"},
    {"YAboveInt32",
     countCalls,
     {1, int64_t(1) << 31, 1},
     "grid.y = 2147483648: expected 0 to 2147483647 (program ids are int32)"},
    {"MoreThanInt64Programs",
     countCalls,
     {INT32_MAX, INT32_MAX, INT32_MAX},
     "grid 2147483647 x 2147483647 x 2147483647: more than 2^63-1 programs in all"},
};

INSTANTIATE_TEST_SUITE_P(Launcher, BadLaunches, testing::ValuesIn(kBadLaunches),
                         [](const testing::TestParamInfo<BadLaunch> &info) {
                           return std::string(info.param.name);
                         });

TEST(LaunchOptions, NullOptionsAreAnError) {
  const char *message = nullptr;
  EXPECT_EQ(blockc_launch_options_from_env(nullptr, &message), BLOCKC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(message, "options is NULL");
  EXPECT_EQ(blockc_launch_options_check(nullptr), BLOCKC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(blockc_last_error(), "options is NULL");
}

//===- blockc_last_error ------------------------------------------------------===//

TEST(LastError, IsPerThreadAndClearedBySuccess) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = -1;
  ASSERT_NE(blockc_launch_options_check(&options), BLOCKC_SUCCESS);
  std::string mine = blockc_last_error();

  std::string otherBefore, otherAfter;
  std::thread other([&] {
    otherBefore = blockc_last_error();
    blockc_launch_options_check(nullptr);
    otherAfter = blockc_last_error();
  });
  other.join();
  EXPECT_EQ(otherBefore, "");
  EXPECT_EQ(otherAfter, "options is NULL");
  EXPECT_EQ(blockc_last_error(), mine);

  options.num_threads = 0;
  EXPECT_EQ(blockc_launch_options_check(&options), BLOCKC_SUCCESS);
  EXPECT_STREQ(blockc_last_error(), "");
}

} // namespace

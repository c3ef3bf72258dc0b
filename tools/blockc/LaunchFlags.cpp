//===- LaunchFlags.cpp - Grid and launcher flags of `blockc run` ----------===//
//
// Words are case-insensitive, as in the BLOCKC_* variables.
//
//===----------------------------------------------------------------------===//
#include "LaunchFlags.h"

#include "Elements.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace blockc::driver {

namespace {

bool parseWord(std::string_view text, std::initializer_list<std::pair<const char *, int32_t>> words,
               int32_t &value) {
  for (auto [word, v] : words) {
    std::string_view w = word;
    if (text.size() == w.size() &&
        std::equal(text.begin(), text.end(), w.begin(),
                   [](char a, char b) { return std::tolower(uint8_t(a)) == b; })) {
      value = v;
      return true;
    }
  }
  return false;
}

/// The syntax of BLOCKC_AFFINITY, whose parser the runtime keeps private to
/// the environment. Only what cannot be stored is rejected here; ids, repeats
/// and the calling thread's mask are blockc_launch_options_check's to judge.
bool parseAffinity(std::string_view text, blockc_launch_options &options, std::string &error) {
  std::string where = "--affinity " + quoted(text) + ": ";
  int32_t count = 0;
  for (size_t begin = 0;;) {
    size_t comma = text.find(',', begin);
    std::string_view item = text.substr(begin, comma - begin);
    size_t dash = item.find('-');
    int32_t first, last;
    if (!parseWhole(item.substr(0, dash), first) || first < 0 ||
        (dash != std::string_view::npos &&
         (!parseWhole(item.substr(dash + 1), last) || last < 0))) {
      error = where + quoted(item) + " is not a core id or a range FIRST-LAST of core ids";
      return false;
    }
    if (dash == std::string_view::npos)
      last = first;
    if (first > last) {
      error = where + "the range " + quoted(item) + " is descending";
      return false;
    }
    for (int64_t core = first; core <= last; ++core) {
      if (count == BLOCKC_MAX_AFFINITY_CORES) {
        error = where + "more than " + std::to_string(BLOCKC_MAX_AFFINITY_CORES) + " cores";
        return false;
      }
      options.affinity_cores[count++] = int32_t(core);
    }
    if (comma == std::string_view::npos)
      break;
    begin = comma + 1;
  }
  options.num_affinity_cores = count;
  return true;
}

bool parseInt32Flag(std::string_view flag, const std::optional<std::string> &value, int32_t &field,
                    std::string &error) {
  if (!value)
    return true;
  if (!parseWhole(*value, field)) {
    error = std::string(flag) + " " + quoted(*value) + ": expected a whole number";
    return false;
  }
  return true;
}

/// Which flag or variable set a field of blockc_launch_options, for the
/// runtime's range errors, which name only the field.
std::string sourceOfField(std::string_view message, const LaunchFlags &flags) {
  struct Source {
    std::string_view field;
    const std::optional<std::string> LaunchFlags::*flag;
    std::string_view flagName, variable;
  };
  static const Source kSources[] = {
      {"num_threads", &LaunchFlags::threads, "--threads", "BLOCKC_NUM_THREADS"},
      {"order", &LaunchFlags::order, "--order", "BLOCKC_GRID_ORDER"},
      {"group_size", &LaunchFlags::groupSize, "--group-size", "BLOCKC_GROUP_SIZE"},
      {"schedule", &LaunchFlags::schedule, "--schedule", "BLOCKC_SCHEDULE"},
      {"chunk_size", &LaunchFlags::chunk, "--chunk", "BLOCKC_CHUNK"},
      {"num_affinity_cores", &LaunchFlags::affinity, "--affinity", "BLOCKC_AFFINITY"},
      {"affinity_cores", &LaunchFlags::affinity, "--affinity", "BLOCKC_AFFINITY"},
  };
  for (const Source &s : kSources) {
    if (message.rfind(s.field, 0) != 0)
      continue;
    if (s.field == "chunk_size" && !flags.chunk && flags.schedule)
      return "--schedule";
    return std::string(flags.*s.flag ? s.flagName : s.variable);
  }
  return "";
}

} // namespace

std::optional<blockc_grid> parseGrid(std::string_view text, std::string &error) {
  int64_t dims[3] = {1, 1, 1};
  size_t count = 0;
  for (size_t begin = 0;;) {
    size_t comma = text.find(',', begin);
    if (count == 3 || !parseWhole(text.substr(begin, comma - begin), dims[count])) {
      error = "--grid " + quoted(text) +
              ": expected X[,Y[,Z]], one to three whole numbers such as 1024 or 64,64";
      return std::nullopt;
    }
    // Checked here too, before the compile, not only by the launch.
    if (dims[count] < 0 || dims[count] > INT32_MAX) {
      error = "--grid " + quoted(text) + ": " + "xyz"[count] + " = " + std::to_string(dims[count]) +
              ": expected 0 to 2147483647 (program ids are int32)";
      return std::nullopt;
    }
    ++count;
    if (comma == std::string_view::npos)
      break;
    begin = comma + 1;
  }
  return blockc_grid{dims[0], dims[1], dims[2]};
}

bool applyLaunchFlags(const LaunchFlags &flags, blockc_launch_options &options,
                      std::string &error) {
  blockc_launch_options o = options;
  if (!parseInt32Flag("--threads", flags.threads, o.num_threads, error) ||
      !parseInt32Flag("--group-size", flags.groupSize, o.group_size, error))
    return false;
  if (flags.order && !parseWord(*flags.order,
                                {{"x", BLOCKC_ORDER_X_FASTEST},
                                 {"z", BLOCKC_ORDER_Z_FASTEST},
                                 {"grouped", BLOCKC_ORDER_GROUPED}},
                                o.order)) {
    error = "--order " + quoted(*flags.order) + ": expected x, z or grouped";
    return false;
  }
  bool scheduleHasChunk = false;
  if (flags.schedule) {
    std::string_view text = *flags.schedule;
    size_t comma = text.find(',');
    scheduleHasChunk = comma != std::string_view::npos;
    if (!parseWord(text.substr(0, comma),
                   {{"static", BLOCKC_SCHEDULE_STATIC},
                    {"dynamic", BLOCKC_SCHEDULE_DYNAMIC},
                    {"guided", BLOCKC_SCHEDULE_GUIDED},
                    {"auto", BLOCKC_SCHEDULE_AUTO}},
                   o.schedule) ||
        (scheduleHasChunk && !parseWhole(text.substr(comma + 1), o.chunk_size))) {
      error = "--schedule " + quoted(text) +
              ": expected static, dynamic, guided or auto, optionally followed by ,CHUNK";
      return false;
    }
    // As with BLOCKC_SCHEDULE and OMP_SCHEDULE: a kind without a chunk means
    // that kind's default chunk, not a chunk left over from the environment.
    if (!scheduleHasChunk)
      o.chunk_size = 0;
  }
  int32_t scheduleChunk = o.chunk_size;
  if (!parseInt32Flag("--chunk", flags.chunk, o.chunk_size, error))
    return false;
  if (flags.chunk && scheduleHasChunk && o.chunk_size != scheduleChunk) {
    error = "--chunk " + quoted(*flags.chunk) + " contradicts the chunk of --schedule " +
            quoted(*flags.schedule);
    return false;
  }
  if (flags.affinity && !parseAffinity(*flags.affinity, o, error))
    return false;
  if (flags.groupSize && o.order != BLOCKC_ORDER_GROUPED) {
    error = "--group-size " + quoted(*flags.groupSize) +
            ": only the grouped order uses a group size; add --order grouped";
    return false;
  }
  if (blockc_launch_options_check(&o) != BLOCKC_SUCCESS) {
    std::string message = blockc_last_error();
    std::string source = sourceOfField(message, flags);
    error = message + (source.empty() ? "" : " (from " + source + ")");
    return false;
  }
  options = o;
  return true;
}

} // namespace blockc::driver

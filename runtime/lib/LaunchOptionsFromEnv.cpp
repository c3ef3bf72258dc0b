//===- LaunchOptionsFromEnv.cpp - BLOCKC_* variables to launch options ----===//
//
// Parsing is strict: a value blockc cannot read completely is an error that
// quotes the variable and its value, never a silent fallback to a default.
// Words are case-insensitive and blanks around words and numbers are ignored,
// as OpenMP does for OMP_SCHEDULE.
//
//===----------------------------------------------------------------------===//
#include "CoreList.h"
#include "LastError.h"
#include "blockc/runtime.h"

#include <bitset>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace blockc::runtime;

namespace {

constexpr int kInvalid = BLOCKC_ERROR_INVALID_ENVIRONMENT;

/// The variable's value, or null when it is unset or empty: an empty value is
/// how a shell script switches a variable off.
const char *readVariable(const char *name) {
  const char *value = std::getenv(name);
  return value && *value ? value : nullptr;
}

std::string_view trim(std::string_view text) {
  auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && isBlank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isBlank(text.back()))
    text.remove_suffix(1);
  return text;
}

bool equalsIgnoringCase(std::string_view text, std::string_view lowercaseWord) {
  if (text.size() != lowercaseWord.size())
    return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z')
      c = char(c - 'A' + 'a');
    if (c != lowercaseWord[i])
      return false;
  }
  return true;
}

/// All of `text` (after trimming) as a decimal integer in [min, max].
bool parseInteger(std::string_view text, int64_t min, int64_t max, int64_t &value) {
  text = trim(text);
  int64_t parsed = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || parsed < min ||
      parsed > max)
    return false;
  value = parsed;
  return true;
}

int readInteger(const char *name, int64_t min, int64_t max, int32_t &field) {
  const char *value = readVariable(name);
  if (!value)
    return BLOCKC_SUCCESS;
  int64_t parsed;
  if (!parseInteger(value, min, max, parsed))
    return fail(kInvalid, "%s=\"%s\": expected an integer from %lld to %lld", name, value,
                (long long)min, (long long)max);
  field = int32_t(parsed);
  return BLOCKC_SUCCESS;
}

int readOrder(blockc_launch_options &options) {
  const char *value = readVariable("BLOCKC_GRID_ORDER");
  if (!value)
    return BLOCKC_SUCCESS;
  std::string_view word = trim(value);
  if (equalsIgnoringCase(word, "x"))
    options.order = BLOCKC_ORDER_X_FASTEST;
  else if (equalsIgnoringCase(word, "z"))
    options.order = BLOCKC_ORDER_Z_FASTEST;
  else if (equalsIgnoringCase(word, "grouped"))
    options.order = BLOCKC_ORDER_GROUPED;
  else
    return fail(kInvalid, "BLOCKC_GRID_ORDER=\"%s\": expected x, z or grouped", value);
  return BLOCKC_SUCCESS;
}

/// BLOCKC_SCHEDULE is `KIND` or `KIND,CHUNK`; `hasChunk` tells BLOCKC_CHUNK
/// whether there is a chunk it could contradict.
int readSchedule(blockc_launch_options &options, bool &hasChunk) {
  hasChunk = false;
  const char *value = readVariable("BLOCKC_SCHEDULE");
  if (!value)
    return BLOCKC_SUCCESS;
  std::string_view text = value;
  size_t comma = text.find(',');
  std::string_view kind = trim(text.substr(0, comma));
  if (equalsIgnoringCase(kind, "static"))
    options.schedule = BLOCKC_SCHEDULE_STATIC;
  else if (equalsIgnoringCase(kind, "dynamic"))
    options.schedule = BLOCKC_SCHEDULE_DYNAMIC;
  else if (equalsIgnoringCase(kind, "guided"))
    options.schedule = BLOCKC_SCHEDULE_GUIDED;
  else if (equalsIgnoringCase(kind, "auto"))
    options.schedule = BLOCKC_SCHEDULE_AUTO;
  else
    return fail(kInvalid,
                "BLOCKC_SCHEDULE=\"%s\": expected static, dynamic, guided or auto, optionally "
                "followed by ,CHUNK",
                value);
  if (comma == std::string_view::npos) {
    // As with OMP_SCHEDULE, a kind without a chunk means that kind's default
    // chunk, not whatever chunk the options held before.
    options.chunk_size = 0;
    return BLOCKC_SUCCESS;
  }
  int64_t chunk;
  if (!parseInteger(text.substr(comma + 1), 0, INT32_MAX, chunk))
    return fail(kInvalid,
                "BLOCKC_SCHEDULE=\"%s\": the chunk after the comma must be an integer "
                "from 0 to %d",
                value, INT32_MAX);
  options.chunk_size = int32_t(chunk);
  hasChunk = true;
  return BLOCKC_SUCCESS;
}

int readChunk(blockc_launch_options &options, bool scheduleHasChunk) {
  int32_t scheduleChunk = options.chunk_size;
  if (int status = readInteger("BLOCKC_CHUNK", 0, INT32_MAX, options.chunk_size))
    return status;
  if (scheduleHasChunk && options.chunk_size != scheduleChunk)
    return fail(kInvalid, "BLOCKC_CHUNK=\"%s\" contradicts the chunk of BLOCKC_SCHEDULE=\"%s\"",
                readVariable("BLOCKC_CHUNK"), readVariable("BLOCKC_SCHEDULE"));
  return BLOCKC_SUCCESS;
}

int readAffinity(blockc_launch_options &options) {
  const char *value = readVariable("BLOCKC_AFFINITY");
  if (!value)
    return BLOCKC_SUCCESS;
  return parseCoreList("BLOCKC_AFFINITY", value, options.affinity_cores,
                       options.num_affinity_cores);
}

} // namespace

// The order is kept, because OpenMP thread t runs on the t-th listed core.
int blockc::runtime::parseCoreList(const char *variable, const char *value, int32_t *cores,
                                   int32_t &count) {
  std::bitset<BLOCKC_MAX_CORE_ID + 1> listed;
  int32_t parsed = 0;
  std::string_view rest = value;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    size_t dash = item.find('-');
    int64_t first, last;
    if (!parseInteger(item.substr(0, dash), 0, BLOCKC_MAX_CORE_ID, first) ||
        (dash != std::string_view::npos &&
         !parseInteger(item.substr(dash + 1), 0, BLOCKC_MAX_CORE_ID, last)))
      return fail(kInvalid,
                  "%s=\"%s\": \"%.*s\" is not a core id or a range FIRST-LAST of core ids from 0 "
                  "to %d",
                  variable, value, int(item.size()), item.data(), BLOCKC_MAX_CORE_ID);
    if (dash == std::string_view::npos)
      last = first;
    if (first > last)
      return fail(kInvalid, "%s=\"%s\": the range \"%.*s\" is descending", variable, value,
                  int(item.size()), item.data());
    for (int64_t core = first; core <= last; ++core) {
      if (listed.test(size_t(core)))
        return fail(kInvalid, "%s=\"%s\": core %lld is listed twice", variable, value,
                    (long long)core);
      if (parsed == BLOCKC_MAX_AFFINITY_CORES)
        return fail(kInvalid, "%s=\"%s\": more than %d cores", variable, value,
                    BLOCKC_MAX_AFFINITY_CORES);
      listed.set(size_t(core));
      cores[parsed++] = int32_t(core);
    }
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  count = parsed;
  return BLOCKC_SUCCESS;
}

extern "C" int blockc_launch_options_from_env(blockc_launch_options *options,
                                              const char **error_message) {
  if (error_message)
    *error_message = nullptr;
  if (!options) {
    if (error_message)
      *error_message = lastError();
    return fail(BLOCKC_ERROR_INVALID_ARGUMENT, "options is NULL");
  }

  // Parse into a copy so that a bad variable leaves the caller's options intact.
  blockc_launch_options parsed = *options;
  bool scheduleHasChunk = false;
  int status = readInteger("BLOCKC_NUM_THREADS", 0, BLOCKC_MAX_THREADS, parsed.num_threads);
  if (!status)
    status = readOrder(parsed);
  if (!status)
    status = readInteger("BLOCKC_GROUP_SIZE", 1, INT32_MAX, parsed.group_size);
  if (!status)
    status = readSchedule(parsed, scheduleHasChunk);
  if (!status)
    status = readChunk(parsed, scheduleHasChunk);
  if (!status)
    status = readAffinity(parsed);

  if (status) {
    if (error_message)
      *error_message = lastError();
    return status;
  }
  *options = parsed;
  return succeed();
}

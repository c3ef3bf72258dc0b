//===- Trace.cpp - The process-wide trace and its Chrome trace JSON -------===//
//
// The file is rewritten whole at every flush, so that it always holds one
// complete JSON document: a process that dies between flushes leaves the last
// one readable. It stays open from blockc_trace_start on, so that a relative
// path keeps naming the same file when the program changes directory.
//
//===----------------------------------------------------------------------===//
#include "Trace.h"

#include "GridOrder.h"
#include "LastError.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#else
#include <functional>
#include <thread>
#endif

namespace blockc::runtime {

std::atomic<int> traceState{kTraceUnread};

namespace {

/// A launch may record at most this many spans (32 MiB of buffers): a dynamic
/// schedule of chunk 1 over a huge grid would otherwise ask for one per
/// program and thread.
constexpr int64_t kMaxSpansPerLaunch = int64_t(1) << 20;
std::atomic<int64_t> maxSpansPerLaunch{kMaxSpansPerLaunch};

/// A record as blockc_trace_read gives it, with its times in nanoseconds.
struct Entry {
  int64_t launch;
  int32_t thread, threads;
  int64_t first, programs, untraced;
  int64_t startNs, endNs; // from the trace's origin
  int64_t osThread;
};

/// What the JSON says of a launch beyond its Entry.
struct LaunchInfo {
  std::string kernel;
  blockc_grid grid;
  int32_t requestedThreads, order, groupSize, schedule, chunk;
  std::string affinity;
  int status;
};

struct Tracer {
  std::mutex mutex;
  bool environmentRead = false;
  bool recording = false;
  std::string brokenMessage; // BLOCKC_TRACE's error; empty when none
  std::FILE *file = nullptr;
  std::string path;
  bool exitHookRegistered = false;
  // The current trace, or the last one stopped.
  uint64_t generation = 0;
  int64_t originNs = 0;
  std::vector<Entry> entries;
  std::vector<LaunchInfo> launches;
  int64_t spanCount = 0, droppedLaunches = 0;
};

/// Never destroyed: launches on other threads and the exit hook may use it
/// while static destructors run.
Tracer &tracer() {
  static Tracer *t = new Tracer;
  return *t;
}

void publishState(const Tracer &t) {
  int state = t.recording                ? kTraceOn
              : !t.brokenMessage.empty() ? kTraceBroken
              : t.environmentRead        ? kTraceOff
                                         : kTraceUnread;
  traceState.store(state, std::memory_order_relaxed);
}

// --- JSON -------------------------------------------------------------------

void writeString(std::FILE *out, const char *text) {
  std::fputc('"', out);
  for (const char *c = text; *c; ++c) {
    unsigned char u = (unsigned char)*c;
    if (u == '"' || u == '\\')
      std::fprintf(out, "\\%c", u);
    else if (u < 0x20)
      std::fprintf(out, "\\u%04x", u);
    else
      std::fputc(u, out);
  }
  std::fputc('"', out);
}

/// Microseconds with the nanoseconds kept exactly, so that spans that nest in
/// nanoseconds still nest once printed.
void writeMicroseconds(std::FILE *out, int64_t ns) {
  std::fprintf(out, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/// The chunk the launcher gave OpenMP (Launcher.cpp's runShareOfLoop); 0 for
/// static without one: a contiguous block per thread.
int64_t chunkUsed(const LaunchInfo &info, int64_t programs, int team) {
  if (info.schedule == BLOCKC_SCHEDULE_STATIC)
    return info.chunk;
  if (info.schedule == BLOCKC_SCHEDULE_AUTO && info.chunk == 0)
    return std::clamp<int64_t>(programs / (int64_t(team) * 8), 1, INT32_MAX);
  return std::max(info.chunk, 1);
}

ProgramId decode(const LaunchInfo &info, int64_t flat) {
  const blockc_grid &g = info.grid;
  switch (info.order) {
  case BLOCKC_ORDER_Z_FASTEST:
    return ZFastestOrder<int64_t>{g.y, g.z}(flat);
  case BLOCKC_ORDER_GROUPED:
    return GroupedOrder<int64_t>{g.x, g.y, std::min<int64_t>(info.groupSize, g.y)}(flat);
  default:
    return XFastestOrder<int64_t>{g.x, g.y}(flat);
  }
}

/// The whole trace as one JSON object of the Chrome trace event format: "M"
/// events name the process and its threads, an "X" event per launch on the
/// launching thread, an "X" event per span on the thread that ran it.
bool writeTrace(Tracer &t) {
  std::FILE *out = t.file;
  std::rewind(out);
  long pid = long(getpid());
  std::fprintf(out,
               "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,"
               "\"tid\":0,\"args\":{\"name\":\"blockc\"}}",
               pid);

  // A thread's track is named by the OpenMP thread number it first had; the
  // pool's threads usually keep theirs.
  std::map<int64_t, int32_t> threadNumbers;
  for (const Entry &e : t.entries)
    threadNumbers.emplace(e.osThread, e.thread < 0 ? 0 : e.thread);
  for (auto [osThread, number] : threadNumbers) {
    std::fprintf(out,
                 ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%lld,\"args\":{"
                 "\"name\":\"OpenMP thread %d (tid %lld)\"}}",
                 pid, (long long)osThread, number, (long long)osThread);
    std::fprintf(out,
                 ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%lld,"
                 "\"args\":{\"sort_index\":%d}}",
                 pid, (long long)osThread, number);
  }

  for (const Entry &e : t.entries) {
    const LaunchInfo &info = t.launches[size_t(e.launch)];
    const char *kernel = info.kernel.c_str();
    std::fprintf(out, ",\n{\"name\":");
    if (e.thread < 0) {
      writeString(out, ("launch " + info.kernel).c_str());
      std::fprintf(out, ",\"cat\":\"launch\"");
    } else {
      writeString(out, kernel);
      std::fprintf(out, ",\"cat\":\"programs\"");
    }
    std::fprintf(out, ",\"ph\":\"X\",\"pid\":%ld,\"tid\":%lld,\"ts\":", pid, (long long)e.osThread);
    writeMicroseconds(out, e.startNs);
    std::fprintf(out, ",\"dur\":");
    writeMicroseconds(out, e.endNs - e.startNs);
    std::fprintf(out, ",\"args\":{\"launch\":%lld", (long long)e.launch);
    if (e.thread < 0) {
      std::fprintf(out, ",\"kernel\":");
      writeString(out, kernel);
      std::fprintf(out,
                   ",\"grid\":[%lld,%lld,%lld],\"programs\":%lld,\"threads\":%d,"
                   "\"requested_threads\":%d,\"order\":\"%s\",\"group_size\":%d,"
                   "\"schedule\":\"%s\",\"chunk\":%lld,\"affinity\":",
                   (long long)info.grid.x, (long long)info.grid.y, (long long)info.grid.z,
                   (long long)e.programs, e.threads, info.requestedThreads,
                   blockc_grid_order_name(info.order), info.groupSize,
                   blockc_schedule_name(info.schedule),
                   (long long)chunkUsed(info, e.programs, e.threads));
      writeString(out, info.affinity.c_str());
      std::fprintf(out, ",\"untraced_programs\":%lld", (long long)e.untraced);
      if (info.status != BLOCKC_SUCCESS)
        std::fprintf(out, ",\"status\":%d", info.status);
      std::fprintf(out, "}}");
      if (e.untraced > 0) {
        // Visible on the timeline, not only in the launch's arguments.
        std::fprintf(out,
                     ",\n{\"name\":\"trace truncated: %lld programs of launch %lld ran after "
                     "their thread's span buffer was full\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%ld,"
                     "\"tid\":%lld,\"ts\":",
                     (long long)e.untraced, (long long)e.launch, pid, (long long)e.osThread);
        writeMicroseconds(out, e.endNs);
        std::fprintf(out, "}");
      }
    } else {
      ProgramId id = decode(info, e.first);
      std::fprintf(out,
                   ",\"thread\":%d,\"first\":%lld,\"programs\":%lld,\"first_program\":[%d,%d,"
                   "%d]}}",
                   e.thread, (long long)e.first, (long long)e.programs, id.x, id.y, id.z);
    }
  }
  if (t.droppedLaunches > 0) {
    int64_t lastNs = t.entries.empty() ? 0 : t.entries.back().endNs;
    std::fprintf(out,
                 ",\n{\"name\":\"trace full: %lld later launches not recorded (at most %d "
                 "spans)\",\"ph\":\"i\",\"s\":\"g\",\"pid\":%ld,\"tid\":0,\"ts\":",
                 (long long)t.droppedLaunches, BLOCKC_TRACE_MAX_SPANS, pid);
    writeMicroseconds(out, lastNs);
    std::fprintf(out, "}");
  }
  std::fprintf(out, "\n],\"otherData\":{\"dropped_launches\":%lld}}\n",
               (long long)t.droppedLaunches);
  bool ok = std::fflush(out) == 0 && !std::ferror(out);
  // A shorter trace than the last one written must not leave its tail.
  long size = std::ftell(out);
  if (ok && size >= 0)
    ok = ftruncate(fileno(out), off_t(size)) == 0;
  return ok;
}

int writeFailed(const Tracer &t) {
  return fail(BLOCKC_ERROR_TRACE_FILE, "writing the trace to \"%s\" failed: %s", t.path.c_str(),
              std::strerror(errno ? errno : EIO));
}

/// Writes and closes the current trace's file, if any; recording stops.
int closeTrace(Tracer &t) {
  int status = BLOCKC_SUCCESS;
  if (t.recording && t.file) {
    errno = 0;
    if (!writeTrace(t))
      status = writeFailed(t);
  }
  if (t.file)
    std::fclose(t.file);
  t.file = nullptr;
  t.recording = false;
  return status;
}

void writeAtExit() {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (closeTrace(t) != BLOCKC_SUCCESS)
    std::fprintf(stderr, "blockc: %s\n", lastError());
  publishState(t);
}

/// Opens `path` for a new trace; null `path`: a trace in memory. On an error
/// returns errno and changes nothing.
int openTrace(Tracer &t, const char *path) {
  std::FILE *file = nullptr;
  if (path) {
    file = std::fopen(path, "w");
    if (!file)
      return errno ? errno : EIO;
  }
  closeTrace(t);
  t.file = file;
  t.path = path ? path : "";
  t.recording = true;
  t.brokenMessage.clear();
  ++t.generation;
  t.originNs = traceClockNs();
  t.entries.clear();
  t.launches.clear();
  t.spanCount = t.droppedLaunches = 0;
  if (file) {
    // A valid, empty trace from the start, for a process that never exits
    // cleanly.
    writeTrace(t);
    if (!t.exitHookRegistered)
      t.exitHookRegistered = std::atexit(writeAtExit) == 0;
  }
  return 0;
}

void readEnvironment(Tracer &t) {
  t.environmentRead = true;
  const char *path = std::getenv("BLOCKC_TRACE");
  if (!path || !*path)
    return;
  if (int error = openTrace(t, path)) {
    char message[512];
    std::snprintf(message, sizeof message,
                  "BLOCKC_TRACE=\"%s\": cannot open the trace file for writing: %s", path,
                  std::strerror(error));
    t.brokenMessage = message;
  }
}

std::string formatCores(const blockc_launch_options &options) {
  std::string text;
  int32_t count = options.num_affinity_cores;
  for (int32_t i = 0; i < count && i < BLOCKC_MAX_AFFINITY_CORES;) {
    int32_t j = i;
    while (j + 1 < count && options.affinity_cores[j + 1] == options.affinity_cores[j] + 1)
      ++j;
    text += (text.empty() ? "" : ",") + std::to_string(options.affinity_cores[i]);
    if (j > i)
      text += "-" + std::to_string(options.affinity_cores[j]);
    i = j + 1;
  }
  return text;
}

// The launching thread's buffers, kept from launch to launch so that a traced
// launch allocates only when it needs more than the last one. A launch from
// inside a program on this thread finds them taken and allocates its own.
thread_local std::vector<ThreadSpans> spareThreads;
thread_local std::vector<TraceSpan> spareSpans;

} // namespace

int64_t osThreadId() {
#if defined(__linux__)
  thread_local int64_t id = int64_t(syscall(SYS_gettid));
#else
  thread_local int64_t id = int64_t(std::hash<std::thread::id>()(std::this_thread::get_id()));
#endif
  return id;
}

void rereadTraceEnvironmentForTesting() {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  closeTrace(t);
  t.environmentRead = false;
  t.brokenMessage.clear();
  publishState(t);
}

void setMaxSpansPerLaunchForTesting(int64_t spans) {
  maxSpansPerLaunch.store(spans > 0 ? spans : kMaxSpansPerLaunch, std::memory_order_relaxed);
}

LaunchTrace::~LaunchTrace() {
  if (spareSpans.capacity() < spans_.capacity())
    spareSpans = std::move(spans_);
  if (spareThreads.capacity() < threads_.capacity())
    spareThreads = std::move(threads_);
}

int LaunchTrace::begin(const char *kernel, blockc_grid grid, int64_t programs,
                       const blockc_launch_options &options) {
  Tracer &t = tracer();
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    if (!t.environmentRead) {
      readEnvironment(t);
      publishState(t);
    }
    if (!t.brokenMessage.empty())
      return fail(BLOCKC_ERROR_INVALID_ENVIRONMENT, "%s", t.brokenMessage.c_str());
    recording_ = t.recording;
    generation_ = t.generation;
  }
  if (!recording_)
    return BLOCKC_SUCCESS;
  kernel_ = kernel;
  grid_ = grid;
  programs_ = programs;
  options_ = &options;
  spans_ = std::move(spareSpans);
  threads_ = std::move(spareThreads);
  threads_.clear(); // an empty grid reserves none
  startNs_ = traceClockNs();
  return BLOCKC_SUCCESS;
}

void LaunchTrace::reserve(int threads, int64_t programs, int32_t schedule, int32_t chunk) {
  auto chunksOf = [&](int64_t size) { return (programs + size - 1) / size; };
  int64_t perThread;
  switch (schedule) {
  case BLOCKC_SCHEDULE_STATIC:
    // Without a chunk, one contiguous block per thread; with one, chunks
    // dealt round-robin.
    perThread = chunk == 0 ? 1 : (chunksOf(chunk) + threads - 1) / threads;
    break;
  case BLOCKC_SCHEDULE_AUTO:
    // A team smaller than asked has larger chunks, hence fewer.
    perThread = chunksOf(
        chunk > 0 ? chunk : std::clamp<int64_t>(programs / (int64_t(threads) * 8), 1, INT32_MAX));
    break;
  default:
    // Dynamic and guided: one thread may take every chunk.
    perThread = chunksOf(std::max(chunk, 1));
    break;
  }
  perThread = std::clamp<int64_t>(
      perThread, 1,
      std::max<int64_t>(maxSpansPerLaunch.load(std::memory_order_relaxed) / threads, 1));
  threads_.assign(size_t(threads), ThreadSpans{});
  spans_.resize(size_t(perThread * threads));
  for (int i = 0; i < threads; ++i) {
    threads_[size_t(i)].spans = spans_.data() + perThread * i;
    threads_[size_t(i)].capacity = perThread;
  }
}

void LaunchTrace::end(int status) {
  if (!recording_)
    return;
  int64_t endNs = traceClockNs();
  int64_t spans = 0, untraced = 0;
  for (const ThreadSpans &mine : threads_) {
    spans += mine.used;
    untraced += mine.untraced;
  }
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  // A trace started during the launch has a later origin: the launch is not
  // part of it.
  if (!t.recording || t.generation != generation_)
    return;
  if (t.spanCount + spans + 1 > BLOCKC_TRACE_MAX_SPANS) {
    ++t.droppedLaunches;
    return;
  }
  int64_t launch = int64_t(t.launches.size());
  t.launches.push_back(LaunchInfo{kernel_ && *kernel_ ? kernel_ : "kernel", grid_,
                                  options_->num_threads, options_->order, options_->group_size,
                                  options_->schedule, options_->chunk_size, formatCores(*options_),
                                  status});
  t.entries.push_back(Entry{launch, -1, team_, 0, programs_, untraced, startNs_ - t.originNs,
                            endNs - t.originNs, osThreadId()});
  for (size_t thread = 0; thread < threads_.size(); ++thread) {
    const ThreadSpans &mine = threads_[thread];
    for (int64_t i = 0; i < mine.used; ++i) {
      const TraceSpan &s = mine.spans[i];
      t.entries.push_back(Entry{launch, int32_t(thread), team_, s.first, s.programs, 0,
                                s.startNs - t.originNs, s.endNs - t.originNs, mine.osThread});
    }
  }
  t.spanCount += spans + 1;
}

} // namespace blockc::runtime

using namespace blockc::runtime;

extern "C" int blockc_trace_start(const char *path) {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.environmentRead = true; // the API takes over from BLOCKC_TRACE
  int status = BLOCKC_SUCCESS;
  if (int error = openTrace(t, path))
    status = fail(BLOCKC_ERROR_TRACE_FILE, "cannot open the trace file \"%s\" for writing: %s",
                  path, std::strerror(error));
  publishState(t);
  return status == BLOCKC_SUCCESS ? succeed() : status;
}

extern "C" int blockc_trace_flush(void) {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.environmentRead) {
    readEnvironment(t);
    publishState(t);
  }
  if (t.recording && t.file) {
    errno = 0;
    if (!writeTrace(t))
      return writeFailed(t);
  }
  return succeed();
}

extern "C" int blockc_trace_stop(void) {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.environmentRead = true;
  t.brokenMessage.clear();
  int status = closeTrace(t);
  publishState(t);
  return status == BLOCKC_SUCCESS ? succeed() : status;
}

extern "C" int64_t blockc_trace_read(blockc_trace_span *spans, int64_t first, int64_t capacity) {
  Tracer &t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  int64_t size = int64_t(t.entries.size());
  for (int64_t i = 0; spans && first >= 0 && i < capacity && first + i < size; ++i) {
    const Entry &e = t.entries[size_t(first + i)];
    spans[i] = blockc_trace_span{e.launch,
                                 e.thread,
                                 e.threads,
                                 e.first,
                                 e.programs,
                                 e.untraced,
                                 double(e.startNs) / 1e3,
                                 double(e.endNs) / 1e3};
  }
  return size;
}

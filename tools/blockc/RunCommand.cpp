//===- RunCommand.cpp - `blockc run` --------------------------------------===//
//
// Compiles a .bir file in process, binds the --arg specs to one kernel's
// parameters and launches it over a grid: a kernel runs, is timed and has its
// results saved as .npy without a line of C++; --trace and --profile record
// each thread's spans of programs (runtime.h, blockc_trace_*). Everything
// that can be checked without the kernel is checked before compiling, so that
// a typo in a flag costs no compile.
//
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Commands.h"
#include "Elements.h"
#include "LaunchFlags.h"
#include "RunArgs.h"
#include "blockc/jit/Jit.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iostream>

namespace blockc::driver {

namespace {

CommandSpec makeRunSpec() {
  std::vector<FlagSpec> flags = {
      {"--kernel", "NAME", "the kernel to run (default: the file's only kernel)"},
      {"--grid", "X[,Y[,Z]]", "programs along each axis; Y and Z default to 1"},
      {"--arg", "NAME=SPEC", "a kernel parameter's value (one per parameter)", true},
      {"--output", "NAME=@FILE", "write buffer NAME to FILE (.npy) after the last run", true},
      {"--repeat", "N", "time N runs after one warm-up; print min and median"},
      {"--flops", "F", "floating-point operations per launch: report GFLOP/s, not GB/s"},
      {"--trace", "FILE", "write a trace of the launches (Chrome trace JSON) to FILE"},
      {"--profile", "",
       "also report each thread's time in programs and the load balance (--repeat 1 if no "
       "--repeat)"},
  };
  for (const FlagSpec &f : compilerFlags())
    flags.push_back(f);
  for (const FlagSpec &f : std::initializer_list<FlagSpec>{
           {"--threads", "N", "OpenMP threads (0: default; BLOCKC_NUM_THREADS)"},
           {"--order", "x|z|grouped", "grid order (BLOCKC_GRID_ORDER)"},
           {"--group-size", "G", "rows per group of the grouped order (BLOCKC_GROUP_SIZE)"},
           {"--schedule", "KIND[,CHUNK]",
            "static, dynamic, guided or auto (BLOCKC_SCHEDULE; default auto)"},
           {"--chunk", "C", "schedule chunk, 0: the schedule's default (BLOCKC_CHUNK)"},
           {"--affinity", "CORES", "pin threads to cores such as 0-3,6 (BLOCKC_AFFINITY)"},
           {"--help", "", "show this help"},
       })
    flags.push_back(f);
  return {"run",
          "FILE.bir --grid X[,Y[,Z]] --arg NAME=SPEC... [options]",
          "Compile a kernel in process and launch it over a grid. Every kernel parameter needs\n"
          "one --arg: a buffer for a pointer (DIMSxDTYPE=random[:SEED], DIMSxDTYPE=NUMBER,\n"
          "DIMSxDTYPE=N1,N2,... or @FILE.npy), a number for a scalar. Prints nothing unless\n"
          "--repeat or --profile asks for timings; --output saves buffers after the last run;\n"
          "--trace FILE writes a timeline of the launches for ui.perfetto.dev.",
          std::move(flags),
          1,
          1};
}

/// Everything taken from the command line before compiling.
struct RunPlan {
  CompileOptions compile;
  std::string kernel;
  blockc_grid grid{1, 1, 1};
  std::vector<ArgSpec> args;
  std::vector<OutputSpec> outputs;
  blockc_launch_options launch;
  int64_t repeat = 0; // 0: run once, untimed
  std::optional<double> flops;
  std::optional<std::string> trace;
  bool profile = false;
};

bool parsePlan(const Arguments &args, RunPlan &plan, std::string &error) {
  if (!compileOptionsFrom(args, plan.compile, error))
    return false;
  plan.kernel = args.value("--kernel");
  // Only the kernel that runs is compiled: another's error must not stop it.
  if (!plan.kernel.empty())
    plan.compile.kernels = {plan.kernel};

  if (!args.has("--grid")) {
    error = "missing --grid X[,Y[,Z]], the number of programs along each axis";
    return false;
  }
  std::optional<blockc_grid> grid = parseGrid(args.value("--grid"), error);
  if (!grid)
    return false;
  plan.grid = *grid;

  if (args.has("--repeat")) {
    std::string text = args.value("--repeat");
    if (!parseWhole(text, plan.repeat) || plan.repeat < 1) {
      error = "--repeat '" + text + "': expected a whole number of timed runs, 1 or more";
      return false;
    }
  }
  // A profile leaves out the first launch, as the timings do.
  plan.profile = args.has("--profile");
  if (plan.profile && !plan.repeat)
    plan.repeat = 1;
  if (args.has("--trace")) {
    plan.trace = args.value("--trace");
    if (plan.trace->empty()) {
      error = "--trace '': expected the path of the trace file to write";
      return false;
    }
  }
  if (args.has("--flops")) {
    std::string text = args.value("--flops");
    double flops = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), flops);
    if (ec != std::errc() || end != text.data() + text.size() || !(flops > 0) ||
        !std::isfinite(flops)) {
      error = "--flops '" + text +
              "': expected a positive number of floating-point operations per launch, such as "
              "2.1e9";
      return false;
    }
    if (!plan.repeat) {
      error = "--flops needs --repeat N or --profile: without them nothing is timed";
      return false;
    }
    plan.flops = flops;
  }

  for (const std::string &text : args.values("--arg")) {
    std::optional<ArgSpec> spec = parseArgSpec(text, error);
    if (!spec)
      return false;
    plan.args.push_back(std::move(*spec));
  }
  for (const std::string &text : args.values("--output")) {
    std::optional<OutputSpec> spec = parseOutputSpec(text, error);
    if (!spec)
      return false;
    plan.outputs.push_back(std::move(*spec));
  }
  if (!checkSpecs(plan.args, plan.outputs, error))
    return false;

  // The environment first, then the flags over it.
  blockc_launch_options_init(&plan.launch);
  const char *envError = nullptr;
  if (blockc_launch_options_from_env(&plan.launch, &envError) != BLOCKC_SUCCESS) {
    error = envError;
    return false;
  }
  auto flag = [&](std::string_view name) -> std::optional<std::string> {
    return args.has(name) ? std::optional<std::string>(args.value(name)) : std::nullopt;
  };
  LaunchFlags flags{flag("--threads"),  flag("--order"), flag("--group-size"),
                    flag("--schedule"), flag("--chunk"), flag("--affinity")};
  return applyLaunchFlags(flags, plan.launch, error);
}

const JitKernel *selectKernel(const JitModule &module, const std::string &requested,
                              const std::string &fileName, std::string &error) {
  std::string names;
  for (const JitKernel &k : module.kernels())
    names += (names.empty() ? "" : ", ") + k.name;
  if (!requested.empty()) {
    if (const JitKernel *kernel = module.kernel(requested))
      return kernel;
    error = "--kernel " + requested + ": '" + fileName + "' has no kernel '" + requested + "'; " +
            (names.empty() ? "it has none" : "its kernels are " + names);
    return nullptr;
  }
  if (module.kernels().size() == 1)
    return &module.kernels()[0];
  error = "'" + fileName + "' " +
          (names.empty() ? "has no kernel"
                         : "has several kernels (" + names + "); choose one with --kernel");
  return nullptr;
}

/// The args of a launch: the kernel's own, and for a bounds-checked kernel
/// the extents and report blockc_bounds_report describes.
class BoundsCheckedArgs {
public:
  BoundsCheckedArgs(KernelArgs &args, const JitKernel &kernel) : args_(args) {
    if (!kernel.checksBounds)
      return;
    pointers_.assign(args.launchArgs(), args.launchArgs() + args.args().size());
    extents_.reserve(args.args().size());
    for (const BoundArg &arg : args.args())
      if (arg.type.isPointer()) {
        extents_.push_back(int64_t(arg.buffer.size()));
        pointers_.push_back(&extents_.back());
      }
    pointers_.push_back(&report_);
  }
  void **launchArgs() { return pointers_.empty() ? args_.launchArgs() : pointers_.data(); }
  const blockc_bounds_report &report() const { return report_; }

private:
  KernelArgs &args_;
  std::vector<int64_t> extents_; // reserved up front: pointers_ point into it
  std::vector<void *> pointers_;
  blockc_bounds_report report_{};
};

std::string describeViolation(const blockc_bounds_report &r, const JitKernel &kernel,
                              const SourceFile &file) {
  Diagnostic d;
  d.loc = {unsigned(r.line), unsigned(r.column)};
  if (r.is_store == 2) {
    d.message = "assertion failed in kernel @" + kernel.name + ", program (" +
                std::to_string(r.pid_x) + ", " + std::to_string(r.pid_y) + ", " +
                std::to_string(r.pid_z) + "); the launch stopped";
    return formatDiagnostic(d, &file);
  }
  std::string what = r.is_store ? "store" : "load";
  std::string where;
  if (r.argument >= 0 && size_t(r.argument) < kernel.params.size()) {
    const Param &param = kernel.params[size_t(r.argument)];
    where = "element " + std::to_string(r.offset) + " of %" + param.name + ", whose buffer has " +
            std::to_string(r.extent) + " element" + (r.extent == 1 ? "" : "s");
  } else {
    char address[32];
    std::snprintf(address, sizeof address, "%#llx", (unsigned long long)r.offset);
    where = std::string("address ") + address + ", inside no argument's buffer";
  }
  d.message = "out-of-bounds " + what + " in kernel @" + kernel.name + ", program (" +
              std::to_string(r.pid_x) + ", " + std::to_string(r.pid_y) + ", " +
              std::to_string(r.pid_z) + "): " + where +
              "; the launch stopped and no output was written";
  return formatDiagnostic(d, &file);
}

/// "512 B", "4.19 MB": decimal units, as GB/s is.
std::string formatBytes(uint64_t bytes) {
  char text[32];
  if (bytes < 1000)
    std::snprintf(text, sizeof text, "%llu B", (unsigned long long)bytes);
  else if (bytes < 1000000)
    std::snprintf(text, sizeof text, "%.2f kB", double(bytes) / 1e3);
  else if (bytes < 1000000000)
    std::snprintf(text, sizeof text, "%.2f MB", double(bytes) / 1e6);
  else
    std::snprintf(text, sizeof text, "%.2f GB", double(bytes) / 1e9);
  return text;
}

void printTimings(const std::string &kernel, const RunPlan &plan, std::vector<double> seconds,
                  const KernelArgs &args) {
  std::sort(seconds.begin(), seconds.end());
  size_t n = seconds.size();
  double min = seconds[0];
  double median = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  // One unit for both lines, chosen by the median.
  double scale = median < 1e-3 ? 1e6 : median < 1 ? 1e3 : 1;
  const char *unit = median < 1e-3 ? "us" : median < 1 ? "ms" : "s";
  size_t buffers = 0;
  for (const BoundArg &a : args.args())
    buffers += a.isBuffer;
  std::printf("%s: grid %lldx%lldx%lld, %lld run%s after 1 warm-up, %s in %zu buffer%s\n",
              kernel.c_str(), (long long)plan.grid.x, (long long)plan.grid.y,
              (long long)plan.grid.z, (long long)n, n == 1 ? "" : "s",
              formatBytes(args.bufferBytes()).c_str(), buffers, buffers == 1 ? "" : "s");
  double work = plan.flops ? *plan.flops : double(args.bufferBytes());
  const char *rate = plan.flops ? "GFLOP/s" : "GB/s";
  for (auto [label, time] : {std::pair{"min", min}, {"median", median}})
    std::printf("  %-7s %10.3f %-2s %10.2f %s\n", label, time * scale, unit,
                time > 0 ? work / time / 1e9 : 0.0, rate);
}

/// One launch as its trace spans tell it: per thread of its team, the time in
/// programs (the sum of its spans), the programs and the spans.
struct LaunchProfile {
  double seconds = 0;
  std::vector<double> busyUs;
  std::vector<int64_t> programs, spans;
  double balance() const {
    double busiest = 0, total = 0;
    for (double busy : busyUs) {
      busiest = std::max(busiest, busy);
      total += busy;
    }
    return total > 0 ? busiest / (total / double(busyUs.size())) : 1;
  }
};

/// The launches of the trace, in order, from its records.
std::vector<LaunchProfile> readProfiles() {
  std::vector<blockc_trace_span> records(size_t(blockc_trace_read(nullptr, 0, 0)));
  blockc_trace_read(records.data(), 0, int64_t(records.size()));
  std::vector<LaunchProfile> launches;
  for (const blockc_trace_span &r : records) {
    if (r.thread < 0) {
      launches.emplace_back();
      size_t team = size_t(std::max(r.threads, 1));
      launches.back().busyUs.assign(team, 0);
      launches.back().programs.assign(team, 0);
      launches.back().spans.assign(team, 0);
      continue;
    }
    LaunchProfile &launch = launches.back();
    size_t thread = size_t(r.thread);
    launch.busyUs[thread] += r.end_us - r.start_us;
    launch.programs[thread] += r.programs;
    ++launch.spans[thread];
  }
  return launches;
}

/// The balance of the timed launches, and the threads of the median one: a
/// chunk size or grid order that helps shows as a balance nearer 1.
void printProfile(const RunPlan &plan, std::vector<LaunchProfile> launches,
                  const std::vector<double> &seconds) {
  // The first launch is the untimed warm-up.
  if (launches.size() != seconds.size() + 1) {
    std::printf("  (the trace holds %zu launches, not %zu: no profile)\n", launches.size(),
                seconds.size() + 1);
    return;
  }
  launches.erase(launches.begin());
  for (size_t i = 0; i < launches.size(); ++i)
    launches[i].seconds = seconds[i];
  std::vector<double> balances;
  for (const LaunchProfile &l : launches)
    balances.push_back(l.balance());
  std::sort(balances.begin(), balances.end());
  std::sort(launches.begin(), launches.end(),
            [](const LaunchProfile &a, const LaunchProfile &b) { return a.seconds < b.seconds; });
  const LaunchProfile &median = launches[(launches.size() - 1) / 2];
  const blockc_launch_options &o = plan.launch;
  std::string chunk = o.chunk_size ? "chunk " + std::to_string(o.chunk_size) : "default chunk";
  std::printf("  threads %zu, order %s, schedule %s (%s)\n", median.busyUs.size(),
              blockc_grid_order_name(o.order), blockc_schedule_name(o.schedule), chunk.c_str());
  std::printf("  balance %.2f busiest/average thread time in programs (median of %zu; best "
              "%.2f, worst %.2f)\n",
              balances[(balances.size() - 1) / 2], balances.size(), balances.front(),
              balances.back());
  std::printf("  %-7s %13s %10s %7s   (the median launch)\n", "thread", "busy", "programs",
              "spans");
  for (size_t t = 0; t < median.busyUs.size(); ++t)
    std::printf("  %-7zu %10.3f us %10lld %7lld\n", t, median.busyUs[t],
                (long long)median.programs[t], (long long)median.spans[t]);
}

} // namespace

int runRun(const std::vector<std::string> &argv) {
  std::string error;
  static const CommandSpec spec = makeRunSpec();
  int exitCode;
  std::optional<Arguments> args = parseCommandLine(spec, argv, exitCode);
  if (!args)
    return exitCode;
  auto fail = [](const std::string &message) {
    std::cerr << "blockc run: " << message << "\n";
    return 1;
  };

  RunPlan plan;
  if (!parsePlan(*args, plan, error))
    return fail(error);
  SourceFile file;
  if (!readSource(args->positional()[0], file, error))
    return fail(error);
  DiagnosticEngine diags;
  std::unique_ptr<JitModule> module = JitModule::compile(file, plan.compile, diags);
  if (!module) {
    if (diags.hasError())
      std::cerr << formatDiagnostic(diags.diagnostic(), &file);
    else
      fail("compiling '" + file.name + "' failed");
    return 1;
  }
  const JitKernel *kernel = selectKernel(*module, plan.kernel, file.name, error);
  if (!kernel)
    return fail(error);
  std::optional<KernelArgs> bound = bindArgs(kernel->name, kernel->params, plan.args, error);
  if (!bound)
    return fail(error);

  // Last, so that a trace holds the launches and nothing else.
  if (plan.trace || plan.profile) {
    std::optional<std::string> path = plan.trace;
    std::string source = "--trace";
    const char *variable = std::getenv("BLOCKC_TRACE");
    if (!path && variable && *variable) {
      path = variable;
      source = "BLOCKC_TRACE";
    }
    if (blockc_trace_start(path ? path->c_str() : nullptr) != BLOCKC_SUCCESS)
      return fail(source + ": " + blockc_last_error());
  }

  BoundsCheckedArgs checked(*bound, *kernel);
  // One untimed warm-up before timed runs: it pays for first-touch page
  // faults and starts the OpenMP thread pool.
  int64_t launches = plan.repeat ? plan.repeat + 1 : 1;
  std::vector<double> seconds;
  for (int64_t i = 0; i < launches; ++i) {
    auto start = std::chrono::steady_clock::now();
    blockc_kernel_info info = kernel->info();
    int status =
        blockc_launch_kernel(kernel->fn, checked.launchArgs(), plan.grid, &plan.launch, &info);
    auto end = std::chrono::steady_clock::now();
    if (status != BLOCKC_SUCCESS)
      return fail(std::string("launching '") + kernel->name + "' failed: " + blockc_last_error());
    if (checked.report().failed) {
      std::cerr << describeViolation(checked.report(), *kernel, file);
      return 1;
    }
    if (plan.repeat && i > 0)
      seconds.push_back(std::chrono::duration<double>(end - start).count());
  }
  std::vector<LaunchProfile> profiles;
  if (plan.profile)
    profiles = readProfiles();
  if ((plan.trace || plan.profile) && blockc_trace_stop() != BLOCKC_SUCCESS)
    return fail(blockc_last_error());
  if (!writeOutputs(*bound, plan.outputs, error))
    return fail(error);
  if (plan.repeat)
    printTimings(kernel->name, plan, seconds, *bound);
  if (plan.profile)
    printProfile(plan, std::move(profiles), seconds);
  return 0;
}

} // namespace blockc::driver

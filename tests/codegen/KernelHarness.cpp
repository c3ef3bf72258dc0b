//===- KernelHarness.cpp - In-process and remote launches for tests -------===//
//
// Two backends behind compileOrFail and launch (KernelHarness.h describes the
// environment that picks one): the in-process JIT, here, and a runner process
// (tests/cross/Runner.cpp, usually under QEMU) that loads each module as a
// shared library and receives every launch with its buffers by value, in
// RemoteBackend.cpp. launch checks the arguments against the kernel's
// parameters before either backend sees them.
//
//===----------------------------------------------------------------------===//
#include "KernelHarness.h"

#include "RemoteBackend.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/DotCascade.h"
#include "blockc/lowering/IsaLowering.h"
#include "blockc/targets/IsaLowerings.h"

#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <set>
#include <sstream>

namespace blockc::test {

std::string envOr(const char *name, const std::string &fallback) {
  const char *value = std::getenv(name);
  return value && *value ? value : fallback;
}

namespace {

std::string testTarget() {
  return envOr("BLOCKC_TEST_TARGET", "host");
}

size_t paramBytes(const Type &t) {
  return t.kind() == ScalarKind::I1 ? 1 : bitWidth(t.kind()) / 8;
}

std::string describeArgs(const std::vector<Arg> &args) {
  std::ostringstream s;
  for (size_t i = 0; i < args.size(); ++i) {
    s << (i ? ", " : "");
    if (args[i].kind() == Arg::Kind::Buffer)
      s << "buffer of " << args[i].bytes() << " bytes";
    else
      s << args[i].bytes() << "-byte scalar";
  }
  return s.str();
}

/// Throws unless `args` fit `kernel`'s parameters one by one.
void checkArgs(const TestKernel &kernel, const std::vector<Arg> &args) {
  std::ostringstream problem;
  if (args.size() != kernel.params.size())
    problem << args.size() << " arguments for " << kernel.params.size() << " parameters";
  for (size_t i = 0; i < args.size() && i < kernel.params.size() && problem.str().empty(); ++i) {
    const Param &p = kernel.params[i];
    bool buffer = args[i].kind() == Arg::Kind::Buffer;
    if (p.type.isPointer() != buffer)
      problem << "parameter " << i << " (%" << p.name << ": " << p.type.str() << ") needs "
              << (p.type.isPointer() ? "a buffer" : "a scalar") << ", got a "
              << (buffer ? "buffer" : "scalar");
    else if (args[i].elementBytes() != paramBytes(p.type))
      problem << "parameter " << i << " (%" << p.name << ": " << p.type.str() << ") needs "
              << (buffer ? "elements" : "a value") << " of " << paramBytes(p.type) << " bytes, got "
              << args[i].elementBytes();
  }
  if (problem.str().empty())
    return;
  std::ostringstream s;
  s << "bad arguments for kernel @" << kernel.name << "(";
  for (size_t i = 0; i < kernel.params.size(); ++i)
    s << (i ? ", " : "") << "%" << kernel.params[i].name << ": " << kernel.params[i].type.str();
  s << "): " << problem.str() << " (arguments: " << describeArgs(args) << ")";
  throw LaunchFailure(s.str());
}

// --- In process ----------------------------------------------------------------

class InProcessModule : public TestModule {
public:
  explicit InProcessModule(std::unique_ptr<JitModule> jit) : jit_(std::move(jit)) {
    for (const JitKernel &k : jit_->kernels())
      kernels_.push_back({k.name, k.params, this});
  }
  void launch(const TestKernel &kernel, blockc_grid grid, const std::vector<Arg> &args) const {
    const JitKernel *jitted = jit_->kernel(kernel.name);
    std::vector<void *> pointers(args.size()), storage(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      pointers[i] = args[i].data();
      storage[i] = args[i].kind() == Arg::Kind::Buffer ? &pointers[i] : args[i].data();
    }
    blockc_launch_options options;
    blockc_launch_options_init(&options);
    blockc_kernel_info info = jitted->info();
    if (blockc_launch_kernel(jitted->fn, storage.data(), grid, &options, &info) != 0)
      throw LaunchFailure("launch of " + describeLaunch(kernel, grid, args) +
                          " failed: " + blockc_last_error());
  }

private:
  std::unique_ptr<JitModule> jit_;
};

} // namespace

std::string describeLaunch(const TestKernel &kernel, blockc_grid grid,
                           const std::vector<Arg> &args) {
  std::ostringstream s;
  s << "kernel @" << kernel.name << " over grid {" << grid.x << ", " << grid.y << ", " << grid.z
    << "} with (" << describeArgs(args) << ")";
  return s.str();
}

bool launchesInProcess() {
  return runnerCommand().empty();
}

std::unique_ptr<JitModule> compileInProcessOrFail(const std::string &source,
                                                  const ConstexprBindings &defines,
                                                  const std::string &target) {
  setenv("BLOCKC_CACHE_DIR", "off", 1);
  SourceFile file{"test.bir", source};
  CompileOptions options;
  options.target = target;
  options.defines = defines;
  DiagnosticEngine diags;
  std::unique_ptr<JitModule> module = JitModule::compile(file, options, diags);
  EXPECT_TRUE(module) << formatDiagnostic(diags.diagnostic(), &file) << "\n" << source;
  return module;
}

namespace {

/// The test target's features (BLOCKC_TEST_FEATURES) with a test's own.
std::string testFeatures(const std::string &extra) {
  std::string features = envOr("BLOCKC_TEST_FEATURES", "");
  if (!extra.empty())
    features += (features.empty() ? "" : ",") + extra;
  return features;
}

} // namespace

std::unique_ptr<TestModule> compileWithOptionsOrFail(const std::string &source,
                                                     CompileOptions options) {
  options.target = testTarget();
  options.features = testFeatures(options.features);
  if (!launchesInProcess())
    return compileRemote(source, options);
  setenv("BLOCKC_CACHE_DIR", "off", 1);
  SourceFile file{"test.bir", source};
  DiagnosticEngine diags;
  std::unique_ptr<JitModule> module = JitModule::compile(file, options, diags);
  EXPECT_TRUE(module) << formatDiagnostic(diags.diagnostic(), &file) << "\n" << source;
  if (!module)
    return nullptr;
  return std::make_unique<InProcessModule>(std::move(module));
}

std::optional<std::string> missingDotStrategy(const std::string &name,
                                              const std::string &extraFeatures) {
  if (name == "generic")
    return std::nullopt;
  CompileOptions options;
  options.target = testTarget();
  options.features = testFeatures(extraFeatures);
  Target target;
  std::string error;
  if (!resolveTarget(options, target, error))
    return error;
  registerIsaLowerings();
  std::unique_ptr<IsaLowering> isa = makeIsaLowering(target);
  if (selectDotStrategy(nullptr, *isa, name))
    return std::nullopt;
  std::string has;
  for (std::string_view strategy : dotCascadeNames(*isa))
    has += " " + std::string(strategy);
  return "dot strategy '" + name + "' not tested: the test target '" + target.name + "' (" +
         target.cpu + ") lacks the unit it needs; its cascade:" + has;
}

std::vector<const char *> dotStrategiesOfTestArchitecture(const std::vector<const char *> &all) {
  CompileOptions options;
  options.target = testTarget();
  Target testTarget;
  std::string error;
  if (!lookupTarget(options.target, testTarget, error))
    return all; // every instance then fails, naming the bad target
  auto architecture = [](const Target &t) { return llvm::Triple(t.triple).getArch(); };
  std::set<std::string, std::less<>> names;
  for (const std::string &name : targetNames()) {
    Target target;
    if (!lookupTarget(name, target, error) || architecture(target) != architecture(testTarget))
      continue;
    registerIsaLowerings();
    std::unique_ptr<IsaLowering> isa = makeIsaLowering(target);
    for (std::string_view strategy : dotCascadeNames(*isa))
      names.insert(std::string(strategy));
  }
  std::vector<const char *> kept;
  for (const char *strategy : all)
    if (names.count(strategy))
      kept.push_back(strategy);
  return kept;
}

void launch(const TestKernel &kernel, blockc_grid grid, const std::vector<Arg> &args) {
  checkArgs(kernel, args);
  if (auto *local = dynamic_cast<const InProcessModule *>(kernel.module)) {
    local->launch(kernel, grid, args);
    return;
  }
  if (launchRemote(kernel, grid, args))
    return;
  throw LaunchFailure("kernel @" + kernel.name + " belongs to no module");
}

} // namespace blockc::test

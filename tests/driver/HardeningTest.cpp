//===- HardeningTest.cpp - Defects found by trying blockc as a new user ---===//
//
// Each test is the regression test of one defect: debug output on a cache
// hit, an unusable --dump-dir, every --print-after stage, an object that a
// dump must not change, targets the CPU cannot run, `run --kernel` compiling
// only its kernel, and worker stacks too small for a kernel's scratch.
//
//===----------------------------------------------------------------------===//
#include "RunProcess.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <vector>

using namespace blockc::test;
namespace fs = std::filesystem;

namespace {

const std::string kVectorAdd = BLOCKC_EXAMPLES_DIR "/vector_add.bir";
const std::string kRunVectorAdd = "run " + kVectorAdd +
                                  " -D BLOCK=256 --grid 4 --arg a=1000xf32=random "
                                  "--arg b=1000xf32=random --arg c=1000xf32=0 --arg n=1000";

const char *const kUnknownStageError = "--print-after=Fusion: unknown stage; stages:";

/// Every name --print-after accepts, in pipeline order, as blockc lists them
/// (lowering's stage table; the names are written nowhere else).
const std::vector<std::string> &stages() {
  static const std::vector<std::string> names = [] {
    ProcessResult r = runBlockc("compile " + kVectorAdd + " --print-after=Fusion");
    std::vector<std::string> found;
    size_t at = r.err.find(kUnknownStageError);
    if (at == std::string::npos)
      return found;
    std::istringstream list(r.err.substr(at + std::strlen(kUnknownStageError)));
    for (std::string name; list >> name;)
      found.push_back(name);
    return found;
  }();
  return names;
}

std::string writeSource(const std::string &name, const std::string &text) {
  fs::path path = scratchDir(name) / (name + ".bir");
  std::ofstream(path) << text;
  return path.string();
}

/// A kernel @NAME whose two reductions over ELEMENTS f32 keep the block of
/// exponentials in scratch (its products fuse into the second): 4 bytes per
/// element. A plain load would be loaded again instead.
std::string scratchKernel(const std::string &name, const std::string &elements) {
  return "kernel @" + name +
         "(%p: ptr<f32>, %out: ptr<f32>) {\n"
         "  %r = arange 0, " +
         elements +
         "\n"
         "  %ptrs = addptr %p, %r\n  %l = load %ptrs\n  %x = exp %l\n"
         "  %s = reduce_sum %x, axis=0\n"
         "  %e = mul %x, %s\n  %u = reduce_sum %e, axis=0\n"
         "  store %out, %u\n}\n";
}

size_t filesIn(const fs::path &dir) {
  return std::distance(fs::directory_iterator(dir), fs::directory_iterator());
}

} // namespace

TEST(Hardening, DebugOutputIsShownOnACacheHit) {
  fs::path cache = scratchDir("debug_cache");
  std::string env = "BLOCKC_CACHE_DIR=" + cache.string() + " ";
  ASSERT_EQ(runCommand(env + "'" BLOCKC_BINARY "' " + kRunVectorAdd).exitCode, 0);
  ASSERT_EQ(filesIn(cache), 1u);

  ProcessResult printed =
      runCommand(env + "'" BLOCKC_BINARY "' " + kRunVectorAdd + " --print-after=SimplifyMasks");
  EXPECT_EQ(printed.exitCode, 0) << printed.err;
  EXPECT_NE(printed.err.find("// ----- after SimplifyMasks"), std::string::npos) << printed.err;

  ProcessResult debug = runCommand(env + "BLOCKC_DEBUG=3 '" BLOCKC_BINARY "' " + kRunVectorAdd);
  EXPECT_EQ(debug.exitCode, 0) << debug.err;
  ASSERT_FALSE(stages().empty());
  for (const std::string &stage : stages())
    EXPECT_NE(debug.err.find("// ----- after " + stage), std::string::npos) << stage;

  fs::path dump = scratchDir("debug_dump");
  ProcessResult dumped =
      runCommand(env + "'" BLOCKC_BINARY "' " + kRunVectorAdd + " --dump-dir " + dump.string());
  EXPECT_EQ(dumped.exitCode, 0) << dumped.err;
  std::string files;
  for (const auto &e : fs::directory_iterator(dump))
    files += e.path().filename().string() + " ";
  for (const char *file :
       {"SimplifyMasks.bir", "FuseElementwise.txt", "OptimizeLLVM.ll", "EmitMachineCode.s"})
    EXPECT_NE(files.find(file), std::string::npos) << file << " missing from: " << files;
}

TEST(Hardening, UnusableDumpDirIsAnError) {
  // A folder cannot be made under a regular file, whoever runs the test.
  fs::path file = scratchDir("dump_file") / "plain-file";
  std::ofstream(file) << "x";
  for (const std::string &command : {kRunVectorAdd, "compile " + kVectorAdd + " -o /dev/null"}) {
    ProcessResult r = runBlockc(command + " --dump-dir " + file.string() + "/dumps");
    EXPECT_EQ(r.exitCode, 1) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("--dump-dir '" + file.string() + "/dumps': cannot create the folder"),
              std::string::npos)
        << r.err;
  }
}

TEST(Hardening, EveryPrintAfterStagePrints) {
  ASSERT_GE(stages().size(), 9u) << "blockc lists no stages";
  for (const std::string &stage : stages()) {
    ProcessResult r = runBlockc("compile " + kVectorAdd + " -o /dev/null --print-after=" + stage);
    EXPECT_EQ(r.exitCode, 0) << stage << ": " << r.err;
    std::string header = "// ----- after " + stage;
    ASSERT_NE(r.err.find(header), std::string::npos) << stage << " printed: " << r.err;
    EXPECT_GT(r.err.size(), header.size() + 40) << stage << " printed only its header";
  }
}

// docs/reference.md names the stages in the order they run, every one.
TEST(Hardening, ReferenceListsEveryStageInOrder) {
  std::ifstream file(BLOCKC_EXAMPLES_DIR "/../docs/reference.md");
  std::string row;
  for (std::string line; std::getline(file, line);)
    if (line.rfind("| `--print-after` |", 0) == 0)
      row = line;
  ASSERT_FALSE(row.empty()) << "docs/reference.md has no --print-after row";
  ASSERT_FALSE(stages().empty());
  size_t at = 0;
  for (const std::string &stage : stages()) {
    size_t next = row.find("`" + stage + "`", at);
    ASSERT_NE(next, std::string::npos) << stage << " is missing, or out of order, in: " << row;
    at = next;
  }
}

// The assembly dump comes from a clone: the object is the same with or
// without it.
TEST(Hardening, DumpingAssemblyLeavesTheObjectUnchanged) {
  fs::path dir = scratchDir("dump_object");
  std::string plain = (dir / "plain.o").string(), dumped = (dir / "dumped.o").string();
  for (const std::string &target : {"x86-64-v4", "rv64gcv"}) {
    ASSERT_EQ(runBlockc("compile " + kVectorAdd + " --target " + target + " -o " + plain).exitCode,
              0);
    ProcessResult r =
        runCommand("BLOCKC_DEBUG=3 '" BLOCKC_BINARY "' compile " + kVectorAdd + " --target " +
                   target + " -o " + dumped + " --dump-dir " + (dir / target).string());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(slurp(plain), slurp(dumped)) << target;
    std::string assembly;
    for (const auto &e : fs::directory_iterator(dir / target))
      if (e.path().string().find("EmitMachineCode.s") != std::string::npos)
        assembly = slurp(e.path().string());
    EXPECT_NE(assembly.find("vector_add:"), std::string::npos) << target;
  }
}

TEST(Hardening, TargetsThisCpuCannotRunAreRefused) {
  ProcessResult riscv = runBlockc(kRunVectorAdd + " --target rv64gcv");
  EXPECT_EQ(riscv.exitCode, 1);
  EXPECT_NE(riscv.err.find("target 'rv64gcv' generates riscv64 code, which cannot run on this "
                           "x86_64 machine"),
            std::string::npos)
      << riscv.err;
  if (__builtin_cpu_supports("avx512fp16"))
    GTEST_SKIP() << "this CPU has avx512fp16: sapphirerapids code runs here, nothing to refuse";
  ProcessResult spr = runBlockc(kRunVectorAdd + " --target sapphirerapids");
  EXPECT_EQ(spr.exitCode, 1) << "exit 132 is the SIGILL this check prevents";
  EXPECT_NE(spr.err.find("target 'sapphirerapids' needs CPU features this machine lacks:"),
            std::string::npos)
      << spr.err;
  EXPECT_NE(spr.err.find(" avx512fp16"), std::string::npos) << spr.err;
}

// `--kernel small` compiles only `small`: no code is generated for `huge`
// (whose 4 MiB of scratch per program were once a compile error, and now come
// from the thread's arena).
TEST(Hardening, RunKernelCompilesOnlyThatKernel) {
  std::string source = writeSource("two_kernels", "constexpr BLOCK: i32 = 1048576\n" +
                                                      scratchKernel("huge", "BLOCK") + R"(
kernel @small(%p: ptr<f32>) {
  %r = arange 0, 16
  %ptrs = addptr %p, %r
  %x = load %ptrs
  %y = add %x, %x
  store %ptrs, %y
}
)");
  fs::path out = scratchDir("two_kernels_out") / "p.npy";
  ProcessResult r = runBlockc("run " + source + " --kernel small --grid 1 --arg p=16xf32=1.5 " +
                              "--output p=@" + out.string() + " --print-after=GenerateLLVM");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_NE(r.err.find("define void @small("), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("@huge"), std::string::npos) << r.err;
  ProcessResult huge = runBlockc("run " + source +
                                 " --kernel huge --grid 1 --arg p=1048576xf32=1 --arg out=1xf32=0");
  EXPECT_EQ(huge.exitCode, 0) << huge.err;
}

// A kernel with 224 KiB of stack scratch on workers given 256 KiB stacks: a
// clear error naming OMP_STACKSIZE before any program runs, never a crash, and
// the size it advises works.
TEST(Hardening, WorkerStacksTooSmallForScratchAreAnError) {
  std::string source = writeSource("big_scratch", scratchKernel("k", "57344"));
  std::string run = "'" BLOCKC_BINARY "' run " + source +
                    " --grid 4 --threads 2 --arg p=57344xf32=0 --arg out=1xf32=0";
  ProcessResult small = runCommand("OMP_STACKSIZE=256K " + run);
  EXPECT_EQ(small.exitCode, 1) << small.err;
  EXPECT_NE(small.err.find("raise OMP_STACKSIZE (now 256K"), std::string::npos) << small.err;
  std::smatch advice;
  ASSERT_TRUE(std::regex_search(small.err, advice, std::regex("OMP_STACKSIZE=[0-9]+K")))
      << small.err;
  ProcessResult enough = runCommand(advice[0].str() + " " + run);
  EXPECT_EQ(enough.exitCode, 0) << enough.err;
}

// The launching thread runs programs too, as OpenMP's primary thread. For the
// process's main thread its stack is the stack limit, `ulimit -s`, which
// OMP_STACKSIZE does not change: the error must say so, with advice that
// works. With two threads the worker, whose default stack is the limit too,
// is short as well, and the same message advises for it.
TEST(Hardening, LaunchingThreadStackTooSmallNamesUlimit) {
  std::string source = writeSource("main_stack", scratchKernel("k", "57344"));
  std::string cache = "BLOCKC_CACHE_DIR=" + scratchDir("main_stack_cache").string() + " ";
  for (const std::string &grid : {"--grid 1", "--grid 2 --threads 2"}) {
    std::string run = cache + "'" BLOCKC_BINARY "' run " + source + " " + grid +
                      " --arg p=57344xf32=0 --arg out=1xf32=0";
    // Compiled and cached with the usual stack: LLVM itself needs more than 256 KiB.
    ASSERT_EQ(runCommand(run).exitCode, 0) << grid;
    ProcessResult small = runCommand("ulimit -s 256 && " + run);
    EXPECT_EQ(small.exitCode, 1) << grid << "\n" << small.err;
    EXPECT_NE(small.err.find("the launching thread has"), std::string::npos) << small.err;
    std::smatch limit, workers;
    ASSERT_TRUE(std::regex_search(small.err, limit, std::regex("ulimit -s ([0-9]+)")))
        << grid << "\n"
        << small.err;
    std::string advised = "ulimit -s " + limit[1].str() + " && ";
    if (std::regex_search(small.err, workers, std::regex("OMP_STACKSIZE=[0-9]+K")))
      advised += workers[0].str() + " ";
    ProcessResult followed = runCommand(advised + run);
    EXPECT_EQ(followed.exitCode, 0) << grid << ": " << advised << "\n" << followed.err;
  }
}

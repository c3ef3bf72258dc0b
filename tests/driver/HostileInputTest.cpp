//===- HostileInputTest.cpp - Paths, files and streams a hostile user picks ===//
//
// Regression tests of the third hardening round: inputs that are devices,
// folders or huge one-line files; outputs through links, devices, full disks
// and exhausted file-size limits; standard output that cannot be written; a
// damaged kernel cache. Each case once crashed, hung or exited 0 with a wrong
// result; each must now be a clear error (exit 1) or the right answer.
//
//===----------------------------------------------------------------------===//
#include "RunProcess.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace blockc::test;
namespace fs = std::filesystem;

namespace {

const std::string kVectorAdd = BLOCKC_EXAMPLES_DIR "/vector_add.bir";

std::string quote(const fs::path &path) {
  return "'" + path.string() + "'";
}

/// `ENV blockc ARGS` with files limited to `bytes`. prlimit counts bytes,
/// where a shell's `ulimit -f` counts blocks of 512 (dash) or 1024 (bash).
/// SIGXFSZ is ignored, so that a write past the limit fails with EFBIG rather
/// than killing blockc. At least 1 KiB: the OpenMP runtime sizes a 1 KiB
/// registration file in /dev/shm, and leaves one it cannot size empty, for a
/// later process given the same pid to die of SIGBUS reading it.
std::string blockcWithFileSizeLimit(uint64_t bytes, const std::string &env,
                                    const std::string &args) {
  EXPECT_GE(bytes, 1024u);
  return "trap '' XFSZ; " + env + " prlimit --fsize=" + std::to_string(bytes) + " '" +
         BLOCKC_BINARY + "' " + args;
}

std::string runVectorAdd(const std::string &extra = "") {
  return "run " + kVectorAdd +
         " -D BLOCK=256 --grid 4 --arg a=1000xf32=random --arg b=1000xf32=random "
         "--arg c=1000xf32=0 --arg n=1000 " +
         extra;
}

TEST(HostileInput, DeviceInputIsRefusedNotReadForever) {
  for (const char *command : {"check", "print", "compile", "inspect"}) {
    ProcessResult r =
        runCommand("timeout 20 '" BLOCKC_BINARY "' " + std::string(command) + " /dev/zero");
    EXPECT_EQ(r.exitCode, 1) << command << ": " << r.err;
    EXPECT_NE(r.err.find("'/dev/zero' is a character device"), std::string::npos)
        << command << ": " << r.err;
  }
}

TEST(HostileInput, DirectoryInputIsAnErrorAndWritesNothing) {
  fs::path dir = scratchDir("dir_input");
  fs::create_directories(dir / "kernels");
  for (const char *command : {"check", "print", "compile", "inspect"}) {
    ProcessResult r = runBlockc(std::string(command) + " " + quote(dir / "kernels"));
    EXPECT_EQ(r.exitCode, 1) << command;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << command << ": " << r.err;
    EXPECT_EQ(r.out, "") << command;
  }
  EXPECT_FALSE(fs::exists(dir / "kernels.o"));
  ProcessResult npy = runBlockc(runVectorAdd().replace(runVectorAdd().find("a=1000xf32=random"), 17,
                                                       "a=@" + (dir / "kernels").string()));
  EXPECT_EQ(npy.exitCode, 1);
  EXPECT_NE(npy.err.find("is a directory"), std::string::npos) << npy.err;
  EXPECT_EQ(npy.err.find("truncated"), std::string::npos) << npy.err;
}

TEST(HostileInput, OversizedSourceIsRefused) {
  fs::path dir = scratchDir("oversized");
  fs::path big = dir / "big.bir";
  {
    std::ofstream create(big);
  }
  // A sparse file: its size, not its bytes, is what must be refused.
  fs::resize_file(big, (uint64_t(256) << 20) + 1);
  ProcessResult r = runBlockc("check " + quote(big));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("larger than the 256 MiB limit"), std::string::npos) << r.err;
}

TEST(HostileInput, ErrorOnAHugeLineQuotesAWindow) {
  fs::path dir = scratchDir("huge_line");
  fs::path source = dir / "line.bir";
  {
    std::ofstream out(source);
    out << "kernel @k() { " << std::string(50 << 20, ' ') << "%x = bogus 1 }\n";
  }
  ProcessResult r = runBlockc("check " + quote(source));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("error:"), std::string::npos) << r.err.substr(0, 400);
  EXPECT_LT(r.err.size(), 2000u) << "the whole 50 MB line was quoted";
  // The caret still points at the column the message names.
  size_t quoteLine = r.err.find('\n') + 1;
  size_t caretLine = r.err.find('\n', quoteLine) + 1;
  size_t caret = r.err.find('^', caretLine);
  ASSERT_NE(caret, std::string::npos) << r.err;
  EXPECT_EQ(r.err.substr(quoteLine + (caret - caretLine), 5), "bogus") << r.err;
}

TEST(HostileInput, OutputThroughALinkReplacesTheTargetAndKeepsTheLink) {
  fs::path dir = scratchDir("link_output");
  std::ofstream(dir / "real.ll") << "old";
  fs::create_symlink("real.ll", dir / "link.ll");
  ProcessResult r =
      runBlockc("compile " + kVectorAdd + " --emit=llvm -o " + quote(dir / "link.ll"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.ll"));
  EXPECT_NE(slurp((dir / "real.ll").string()).find("define"), std::string::npos);
  // `run --output` once renamed its temporary file over the link itself.
  std::ofstream(dir / "real.npy") << "old";
  fs::create_symlink("real.npy", dir / "link.npy");
  r = runBlockc(runVectorAdd("--output c=@" + (dir / "link.npy").string()));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.npy"));
  EXPECT_EQ(slurp((dir / "real.npy").string()).substr(1, 5), "NUMPY");
}

TEST(HostileInput, OutputToADeviceWritesThroughIt) {
  fs::path dir = scratchDir("device_output");
  // A FIFO stands in for a device node: writable, not regular, and creatable
  // without privileges. Replacing it with a file would be the defect.
  fs::path fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ProcessResult r = runCommand("cat " + quote(fifo) + " > " + quote(dir / "read.txt") + " & '" +
                               BLOCKC_BINARY + "' compile " + kVectorAdd + " --emit=llvm -o " +
                               quote(fifo) + "; status=$?; wait; exit $status");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_NE(slurp((dir / "read.txt").string()).find("define"), std::string::npos);
  // --output of `blockc run` takes the same path. (Not /dev/null: run as
  // root, the old code replaced it with a regular file.)
  r = runCommand("cat " + quote(fifo) + " > " + quote(dir / "read.npy") + " & '" + BLOCKC_BINARY +
                 "' " + runVectorAdd("--output c=@" + fifo.string()) +
                 "; status=$?; wait; exit $status");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(slurp((dir / "read.npy").string()).substr(1, 5), "NUMPY");
}

TEST(HostileInput, StandardOutputWriteErrorsAreErrors) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full on this machine";
  fs::path dir = scratchDir("stdout_full");
  ASSERT_EQ(runBlockc("compile " + kVectorAdd + " -o " + quote(dir / "k.o")).exitCode, 0);
  for (std::string args :
       {"print " + kVectorAdd, std::string("targets"), "inspect " + quote(dir / "k.o"),
        runVectorAdd("--repeat 2"), "compile " + kVectorAdd + " --emit=asm -o -"}) {
    ProcessResult r = runBlockc(args + " > /dev/full");
    EXPECT_EQ(r.exitCode, 1) << args;
    EXPECT_NE(r.err.find("standard output"), std::string::npos) << args << ": " << r.err;
  }
}

TEST(HostileInput, FailedWriteLeavesThePreviousOutputWhole) {
  fs::path dir = scratchDir("failed_write");
  int failedWrites = 0;
  for (const char *emit : {"obj", "asm", "llvm", "header", "so"}) {
    fs::path out = dir / (std::string("out.") + emit);
    ASSERT_EQ(runBlockc("compile " + kVectorAdd + " --emit=" + emit + " -o " + quote(out)).exitCode,
              0)
        << emit;
    std::string before = slurp(out.string());
    // A 1 KiB file-size limit makes the write fail.
    ProcessResult r = runCommand(blockcWithFileSizeLimit(
        1024, "", "compile " + kVectorAdd + " -D BLOCK=512 --emit=" + emit + " -o " + quote(out)));
    if (before.size() <= 1024)
      continue; // fits the limit: nothing to fail
    ++failedWrites;
    EXPECT_EQ(r.exitCode, 1) << emit << ": " << r.err;
    EXPECT_EQ(slurp(out.string()), before) << emit << ": the previous output was cut short";
    for (const auto &entry : fs::directory_iterator(dir))
      EXPECT_EQ(entry.path().filename().string().find(".out."), std::string::npos)
          << "a temporary file was left behind: " << entry.path();
  }
  EXPECT_GE(failedWrites, 4) << "outputs too small to test a failed write";
}

TEST(HostileInput, NpyHeaderBytesAreEscapedInErrors) {
  fs::path dir = scratchDir("npy_nul");
  std::string dict = "{'descr': '<f" + std::string(1, '\0') +
                     "\x1b[31m', 'fortran_order': False, 'shape': (1000,), }";
  std::string header("\x93NUMPY\x01\x00", 8);
  std::string padded = dict + std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
  header += char(padded.size() & 0xff);
  header += char(padded.size() >> 8);
  std::ofstream(dir / "a.npy", std::ios::binary) << header << padded << std::string(4000, '\0');
  std::string args = runVectorAdd();
  args.replace(args.find("a=1000xf32=random"), 17, "a=@" + (dir / "a.npy").string());
  ProcessResult r = runBlockc(args);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("<f\\x00\\x1b[31m"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\0'), std::string::npos);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

TEST(HostileInput, InspectOfAMissingLoopIsAnError) {
  fs::path dir = scratchDir("missing_loop");
  ASSERT_EQ(runBlockc("compile " + kVectorAdd + " -o " + quote(dir / "k.o")).exitCode, 0);
  ProcessResult r = runBlockc("inspect " + quote(dir / "k.o") + " --loop 99999");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no function has a loop 99999"), std::string::npos) << r.err;
  EXPECT_EQ(runBlockc("inspect " + quote(dir / "k.o") + " --loop 0").exitCode, 0);
}

TEST(HostileInput, TruncatedArchiveMemberIsALocatedError) {
  fs::path dir = scratchDir("truncated_archive");
  ASSERT_EQ(runBlockc("compile " + kVectorAdd + " -o " + quote(dir / "k.o")).exitCode, 0);
  if (runCommand("llvm-ar-22 rcs " + quote(dir / "k.a") + " " + quote(dir / "k.o")).exitCode != 0)
    GTEST_SKIP() << "llvm-ar-22 is not installed";
  // The member's header still claims the whole object: LLVM's reader would
  // hand inspect a buffer running past the end of the file.
  fs::resize_file(dir / "k.a", fs::file_size(dir / "k.a") - 200);
  ProcessResult r = runBlockc("inspect " + quote(dir / "k.a"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find((dir / "k.a").string() + ": damaged archive: member 'k.o'"),
            std::string::npos)
      << r.err;
}

TEST(HostileInput, DamagedCacheEntryIsRecompiledWithAWarning) {
  fs::path cache = scratchDir("damaged_cache");
  std::string env = "BLOCKC_CACHE_DIR=" + quote(cache) + " ";
  fs::path out = cache / "c.npy";
  ASSERT_EQ(runCommand(env + "'" BLOCKC_BINARY "' " + runVectorAdd()).exitCode, 0);
  fs::path entry;
  for (const auto &e : fs::directory_iterator(cache))
    entry = e.path();
  ASSERT_FALSE(entry.empty());
  std::string whole = slurp(entry.string());
  std::ofstream(entry, std::ios::binary) << whole.substr(0, whole.size() / 2);
  ProcessResult r = runCommand(env + "'" BLOCKC_BINARY "' " + runVectorAdd());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning: kernel cache entry '" + entry.string() + "' is damaged"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(entry.string()), whole) << "the entry was not written again";
}

TEST(HostileInput, CacheWriteThatFailsLeavesNoEntry) {
  fs::path cache = scratchDir("failed_cache_write");
  // An entry of a few KiB (vector_add's is 1264 bytes) sits in the stream's
  // buffer until the close: the old cache checked the stream before it, and
  // renamed an empty entry into place on a full disk (here: a 1 KiB
  // file-size limit).
  std::string env = "BLOCKC_CACHE_DIR=" + quote(cache);
  runCommand(blockcWithFileSizeLimit(1024, env, runVectorAdd()));
  std::string run = env + " '" BLOCKC_BINARY "' " + runVectorAdd();
  for (const auto &e : fs::directory_iterator(cache))
    ADD_FAILURE() << "left in the cache: " << e.path() << " (" << fs::file_size(e.path())
                  << " bytes)";
  ProcessResult r = runCommand(run);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

} // namespace

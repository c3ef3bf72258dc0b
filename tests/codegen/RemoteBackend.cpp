//===- RemoteBackend.cpp - Launches through a runner process --------------===//
//
// The runner (tests/cross/Runner.cpp, usually under QEMU) is started through
// BLOCKC_TEST_RUNNER and spoken to over its standard input and output with the
// frames of tests/cross/Protocol.h. It loads each module as a shared library,
// compiled here by the compile server (CompileServer.h), and receives every launch with its buffers
// by value; a fault or a timeout ends it and fails that launch.
//
//===----------------------------------------------------------------------===//
#include "RemoteBackend.h"

#include "../cross/Protocol.h"
#include "CompileServer.h"
#include "blockc/frontend/Parser.h"
#include "blockc/lowering/Compiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace blockc::test {

namespace {

/// A folder for this process's kernel libraries and runner logs, removed at
/// exit.
class TempFolder {
public:
  static const std::string &path() {
    static TempFolder folder;
    return folder.path_;
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

private:
  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "blockc-tests-XXXXXX").string();
    if (mkdtemp(pattern.data()))
      path_ = pattern;
  }
  std::string path_;
};

using Clock = std::chrono::steady_clock;

/// The runner process: started on the first remote launch, restarted after
/// it dies. One request at a time, one reply each.
class Runner {
public:
  static Runner &get() {
    static Runner runner;
    return runner;
  }
  ~Runner() { stop(); }

  /// Changes whenever a new runner process starts: libraries loaded into an
  /// older one must be loaded again.
  uint64_t generation() {
    ensureStarted();
    return generation_;
  }

  /// The generation running now, 0 if none; starts nothing.
  uint64_t runningGeneration() const { return pid_ > 0 ? generation_ : 0; }

  /// Sends `request` and returns the reply's payload, or throws LaunchFailure
  /// saying what happened to the runner during `what`.
  std::string call(const std::string &request, const std::string &what) {
    ensureStarted();
    std::string reply, problem;
    int seconds = std::atoi(envOr("BLOCKC_TEST_LAUNCH_TIMEOUT", "120").c_str());
    Clock::time_point deadline = Clock::now() + std::chrono::seconds(seconds > 0 ? seconds : 120);
    uint64_t size = request.size();
    std::string frame(reinterpret_cast<const char *>(&size), sizeof size);
    frame += request;
    if (!writeAll(frame, deadline, problem) || !readFrame(reply, deadline, problem)) {
      std::string end = problem == "timeout" ? killAndDescribe() : describeEnd();
      throw LaunchFailure("the runner (" + command_ + ") " +
                          (problem == "timeout"
                               ? "did not answer within " + std::to_string(seconds) + " s during "
                               : "stopped during ") +
                          what + ": " + end);
    }
    return reply;
  }

  /// After a kFault reply: the runner is dying of the signal; reap it.
  std::string reapAfterFault() { return describeEnd(); }

private:
  void ensureStarted() {
    if (pid_ > 0)
      return;
    command_ = runnerCommand();
    std::signal(SIGPIPE, SIG_IGN); // a dead runner is an error reply, not our death
    int toRunner[2], fromRunner[2];
    if (pipe2(toRunner, O_CLOEXEC) != 0 || pipe2(fromRunner, O_CLOEXEC) != 0)
      throw LaunchFailure("cannot create the runner's pipes");
    // The runner's (and QEMU's) standard error goes to a file whose end is
    // quoted when the runner dies: QEMU reports its own failures there.
    stderrPath_ = TempFolder::path() + "/runner" + std::to_string(generation_ + 1) + ".stderr";
    int log = open(stderrPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::string shell = "exec " + command_;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(toRunner[0], 0);
      dup2(fromRunner[1], 1);
      if (log >= 0)
        dup2(log, 2);
      execl("/bin/sh", "sh", "-c", shell.c_str(), static_cast<char *>(nullptr));
      _exit(127);
    }
    close(toRunner[0]);
    close(fromRunner[1]);
    if (log >= 0)
      close(log);
    if (pid < 0) {
      close(toRunner[1]);
      close(fromRunner[0]);
      throw LaunchFailure("cannot fork the runner");
    }
    pid_ = pid, to_ = toRunner[1], from_ = fromRunner[0];
    fcntl(to_, F_SETFL, fcntl(to_, F_GETFL) | O_NONBLOCK);
    ++generation_;

    cross::Writer hello;
    hello.put(uint32_t(cross::kHello));
    std::string reply = call(hello.payload(), "its start");
    cross::Reader in(reply);
    std::string registers;
    if (!in.str(registers))
      throw LaunchFailure("the runner (" + command_ + ") answered its start with garbage");
    if (!announced_) {
      std::fprintf(stderr, "[ runner ] %s: %s\n", command_.c_str(), registers.c_str());
      announced_ = true;
    }
    std::string bits = envOr("BLOCKC_TEST_VECTOR_BITS", "");
    if (!bits.empty() && registers.find("of " + bits + " bits") == std::string::npos)
      throw LaunchFailure("BLOCKC_TEST_VECTOR_BITS is " + bits + " but the runner (" + command_ +
                          ") reports " + registers);
  }

  static int millisecondsLeft(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() > 0 ? int(left.count()) : 0;
  }

  bool writeAll(const std::string &data, Clock::time_point deadline, std::string &problem) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(to_, data.data() + done, data.size() - done);
      if (n > 0) {
        done += size_t(n);
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        problem = "write";
        return false;
      }
      pollfd p{to_, POLLOUT, 0};
      if (poll(&p, 1, millisecondsLeft(deadline)) == 0) {
        problem = "timeout";
        return false;
      }
    }
    return true;
  }

  bool readAll(char *data, size_t size, Clock::time_point deadline, std::string &problem) {
    size_t done = 0;
    while (done < size) {
      pollfd p{from_, POLLIN, 0};
      int ready = poll(&p, 1, millisecondsLeft(deadline));
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready == 0) {
        problem = "timeout";
        return false;
      }
      ssize_t n = read(from_, data + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        problem = "end of output";
        return false;
      }
      done += size_t(n);
    }
    return true;
  }

  bool readFrame(std::string &payload, Clock::time_point deadline, std::string &problem) {
    uint64_t size = 0;
    if (!readAll(reinterpret_cast<char *>(&size), sizeof size, deadline, problem))
      return false;
    if (size > cross::kMaxFrameBytes) {
      problem = "a reply longer than the protocol allows";
      return false;
    }
    payload.resize(size);
    return readAll(payload.data(), size, deadline, problem);
  }

  /// Closes the pipes and waits (up to 10 s) for the runner to end; says how.
  std::string describeEnd() {
    if (pid_ <= 0)
      return "it was not running";
    close(to_);
    close(from_);
    int status = 0;
    pid_t done = 0;
    for (int waited = 0; waited < 1000 && done == 0; ++waited) {
      done = waitpid(pid_, &status, WNOHANG);
      if (done == 0)
        usleep(10000);
    }
    std::string how;
    if (done == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      how = "it did not exit within 10 s of closing its input; killed";
    } else if (done < 0) {
      how = "it could not be waited for";
    } else if (WIFSIGNALED(status)) {
      how = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
            strsignal(WTERMSIG(status)) + ")";
    } else {
      how = "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    pid_ = -1, to_ = from_ = -1;
    std::string log = stderrTail();
    return log.empty() ? how : how + "; its standard error ends with:\n" + log;
  }

  std::string killAndDescribe() {
    kill(pid_, SIGKILL);
    return describeEnd();
  }

  void stop() {
    if (pid_ > 0)
      describeEnd();
  }

  /// The last 3000 bytes the runner wrote to standard error.
  std::string stderrTail() const {
    std::ifstream in(stderrPath_, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > 3000 ? "..." + text.substr(text.size() - 3000) : text;
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string stderrPath_;
  uint64_t generation_ = 0;
  bool announced_ = false;
  std::string command_;
};

class RemoteModule : public TestModule {
public:
  RemoteModule(std::string library, std::string source, const Module &module,
               const std::vector<std::string> &only)
      : library_(std::move(library)), source_(std::move(source)) {
    for (const auto &fn : module.functions) {
      if (!fn->isKernel ||
          (!only.empty() && std::find(only.begin(), only.end(), fn->name) == only.end()))
        continue;
      TestKernel kernel{fn->name, {}, this};
      for (const auto &arg : fn->body.args)
        kernel.params.push_back({arg->name(), arg->type()});
      kernels_.push_back(std::move(kernel));
    }
  }
  ~RemoteModule() override {
    if (loadedIn_ != 0 && loadedIn_ == Runner::get().runningGeneration()) {
      cross::Writer request;
      request.put(uint32_t(cross::kUnload));
      request.put(handle_);
      try {
        Runner::get().call(request.payload(), "the unloading of " + library_);
      } catch (const LaunchFailure &) {
        // The next launch restarts it; nothing of this module is needed then.
      }
    }
    std::remove(library_.c_str());
  }

  void launch(const TestKernel &kernel, blockc_grid grid, const std::vector<Arg> &args) const {
    std::string what = "the launch of " + describeLaunch(kernel, grid, args);
    ensureLoaded(what);
    cross::Writer request;
    request.put(uint32_t(cross::kLaunch));
    request.put(handle_);
    request.str(kernel.name);
    request.put(grid.x), request.put(grid.y), request.put(grid.z);
    request.put(uint32_t(args.size()));
    for (const Arg &a : args) {
      request.put(uint8_t(a.kind() == Arg::Kind::Buffer ? cross::kBuffer : cross::kScalar));
      request.bytes(a.data(), a.bytes());
    }
    std::string reply;
    try {
      reply = Runner::get().call(request.payload(), what);
    } catch (const LaunchFailure &e) {
      throw LaunchFailure(std::string(e.what()) + "\n" + source_);
    }
    cross::Reader in(reply);
    uint32_t tag;
    if (!in.get(tag))
      throw LaunchFailure("an empty reply to " + what);
    if (tag == cross::kFault) {
      std::string fault;
      in.str(fault);
      std::string end = Runner::get().reapAfterFault();
      throw LaunchFailure("the runner died during " + what + ": " + fault + "; the runner was " +
                          end + "\n" + source_);
    }
    int32_t status;
    std::string error;
    uint32_t buffers;
    if (!in.get(status) || !in.str(error) || !in.get(buffers))
      throw LaunchFailure("a malformed reply to " + what);
    if (status != 0)
      throw LaunchFailure(what + " failed with status " + std::to_string(status) + ": " + error);
    for (const Arg &a : args) {
      if (a.kind() != Arg::Kind::Buffer)
        continue;
      const char *data;
      uint64_t size;
      if (buffers-- == 0 || !in.bytes(data, size) || size != a.bytes())
        throw LaunchFailure("the reply to " + what + " does not carry the buffers back");
      std::memcpy(a.data(), data, size);
    }
  }

private:
  void ensureLoaded(const std::string &what) const {
    uint64_t generation = Runner::get().generation();
    if (loadedIn_ == generation)
      return;
    cross::Writer request;
    request.put(uint32_t(cross::kLoad));
    request.str(library_);
    std::string reply = Runner::get().call(request.payload(), "the loading of " + library_);
    cross::Reader in(reply);
    uint32_t ok;
    std::string error;
    if (!in.get(ok) || !in.get(handle_) || !in.str(error))
      throw LaunchFailure("a malformed reply to the loading of " + library_);
    if (!ok)
      throw LaunchFailure("the runner cannot load " + library_ + " for " + what + ": " + error);
    loadedIn_ = Runner::get().generation();
  }

  std::string library_, source_;
  mutable uint64_t loadedIn_ = 0;
  mutable uint32_t handle_ = 0;
};

std::vector<std::string> splitPath(const std::string &list) {
  std::vector<std::string> folders;
  std::stringstream s(list);
  for (std::string folder; std::getline(s, folder, ':');)
    if (!folder.empty())
      folders.push_back(folder);
  return folders;
}

/// Kernel libraries compiled for the test target, kept in
/// BLOCKC_TEST_LIBRARY_CACHE (tests/cross sets it) and shared by the runs of
/// one ISA at its several vector lengths: the code is vector-length agnostic,
/// and compiling and linking it, not QEMU, is most of such a run's time.
/// Entries are named by compileKey() and the libraries linked against, and
/// written whole (a copy renamed into place); those older than this test
/// binary were compiled by an earlier build of it and are removed.
class LibraryCache {
public:
  static const LibraryCache &get() {
    static LibraryCache cache;
    return cache;
  }

  /// Where the library of this compile is kept, or "" with no cache.
  std::string entryFor(const SourceFile &file, const CompileOptions &options) const {
    Target target;
    std::string error;
    // A compile asked to show its stages must run, cached or not.
    if (folder_.empty() || wantsDebugOutput(options) || !resolveTarget(options, target, error))
      return "";
    llvm::SHA256 hash;
    hash.update(compileKey(file, options, target.cpu + " " + target.llvmFeatures));
    for (const std::string &path : options.librarySearchPaths) {
      hash.update(llvm::StringRef("\0", 1));
      hash.update(path);
    }
    return folder_ + "/" + llvm::toHex(hash.final(), /*LowerCase=*/true) + ".so";
  }

  static bool fetch(const std::string &entry, const std::string &library) {
    std::error_code ec;
    return !entry.empty() &&
           std::filesystem::copy_file(entry, library,
                                      std::filesystem::copy_options::overwrite_existing, ec);
  }

  static void store(const std::string &library, const std::string &entry) {
    if (entry.empty())
      return;
    std::string partial = entry + ".partial." + std::to_string(getpid());
    std::error_code ec;
    if (std::filesystem::copy_file(library, partial,
                                   std::filesystem::copy_options::overwrite_existing, ec))
      std::filesystem::rename(partial, entry, ec);
    if (ec)
      std::filesystem::remove(partial, ec);
  }

private:
  LibraryCache() {
    std::string folder = envOr("BLOCKC_TEST_LIBRARY_CACHE", "");
    std::error_code ec;
    if (folder.empty() || (std::filesystem::create_directories(folder, ec), ec))
      return;
    auto built = std::filesystem::last_write_time("/proc/self/exe", ec);
    if (ec)
      return;
    for (const auto &entry : std::filesystem::directory_iterator(folder, ec)) {
      std::error_code entryError;
      if (entry.last_write_time(entryError) < built && !entryError)
        std::filesystem::remove(entry.path(), entryError);
    }
    folder_ = folder;
  }
  std::string folder_;
};

} // namespace

std::string runnerCommand() {
  return envOr("BLOCKC_TEST_RUNNER", "");
}

std::unique_ptr<TestModule> compileRemote(const std::string &source, CompileOptions options) {
  static int counter = 0;
  SourceFile file{"test.bir", source};
  options.librarySearchPaths = splitPath(envOr("BLOCKC_TEST_LIBRARY_PATH", ""));
  const std::string &folder = TempFolder::path();
  if (folder.empty()) {
    ADD_FAILURE() << "cannot create a folder for kernel libraries";
    return nullptr;
  }
  std::string library = folder + "/kernels" + std::to_string(++counter) + ".so";
  std::string cached = LibraryCache::get().entryFor(file, options);
  if (!LibraryCache::fetch(cached, library)) {
    std::string error = compileInServer(file, options, library);
    if (!error.empty()) {
      ADD_FAILURE() << "compiling for " << options.target << ": " << error << "\n" << source;
      return nullptr;
    }
    LibraryCache::store(library, cached);
  }
  DiagnosticEngine diags;
  std::unique_ptr<Module> module = parseModule(file, options.defines, diags);
  EXPECT_TRUE(module) << formatDiagnostic(diags.diagnostic(), &file);
  if (!module)
    return nullptr;
  return std::make_unique<RemoteModule>(library, source, *module, options.kernels);
}

bool launchRemote(const TestKernel &kernel, blockc_grid grid, const std::vector<Arg> &args) {
  auto *remote = dynamic_cast<const RemoteModule *>(kernel.module);
  if (!remote)
    return false;
  // Buffers are copied one by one: aliasing ones would come back apart.
  for (size_t i = 0; i < args.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const char *a = static_cast<const char *>(args[i].data()),
                 *b = static_cast<const char *>(args[j].data());
      if (args[i].kind() == Arg::Kind::Buffer && args[j].kind() == Arg::Kind::Buffer &&
          args[i].bytes() && args[j].bytes() && a < b + args[j].bytes() && b < a + args[i].bytes())
        throw LaunchFailure("arguments " + std::to_string(j) + " and " + std::to_string(i) +
                            " of kernel @" + kernel.name +
                            " overlap; a remote launch copies each buffer on its own");
    }
  remote->launch(kernel, grid, args);
  return true;
}

} // namespace blockc::test

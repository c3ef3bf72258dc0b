//===- CompileServer.cpp - Kernel libraries compiled in a long-lived child ===//
//
// Requests and replies are frames of tests/cross/Protocol.h over two pipes:
//
//   request                                      reply
//   u32 kCompile, string file name, string      u32 ok, string diagnostic
//   source, string library, options
//   (CompileOptions field by field), string
//   compileKey() of the options as sent
//   u32 kAbortForTest                           none: the server aborts
//
// The server recomputes compileKey() from the options it decoded and refuses a
// request whose key differs: an option added to CompileOptions, and to the
// key as every option that changes code must be, but not to this encoding
// fails its compile instead of compiling something else.
//
//===----------------------------------------------------------------------===//
#include "CompileServer.h"

#include "../cross/Protocol.h"
#include "blockc/targets/IsaLowerings.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace blockc::test {

namespace {

/// Moves `size` bytes through `io` (read or write), again where a signal
/// interrupted it; false when the other end is gone.
template <typename IO> bool transferAll(IO io, int fd, char *data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t n = io(fd, data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

bool writeFrame(int fd, const std::string &payload) {
  uint64_t size = payload.size();
  std::string frame(reinterpret_cast<const char *>(&size), sizeof size);
  frame += payload;
  return transferAll(::write, fd, frame.data(), frame.size());
}

bool readFrame(int fd, std::string &payload) {
  uint64_t size = 0;
  if (!transferAll(::read, fd, reinterpret_cast<char *>(&size), sizeof size) ||
      size > cross::kMaxFrameBytes)
    return false;
  payload.resize(size);
  return transferAll(::read, fd, payload.data(), size);
}

void putStrings(cross::Writer &out, const std::vector<std::string> &strings) {
  out.put(uint64_t(strings.size()));
  for (const std::string &s : strings)
    out.str(s);
}

bool getStrings(cross::Reader &in, std::vector<std::string> &strings) {
  uint64_t count = 0;
  if (!in.get(count))
    return false;
  strings.resize(std::min<uint64_t>(count, 1 << 16));
  for (std::string &s : strings)
    if (!in.str(s))
      return false;
  return count == strings.size();
}

void putOptions(cross::Writer &out, const CompileOptions &options) {
  out.str(options.target);
  out.str(options.features);
  out.put(uint64_t(options.defines.size()));
  for (const auto &[name, value] : options.defines)
    out.str(name), out.str(value);
  out.put(uint8_t(options.fastMath)), out.put(uint8_t(options.sleefMath));
  putStrings(out, options.printAfter);
  out.str(options.dumpDir);
  putStrings(out, options.kernels);
  out.put(uint8_t(options.checkBounds)), out.put(uint8_t(options.canonicalizePointers));
  out.str(options.dotStrategy);
  out.put(uint8_t(options.streamingStores));
  putStrings(out, options.librarySearchPaths);
}

bool getOptions(cross::Reader &in, CompileOptions &options) {
  uint64_t defines = 0;
  if (!in.str(options.target) || !in.str(options.features) || !in.get(defines))
    return false;
  for (uint64_t i = 0; i < defines && in.ok(); ++i) {
    std::string name, value;
    if (in.str(name) && in.str(value))
      options.defines.emplace_back(std::move(name), std::move(value));
  }
  uint8_t fastMath = 0, sleefMath = 0, checkBounds = 0, canonicalize = 0, streaming = 0;
  bool ok = in.get(fastMath) && in.get(sleefMath) && getStrings(in, options.printAfter) &&
            in.str(options.dumpDir) && getStrings(in, options.kernels) && in.get(checkBounds) &&
            in.get(canonicalize) && in.str(options.dotStrategy) && in.get(streaming) &&
            getStrings(in, options.librarySearchPaths);
  options.fastMath = fastMath, options.sleefMath = sleefMath;
  options.checkBounds = checkBounds, options.canonicalizePointers = canonicalize;
  options.streamingStores = CompileOptions::StreamingStores(streaming);
  return ok;
}

/// The key that names what a compile produces, short of the target's
/// resolution (the server resolves the same names the same way).
std::string keyOf(const SourceFile &file, const CompileOptions &options) {
  return compileKey(file, options, options.target + " " + options.features);
}

enum RequestKind : uint32_t { kCompile = 1, kAbortForTest = 2 };

[[noreturn]] void serve(int requests, int replies) {
  registerIsaLowerings();
  for (std::string request; readFrame(requests, request);) {
    cross::Reader in(request);
    uint32_t kind = 0;
    if (in.get(kind) && kind == kAbortForTest) {
      std::fprintf(stderr, "blockc compile server: aborting, as the test asked\n");
      std::abort();
    }
    SourceFile file;
    std::string library, key;
    CompileOptions options;
    bool decoded = kind == kCompile && in.str(file.name) && in.str(file.text) && in.str(library) &&
                   getOptions(in, options) && in.str(key) && in.atEnd();
    cross::Writer reply;
    if (!decoded) {
      reply.put(uint32_t(0));
      reply.str("the compile server could not decode its request");
    } else if (keyOf(file, options) != key) {
      reply.put(uint32_t(0));
      reply.str("the compile server decoded other options than were sent: an option of "
                "CompileOptions is missing from tests/codegen/CompileServer.cpp's encoding");
    } else {
      DiagnosticEngine diags;
      bool ok = compileToFile(file, options, EmitKind::SharedLibrary, library, diags);
      reply.put(uint32_t(ok));
      reply.str(ok ? "" : formatDiagnostic(diags.diagnostic(), &file));
    }
    if (!writeFrame(replies, reply.payload()))
      break;
  }
  _exit(0);
}

class Server {
public:
  static Server &get() {
    static Server server;
    return server;
  }
  ~Server() { stop(); }

  std::string compile(const SourceFile &file, const CompileOptions &options,
                      const std::string &library) {
    cross::Writer request;
    request.put(uint32_t(kCompile));
    request.str(file.name);
    request.str(file.text);
    request.str(library);
    putOptions(request, options);
    request.str(keyOf(file, options));
    std::string reply;
    std::streamoff logStart = 0;
    if (std::string failure = call(request.payload(), reply, logStart); !failure.empty())
      return failure;
    cross::Reader in(reply);
    uint32_t ok = 0;
    std::string diagnostic;
    if (!in.get(ok) || !in.str(diagnostic))
      return "a malformed reply from the compile server";
    if (ok)
      return "";
    std::string messages = logSince(logStart) + diagnostic;
    return messages.empty() ? "the compiler failed without a message" : messages;
  }

  std::string crashForTest() {
    cross::Writer request;
    request.put(uint32_t(kAbortForTest));
    std::string reply;
    std::streamoff logStart = 0;
    std::string failure = call(request.payload(), reply, logStart);
    return failure.empty() ? "the compile server answered a request to abort" : failure;
  }

private:
  /// Sends `request` and reads the reply; on failure, says how the server died.
  std::string call(const std::string &request, std::string &reply, std::streamoff &logStart) {
    // One that died between requests (killed from outside) is simply replaced.
    if (pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == pid_)
      closePipes();
    if (pid_ <= 0 && !start())
      return "cannot start the compile server: " + std::string(strerror(errno));
    logStart = logSize();
    if (!writeFrame(to_, request) || !readFrame(from_, reply))
      return describeDeath(logStart);
    return "";
  }

  bool start() {
    std::signal(SIGPIPE, SIG_IGN); // a dead server is a failed compile, not our death
    int requests[2], replies[2];
    if (pipe2(requests, O_CLOEXEC) != 0)
      return false;
    if (pipe2(replies, O_CLOEXEC) != 0) {
      close(requests[0]), close(requests[1]);
      return false;
    }
    removeLog();
    std::string pattern =
        (std::filesystem::temp_directory_path() / "blockc-compile-server-XXXXXX").string();
    int log = mkostemp(pattern.data(), O_CLOEXEC);
    if (log >= 0)
      logPath_ = pattern;
    pid_t pid = fork();
    if (pid == 0) {
      if (log >= 0)
        dup2(log, 2);
      // Nothing else of the test process stays open here: holding a runner's
      // input would keep it from ever seeing that input end.
      auto [low, high] = std::minmax(requests[0], replies[1]);
      close_range(3, unsigned(low) - 1, 0);
      close_range(unsigned(low) + 1, unsigned(high) - 1, 0);
      close_range(unsigned(high) + 1, ~0U, 0);
      serve(requests[0], replies[1]);
    }
    if (log >= 0)
      close(log);
    close(requests[0]), close(replies[1]);
    if (pid < 0) {
      close(requests[1]), close(replies[0]);
      return false;
    }
    pid_ = pid, to_ = requests[1], from_ = replies[0];
    return true;
  }

  std::streamoff logSize() const {
    std::ifstream in(logPath_, std::ios::binary | std::ios::ate);
    return in ? std::streamoff(in.tellg()) : 0;
  }

  /// What the server wrote to standard error from `start` on, at most 4000 bytes
  /// (LLVM's stack dump follows its message).
  std::string logSince(std::streamoff start) const {
    std::ifstream in(logPath_, std::ios::binary);
    in.seekg(start);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > 4000 ? text.substr(0, 4000) + "...\n" : text;
  }

  std::string describeDeath(std::streamoff logStart) {
    close(to_), close(from_);
    to_ = from_ = -1;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (logPath_.empty())
      return "the compile server's standard error could not be kept";
    std::string messages = logSince(logStart);
    std::string how =
        WIFSIGNALED(status)
            ? "the compiler crashed (signal " + std::to_string(WTERMSIG(status)) + ", " +
                  strsignal(WTERMSIG(status)) + ")"
            : "the compiler exited with status " + std::to_string(WEXITSTATUS(status));
    return messages.empty() ? how + " without a message" : how + ":\n" + messages;
  }

  /// After the server was reaped elsewhere.
  void closePipes() {
    close(to_), close(from_);
    to_ = from_ = -1;
    pid_ = -1;
  }

  void stop() {
    if (pid_ > 0) {
      close(to_), close(from_); // the server exits at the end of its requests
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    removeLog();
  }

  void removeLog() {
    if (!logPath_.empty())
      std::remove(logPath_.c_str());
    logPath_.clear();
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string logPath_;
};

} // namespace

std::string compileInServer(const SourceFile &file, const CompileOptions &options,
                            const std::string &library) {
  return Server::get().compile(file, options, library);
}

std::string crashCompileServerForTest() {
  return Server::get().crashForTest();
}

} // namespace blockc::test

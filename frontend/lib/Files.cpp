//===- Files.cpp ----------------------------------------------------------===//
#include "blockc/frontend/Files.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace blockc {

namespace {

std::string quoted(const std::string &path) {
  return "'" + path + "'";
}

std::string systemError(const std::string &what, const std::string &path) {
  return "cannot " + what + " " + quoted(path) + ": " + std::strerror(errno);
}

/// What a file that is neither regular nor a pipe is, for the error message.
const char *describeFileType(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISFIFO(mode))
    return "a pipe";
  return "not a regular file";
}

std::string sizeLimitText(uint64_t bytes) {
  if (bytes % (1 << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// Pipes have no size to check up front, so the read itself stops one byte
/// past the limit.
bool readAll(int fd, const std::string &name, uint64_t maxBytes, std::string &contents,
             std::string &error) {
  contents.clear();
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = systemError("read", name);
      return false;
    }
    if (n == 0)
      return true;
    if (contents.size() + uint64_t(n) > maxBytes) {
      error = quoted(name) + " is larger than the " + sizeLimitText(maxBytes) +
              " limit on input files (docs/reference.md, \"Files\")";
      return false;
    }
    contents.append(buffer, size_t(n));
  }
}

bool checkStat(const struct stat &info, const std::string &path, uint64_t maxBytes,
               bool pipesAllowed, std::string &error) {
  if (!S_ISREG(info.st_mode) && !(pipesAllowed && S_ISFIFO(info.st_mode))) {
    error = quoted(path) + " is " + describeFileType(info.st_mode) + ", not a file blockc can read";
    return false;
  }
  if (S_ISREG(info.st_mode) && uint64_t(info.st_size) > maxBytes) {
    error = quoted(path) + " is larger than the " + sizeLimitText(maxBytes) +
            " limit on input files (docs/reference.md, \"Files\")";
    return false;
  }
  return true;
}

bool writeAll(int fd, const std::vector<std::string_view> &pieces, const std::string &name,
              std::string &error) {
  for (std::string_view piece : pieces) {
    const char *data = piece.data();
    size_t left = piece.size();
    while (left > 0) {
      ssize_t n = ::write(fd, data, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        if (n == 0)
          errno = EIO;
        error = systemError("write", name);
        return false;
      }
      data += n;
      left -= size_t(n);
    }
  }
  return true;
}

/// Writes through an existing non-regular file (a device, FIFO or socket is
/// never replaced: `--output=@/dev/null` must not turn /dev/null into a file).
bool writeThrough(const std::string &path, const std::vector<std::string_view> &pieces,
                  std::string &error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    error = systemError("open", path);
    return false;
  }
  bool ok = writeAll(fd, pieces, path, error);
  if (::close(fd) != 0 && ok) {
    error = systemError("write", path);
    ok = false;
  }
  return ok;
}

/// The file a path names after following every symbolic link, or the path
/// itself when it is not a link or names nothing yet.
std::string resolveLinks(const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
    return path;
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved))
    return resolved;
  // A dangling link: the write creates the file it names, as any writer would.
  return path;
}

bool replaceAtomically(const std::string &path, const std::vector<std::string_view> &pieces,
                       mode_t mode, std::string &error) {
  size_t slash = path.rfind('/');
  std::string folder = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temporary = folder + (slash == std::string::npos ? "/." : ".") + base + ".XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    error = "cannot create a temporary file beside " + quoted(path) + ": " + std::strerror(errno);
    return false;
  }
  // mkstemp makes the file 0600; the output keeps the mode it had, or gets
  // the one any new file gets.
  bool ok = ::fchmod(fd, mode) == 0 || (error = systemError("set the mode of", temporary), false);
  ok = ok && writeAll(fd, pieces, path, error);
  // Some file systems report a full disk only when the file is closed.
  if (::close(fd) != 0 && ok) {
    error = systemError("write", path);
    ok = false;
  }
  if (ok && ::rename(temporary.c_str(), path.c_str()) != 0) {
    error = systemError("replace", path);
    ok = false;
  }
  if (!ok)
    ::unlink(temporary.c_str());
  return ok;
}

mode_t modeForNewFiles() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

} // namespace

bool checkInputFile(const std::string &path, uint64_t maxBytes, std::string &error,
                    bool pipesAllowed) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    error = systemError("open", path);
    return false;
  }
  return checkStat(info, path, maxBytes, pipesAllowed, error);
}

bool readInputFile(const std::string &path, uint64_t maxBytes, std::string &contents,
                   std::string &error) {
  if (path == "-")
    return readAll(STDIN_FILENO, "<stdin>", maxBytes, contents, error);
  // Checked before opening, so that opening a device has no side effect, and
  // again on the open descriptor, which is what is read.
  if (!checkInputFile(path, maxBytes, error))
    return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    error = systemError("open", path);
    return false;
  }
  struct stat info;
  bool ok = ::fstat(fd, &info) == 0 ? checkStat(info, path, maxBytes, true, error)
                                    : (error = systemError("read", path), false);
  ok = ok && readAll(fd, path, maxBytes, contents, error);
  ::close(fd);
  return ok;
}

bool writeOutputFile(const std::string &path, const std::vector<std::string_view> &pieces,
                     std::string &error) {
  if (path == "-")
    return writeAll(STDOUT_FILENO, pieces, "standard output", error);
  std::string target = resolveLinks(path);
  struct stat info;
  if (::stat(target.c_str(), &info) != 0) {
    if (errno != ENOENT) {
      error = systemError("write", path);
      return false;
    }
    return replaceAtomically(target, pieces, modeForNewFiles(), error);
  }
  if (S_ISDIR(info.st_mode)) {
    error = "cannot write " + quoted(path) + ": it is a directory";
    return false;
  }
  if (!S_ISREG(info.st_mode))
    return writeThrough(target, pieces, error);
  return replaceAtomically(target, pieces, info.st_mode & 07777, error);
}

} // namespace blockc

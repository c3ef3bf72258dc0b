//===- Runner.cpp - Launches kernel libraries for a test process ----------===//
//
// The other half of the codegen tests' remote backend (tests/codegen/
// RemoteBackend.cpp): a persistent server, cross-compiled for riscv64 and
// aarch64 and run under QEMU user mode, that loads kernel shared libraries
// and launches their kernels with the blockc runtime, answering the requests
// of tests/cross/Protocol.h on its standard input and output.
//
// Every buffer of a launch is placed so that its last byte is immediately
// followed by a PROT_NONE page, with another one right before its first byte:
// a kernel that reads or writes one element outside its masks faults. The
// fault handler tells the test process which argument the address belongs to
// before the runner dies of the signal.
//
// It needs only the C++17 standard library, OpenMP and the blockc runtime;
// never LLVM or GoogleTest.
//
//===----------------------------------------------------------------------===//
#include "Protocol.h"
#include "blockc/runtime.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

using namespace blockc::cross;

namespace {

[[noreturn]] void die(const char *what) {
  std::fprintf(stderr, "blockc-runner: %s\n", what);
  std::exit(3);
}

/// Reads exactly `size` bytes; false only when the input ends before the
/// first byte (and `atStart` says that is allowed).
bool readExact(void *data, size_t size, bool atStart) {
  char *at = static_cast<char *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(0, at + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0 && done == 0 && atStart)
      return false;
    if (n <= 0)
      die("the test process closed the pipe in the middle of a request");
    done += size_t(n);
  }
  return true;
}

void writeExact(const void *data, size_t size) {
  const char *at = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = write(1, at, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      std::exit(4); // the test process is gone
    at += n, size -= size_t(n);
  }
}

void sendFrame(const std::string &payload) {
  uint64_t size = payload.size();
  writeExact(&size, sizeof size);
  writeExact(payload.data(), payload.size());
}

// --- Guarded buffers and the fault report ------------------------------------

/// One buffer argument: `data` is `bytes` long and ends where the trailing
/// guard page begins; the mapping starts with the leading guard page.
struct Placement {
  char *map = nullptr;
  size_t mapBytes = 0;
  char *data = nullptr;
  uint64_t bytes = 0;
  int argument = 0;
};

// What the fault handler reads: the launch in progress.
constexpr int kMaxArgs = 256;
Placement gPlacements[kMaxArgs];
volatile int gNumPlacements = 0;
char gKernel[256] = "";
const char *gLibraryBase = nullptr;
std::atomic<bool> gFaulted{false};

/// An async-signal-safe formatter for the handler: fixed buffer, no locale.
struct Text {
  char buf[2048];
  size_t len = 0;
  void add(const char *s) {
    while (*s && len + 1 < sizeof buf)
      buf[len++] = *s++;
  }
  void dec(uint64_t v) {
    char digits[24];
    int n = 0;
    do
      digits[n++] = char('0' + v % 10);
    while (v /= 10);
    while (n > 0 && len + 1 < sizeof buf)
      buf[len++] = digits[--n];
  }
  void hex(uint64_t v) {
    add("0x");
    char digits[20];
    int n = 0;
    do
      digits[n++] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    while (n > 0 && len + 1 < sizeof buf)
      buf[len++] = digits[--n];
  }
};

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  default:
    return "a signal";
  }
}

uint64_t programCounter(void *context) {
  auto *uc = static_cast<ucontext_t *>(context);
#if defined(__riscv)
  return uc->uc_mcontext.__gregs[REG_PC];
#elif defined(__aarch64__)
  return uc->uc_mcontext.pc;
#elif defined(__x86_64__)
  return uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
#else
  (void)uc;
  return 0;
#endif
}

/// Where `address` lies relative to the launch's buffers.
void describeAddress(Text &t, const char *address) {
  for (int i = 0; i < gNumPlacements; ++i) {
    const Placement &p = gPlacements[i];
    if (address < p.map || address >= p.map + p.mapBytes)
      continue;
    t.add(", ");
    if (address >= p.data + p.bytes) {
      t.dec(uint64_t(address - (p.data + p.bytes)));
      t.add(" bytes past the end of argument ");
    } else if (address < p.data) {
      t.dec(uint64_t(p.data - address));
      t.add(" bytes before the start of argument ");
    } else {
      t.add(" inside argument ");
    }
    t.dec(uint64_t(p.argument));
    t.add(" (a buffer of ");
    t.dec(p.bytes);
    t.add(" bytes)");
    return;
  }
  t.add(", in none of the launch's buffers or their guard pages");
}

void onFault(int sig, siginfo_t *info, void *context) {
  if (gFaulted.exchange(true)) {
    for (;;) // another thread is reporting; the process dies with it
      pause();
  }
  Text t;
  t.add(signalName(sig));
  t.add(" in kernel ");
  t.add(gKernel);
  t.add(": ");
  if (sig == SIGSEGV || sig == SIGBUS) {
    t.add("access to ");
    t.hex(uint64_t(reinterpret_cast<uintptr_t>(info->si_addr)));
    describeAddress(t, static_cast<const char *>(info->si_addr));
  } else {
    t.add(sig == SIGILL ? "illegal instruction" : "arithmetic exception");
  }
  uint64_t pc = programCounter(context);
  t.add("; pc ");
  t.hex(pc);
  if (gLibraryBase && pc >= uint64_t(reinterpret_cast<uintptr_t>(gLibraryBase))) {
    t.add(" (kernel library + ");
    t.hex(pc - uint64_t(reinterpret_cast<uintptr_t>(gLibraryBase)));
    t.add(")");
  }
  // One kFault frame: u64 length, u32 tag, u64 text length, text.
  char frame[sizeof t.buf + 32];
  uint32_t tag = kFault;
  uint64_t textLen = t.len, payload = sizeof tag + sizeof textLen + textLen;
  size_t at = 0;
  std::memcpy(frame + at, &payload, sizeof payload), at += sizeof payload;
  std::memcpy(frame + at, &tag, sizeof tag), at += sizeof tag;
  std::memcpy(frame + at, &textLen, sizeof textLen), at += sizeof textLen;
  std::memcpy(frame + at, t.buf, t.len), at += t.len;
  for (size_t done = 0; done < at;) {
    ssize_t n = write(1, frame + done, at - done);
    if (n <= 0)
      break;
    done += size_t(n);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void installFaultHandlers() {
  // The handler runs on its own stack: a kernel that overflows its stack
  // still gets reported.
  static char altStack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altStack;
  ss.ss_size = sizeof altStack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = onFault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE})
    sigaction(sig, &sa, nullptr);
}

/// Maps `bytes` between two PROT_NONE pages, ending right at the second.
bool place(Placement &p, uint64_t bytes) {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t usable = (bytes + page - 1) / page * page;
  p.mapBytes = usable + 2 * page;
  void *map = mmap(nullptr, p.mapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return false;
  p.map = static_cast<char *>(map);
  if (mprotect(p.map, page, PROT_NONE) != 0 ||
      mprotect(p.map + page + usable, page, PROT_NONE) != 0)
    return false;
  p.data = p.map + page + usable - bytes;
  p.bytes = bytes;
  return true;
}

// --- Requests ----------------------------------------------------------------

std::string vectorRegisters() {
#if defined(__riscv)
  uint64_t vlenb = 0;
  asm volatile("csrr %0, 0xc22" : "=r"(vlenb)); // vlenb: needs the V extension
  return "riscv64, vector registers of " + std::to_string(vlenb * 8) + " bits";
#elif defined(__aarch64__)
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif
  int vl = prctl(PR_SVE_GET_VL);
  if (vl < 0)
    return "aarch64, vector registers of 128 bits (no SVE)";
  return "aarch64, vector registers of " + std::to_string((vl & 0xffff) * 8) + " bits";
#elif defined(__x86_64__)
  return "x86_64, vector registers of 0 bits (not reported)";
#else
  return "unknown";
#endif
}

std::vector<void *> gLibraries; // by handle; null once unloaded

std::string load(Reader &in) {
  std::string path;
  Writer out;
  if (!in.str(path) || !in.atEnd())
    die("malformed load request");
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  out.put(uint32_t(library != nullptr));
  out.put(uint32_t(gLibraries.size()));
  out.str(library ? std::string() : std::string(dlerror()));
  if (library)
    gLibraries.push_back(library);
  return out.payload();
}

std::string unload(Reader &in) {
  uint32_t handle;
  if (!in.get(handle) || !in.atEnd())
    die("malformed unload request");
  Writer out;
  bool ok = handle < gLibraries.size() && gLibraries[handle];
  if (ok) {
    dlclose(gLibraries[handle]);
    gLibraries[handle] = nullptr;
  }
  out.put(uint32_t(ok));
  return out.payload();
}

std::string launch(Reader &in) {
  uint32_t handle, count;
  std::string name;
  blockc_grid grid;
  if (!in.get(handle) || !in.str(name) || !in.get(grid.x) || !in.get(grid.y) || !in.get(grid.z) ||
      !in.get(count) || count > kMaxArgs)
    die("malformed launch request");
  Writer out;
  auto fail = [&](const std::string &error) {
    out.put(uint32_t(kDone));
    out.put(int32_t(-1));
    out.str(error);
    out.put(uint32_t(0));
    return out.payload();
  };
  if (handle >= gLibraries.size() || !gLibraries[handle])
    return fail("no library is loaded with handle " + std::to_string(handle));
  void *library = gLibraries[handle];
  auto kernel = reinterpret_cast<blockc_kernel_fn>(dlsym(library, name.c_str()));
  auto *scratch =
      static_cast<const uint64_t *>(dlsym(library, ("blockc_scratch_bytes_" + name).c_str()));
  auto *requirements =
      static_cast<const uint64_t *>(dlsym(library, ("blockc_core_requirements_" + name).c_str()));
  if (!kernel || !scratch || !requirements)
    return fail("the library has no kernel " + name + " with its blockc_scratch_bytes_" + name +
                " and blockc_core_requirements_" + name);

  std::vector<uint64_t> scalars(count);
  std::vector<void *> pointers(count), args(count);
  int placed = 0;
  bool mapped = true;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t kind;
    const char *data;
    uint64_t size;
    if (!in.get(kind) || !in.bytes(data, size) || (kind == kScalar && size > 8) ||
        (kind != kScalar && kind != kBuffer))
      die("malformed launch argument");
    if (kind == kScalar) {
      std::memcpy(&scalars[i], data, size);
      args[i] = &scalars[i];
      continue;
    }
    Placement &p = gPlacements[placed++];
    p.argument = int(i);
    mapped = mapped && place(p, size);
    if (mapped)
      std::memcpy(p.data, data, size);
    pointers[i] = p.data;
    args[i] = &pointers[i];
  }
  if (!in.atEnd())
    die("malformed launch request: bytes after the arguments");

  int status = -1;
  std::string error;
  if (mapped) {
    Dl_info where{};
    gLibraryBase = dladdr(reinterpret_cast<void *>(kernel), &where)
                       ? static_cast<char *>(where.dli_fbase)
                       : nullptr;
    std::snprintf(gKernel, sizeof gKernel, "%s", name.c_str());
    gNumPlacements = placed;
    blockc_launch_options options;
    blockc_launch_options_init(&options);
    const char *envError = nullptr;
    status = blockc_launch_options_from_env(&options, &envError);
    blockc_kernel_info info = BLOCKC_KERNEL_INFO(gKernel, *scratch, *requirements);
    if (status == 0)
      status = blockc_launch_kernel(kernel, args.data(), grid, &options, &info);
    error = status == 0 ? "" : blockc_last_error();
    gNumPlacements = 0;
  } else {
    error = "the runner could not map the buffers";
  }
  out.put(uint32_t(kDone));
  out.put(int32_t(status));
  out.str(error);
  out.put(uint32_t(placed));
  for (int i = 0; i < placed; ++i) {
    Placement &p = gPlacements[i];
    out.bytes(mapped ? p.data : "", mapped ? p.bytes : 0);
    if (p.map)
      munmap(p.map, p.mapBytes);
    p = Placement{};
  }
  return out.payload();
}

} // namespace

int main() {
  installFaultHandlers();
  std::string payload;
  for (;;) {
    uint64_t size;
    if (!readExact(&size, sizeof size, true))
      return 0; // the test process is done
    if (size > kMaxFrameBytes)
      die("a request longer than the protocol allows");
    payload.resize(size);
    readExact(payload.data(), size, false);
    Reader in(payload);
    uint32_t request;
    if (!in.get(request))
      die("a request without its kind");
    switch (request) {
    case kHello: {
      Writer out;
      out.str(vectorRegisters());
      sendFrame(out.payload());
      break;
    }
    case kLoad:
      sendFrame(load(in));
      break;
    case kUnload:
      sendFrame(unload(in));
      break;
    case kLaunch:
      sendFrame(launch(in));
      break;
    default:
      die("an unknown request");
    }
  }
}

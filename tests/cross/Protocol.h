//===- Protocol.h - Messages between a test process and its runner -*- C++ -*-===//
//
// The codegen tests launch kernels compiled for another ISA in a runner
// (tests/cross/Runner.cpp) that runs under QEMU user mode. The test process
// writes requests to the runner's standard input and reads one reply per
// request from its standard output. Every message is a frame: its payload's
// length as a little-endian uint64, then the payload. Payloads are fields in
// order: integers little-endian, strings and byte arrays as a uint64 length
// and the bytes. Both sides are little-endian machines (x86-64, riscv64,
// aarch64), so integers are copied as they are.
//
//   request                          reply
//   kHello                           string: "ARCH, vector registers of N bits"
//   kLoad    string path             u32 ok, u32 handle, string error
//   kUnload  u32 handle              u32 ok
//   kLaunch  u32 handle, string      u32 kDone, i32 status, string error,
//            kernel name, i64 grid     u32 buffer count, bytes per buffer
//            x y z, u32 argument       (as the kernel left them)
//            count, per argument:    or u32 kFault, string what happened
//            u8 kind, bytes            (then the runner dies of the signal)
//
// The runner exits when its input ends. Only this header is shared: it needs
// nothing but the C++17 standard library.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace blockc::cross {

enum Request : uint32_t { kHello = 1, kLoad = 2, kUnload = 3, kLaunch = 4 };
enum LaunchReply : uint32_t { kDone = 0, kFault = 1 };
enum ArgKind : uint8_t { kScalar = 0, kBuffer = 1 };

/// Appends fields to a payload.
class Writer {
public:
  template <typename T> void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char *>(&value), sizeof value);
  }
  void bytes(const void *data, uint64_t size) {
    put(size);
    out_.append(static_cast<const char *>(data), size);
  }
  void str(const std::string &s) { bytes(s.data(), s.size()); }
  const std::string &payload() const { return out_; }
  std::string &payload() { return out_; }

private:
  std::string out_;
};

/// Reads fields from a payload; every read checks the payload's length, and
/// after the first short read all reads fail.
class Reader {
public:
  Reader(const char *data, uint64_t size) : at_(data), left_(size) {}
  explicit Reader(const std::string &payload) : Reader(payload.data(), payload.size()) {}

  template <typename T> bool get(T &value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!ok_ || left_ < sizeof value)
      return ok_ = false;
    std::memcpy(&value, at_, sizeof value);
    at_ += sizeof value, left_ -= sizeof value;
    return true;
  }
  /// A byte array in place: `data` points into the payload.
  bool bytes(const char *&data, uint64_t &size) {
    if (!get(size) || left_ < size)
      return ok_ = false;
    data = at_;
    at_ += size, left_ -= size;
    return true;
  }
  bool str(std::string &s) {
    const char *data;
    uint64_t size;
    if (!bytes(data, size))
      return false;
    s.assign(data, size);
    return true;
  }
  bool ok() const { return ok_; }
  bool atEnd() const { return ok_ && left_ == 0; }

private:
  const char *at_;
  uint64_t left_;
  bool ok_ = true;
};

/// The largest frame either side accepts: a corrupt length fails cleanly
/// instead of allocating without bound.
inline constexpr uint64_t kMaxFrameBytes = uint64_t(1) << 32;

} // namespace blockc::cross

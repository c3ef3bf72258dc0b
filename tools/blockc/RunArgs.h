//===- RunArgs.h - Kernel arguments of `blockc run` ------------*- C++ -*-===//
//
// `--arg NAME=SPEC` follows IREE's run-module:
//   1048576xf32=random   a buffer of uniform values in [-1, 1) (ints: -8 to 7)
//   64x64xbf16=random:7  the same with seed 7
//   4096x4096xf32=0      a buffer filled with one number
//   4xi32=1,2,3,4        a buffer with every element listed
//   f32=1.5              a buffer of rank 0 (one element)
//   @in.npy              a buffer loaded from .npy; dtype and shape from the file
//   42, -1.5, true       a scalar, typed by the parameter it binds to
//
// Specs are parsed before the kernel is compiled, so that a typo costs no
// compile; binding them to the kernel's parameters then types the scalars,
// checks each buffer's dtype against its pointee, and allocates and fills the
// buffers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Builder.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockc::driver {

/// How a buffer's elements are set before the first launch.
enum class FillKind { Random, Value, List, File };

struct ArgSpec {
  enum class Kind { Scalar, Buffer };
  std::string name;
  Kind kind = Kind::Scalar;
  /// Scalar: the number as written, typed when bound. Buffer: the spec.
  std::string text;

  // Buffers. For a File fill, dtype and shape come from the file when bound.
  ScalarKind dtype = ScalarKind::F32;
  Shape shape;
  FillKind fill = FillKind::Value;
  uint64_t seed = 0;
  /// The encoded elements of a Value (one) or List (all) fill.
  std::vector<uint8_t> values;
  std::string path;
};

/// Parses `NAME=SPEC` (the value of one --arg).
std::optional<ArgSpec> parseArgSpec(std::string_view text, std::string &error);

/// Memory for one buffer, 64-byte aligned (a cache line, and the widest
/// vector blockc emits) and never null, even for zero elements.
class HostBuffer {
public:
  static std::optional<HostBuffer> allocate(uint64_t bytes);
  void *data() const { return data_.get(); }
  uint64_t size() const { return size_; }

private:
  struct Free {
    void operator()(void *p) const;
  };
  std::unique_ptr<void, Free> data_;
  uint64_t size_ = 0;
};

/// One parameter's value, ready for a launch.
struct BoundArg {
  std::string name;
  /// The parameter's type.
  Type type;
  bool isBuffer = false;

  HostBuffer buffer;
  ScalarKind dtype = ScalarKind::F32;
  Shape shape;
  /// The dtype an --output of this buffer is written with: a file's own for
  /// a buffer loaded from .npy, else npyDescr(dtype).
  std::string npyDescr;
  /// What the launch's args[i] points at: the buffer's address...
  void *pointer = nullptr;
  /// ...or the scalar, stored in its own width.
  alignas(8) unsigned char scalar[8] = {};
};

class KernelArgs {
public:
  explicit KernelArgs(std::vector<BoundArg> args);

  /// The `args` of blockc_launch, in parameter order.
  void **launchArgs() { return pointers_.data(); }
  const std::vector<BoundArg> &args() const { return args_; }
  const BoundArg *find(std::string_view name) const;
  /// Bytes of all buffers together: what --repeat's GB/s counts.
  uint64_t bufferBytes() const;

private:
  std::vector<BoundArg> args_;
  /// Point into args_, which is never resized; moving a KernelArgs keeps the
  /// elements where they are.
  std::vector<void *> pointers_;
};

/// Matches `specs` to the parameters of kernel `kernelName`: each parameter
/// exactly once, pointers to buffers of their pointee, scalars to numbers.
/// Allocates, fills and loads the buffers.
std::optional<KernelArgs> bindArgs(std::string_view kernelName, const std::vector<Param> &params,
                                   const std::vector<ArgSpec> &specs, std::string &error);

struct OutputSpec {
  std::string name;
  std::string path;
};

/// Parses `NAME=@FILE.npy` (the value of one --output).
std::optional<OutputSpec> parseOutputSpec(std::string_view text, std::string &error);

/// The checks that need no kernel: no argument given twice, and each output
/// names a buffer argument once.
bool checkSpecs(const std::vector<ArgSpec> &args, const std::vector<OutputSpec> &outputs,
                std::string &error);

/// Writes each output's buffer as .npy with the shape of its spec.
bool writeOutputs(const KernelArgs &args, const std::vector<OutputSpec> &outputs,
                  std::string &error);

} // namespace blockc::driver

//===- Types.h - Block IR types ---------------------------------*- C++ -*-===//
//
// A Block IR type is a scalar element (a number or a pointer to a number)
// with an optional static block shape of rank 1 to kMaxBlockRank. Rank 0 is a
// scalar.
// Types are small values compared structurally.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

/// F8E4M3 and F8E5M2 are the OCP 8-bit floats (Triton's float8e4nv and
/// float8e5): storage types, which are loaded, stored, moved and cast, but
/// computed with only after a cast to a wider float.
enum class ScalarKind : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };

/// Largest block rank and element count the language accepts. The element cap
/// keeps every block addressable with i32 lane indices and bounds the work a
/// malformed input can ask of the compiler.
/// Triton has no rank limit; kernels reshape into rank 4 and 5 to split or
/// sort along a dimension, and eight is more than any such kernel uses.
inline constexpr unsigned kMaxBlockRank = 8;
inline constexpr int64_t kMaxBlockElements = int64_t(1) << 20;

std::string_view scalarKindName(ScalarKind kind);
std::optional<ScalarKind> parseScalarKind(std::string_view name);
bool isIntegerKind(ScalarKind kind);
bool isFloatKind(ScalarKind kind);
/// Kinds with no arithmetic of their own (the 8-bit floats).
bool isStorageOnlyKind(ScalarKind kind);
unsigned bitWidth(ScalarKind kind);

using Shape = std::vector<int64_t>;

std::string formatShape(const Shape &shape);

class Type {
public:
  Type() = default;
  static Type scalar(ScalarKind kind) { return Type(kind, false, {}); }
  static Type pointer(ScalarKind pointee) { return Type(pointee, true, {}); }
  static Type block(ScalarKind kind, Shape shape) { return Type(kind, false, std::move(shape)); }
  static Type pointerBlock(ScalarKind pointee, Shape shape) {
    return Type(pointee, true, std::move(shape));
  }

  /// The element kind; for pointers, the pointee kind.
  ScalarKind kind() const { return kind_; }
  bool isPointer() const { return pointer_; }
  const Shape &shape() const { return shape_; }
  unsigned rank() const { return static_cast<unsigned>(shape_.size()); }
  bool isBlock() const { return !shape_.empty(); }
  bool isScalar() const { return shape_.empty(); }
  int64_t numElements() const;

  bool isInteger() const { return !pointer_ && isIntegerKind(kind_); }
  bool isFloat() const { return !pointer_ && isFloatKind(kind_); }
  bool isBool() const { return !pointer_ && kind_ == ScalarKind::I1; }

  /// The same element with another shape (empty: scalar).
  Type withShape(Shape shape) const { return Type(kind_, pointer_, std::move(shape)); }
  /// The element type alone: `f32` for `f32[4]`, `ptr<f32>` for `ptr<f32>[4]`.
  Type elementType() const { return Type(kind_, pointer_, {}); }
  /// A number type of the same shape.
  Type withKind(ScalarKind kind) const { return Type(kind, false, shape_); }

  bool operator==(const Type &other) const {
    return kind_ == other.kind_ && pointer_ == other.pointer_ && shape_ == other.shape_;
  }
  bool operator!=(const Type &other) const { return !(*this == other); }

  /// Text form: `f32`, `ptr<bf16>`, `f32[128, 64]`, `ptr<i8>[16]`.
  std::string str() const;

private:
  Type(ScalarKind kind, bool pointer, Shape shape)
      : kind_(kind), pointer_(pointer), shape_(std::move(shape)) {}

  ScalarKind kind_ = ScalarKind::I32;
  bool pointer_ = false;
  Shape shape_;
};

} // namespace blockc

//===- BoundsChecks.h - Every active lane checked against its buffer -*- C++ -*-===//
//
// With CompileOptions::checkBounds, each load and store first computes, for
// every active lane, the byte offset of its address from the parameter the
// pointer was derived from and compares it with that parameter's extent. A
// pointer whose origin is not one parameter (a select between two, say) must
// lie inside some parameter's buffer. The first bad lane is recorded in the
// blockc_bounds_report and the program returns before the access: the check
// turns a crash or silent corruption into an error naming the op.
//
// Without the option none of this is emitted: the generated code is the same.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "StripEmitter.h"

#include <functional>
#include <unordered_map>
#include <vector>

namespace blockc {

class BoundsChecks {
public:
  explicit BoundsChecks(StripEmitter &strips) : strips_(strips) {}

  /// At the kernel's entry: finds the parameter each pointer value of `fn`
  /// derives from, loads the extents and the report from the argument array
  /// `args` after the parameters, and returns early when another program
  /// already failed. `params` are the parameters' values, `programIds` the
  /// program's coordinates, which a report records.
  void begin(const Function &fn, llvm::Value *args, llvm::ArrayRef<llvm::Value *> params,
             llvm::ArrayRef<llvm::Value *> programIds);
  /// Before `op` touches `pointers` (scalar or strip) under `mask` (null: all
  /// lanes): records the first lane outside its argument and returns.
  void check(const Operation &op, llvm::Value *pointers, llvm::Value *mask);
  /// `assert`: where `condition` (scalar or strip) is false in an active
  /// lane, records the op and returns.
  void failUnless(const Operation &op, llvm::Value *condition);

private:
  /// What a report says failed: blockc_bounds_report's `is_store` field.
  enum FailureKind { kLoadFailed = 0, kWriteFailed = 1, kAssertFailed = 2 };
  struct Failure {
    FailureKind kind;
    int argument;
    llvm::Value *offset; ///< i64, in elements
    llvm::Value *extent; ///< i64, in elements
  };
  /// Where `failed` (i1), the first program to get there records the
  /// failure `describe` builds (in the failing branch) and every one returns.
  void reportIf(const Operation &op, llvm::Value *failed, const std::function<Failure()> &describe);

  struct CheckedParam {
    llvm::Value *base;
    int index;
    llvm::Value *extent;
  };
  StripEmitter &strips_;
  /// The parameter each pointer value derives from (-1: several or unknown).
  std::unordered_map<const Value *, int> pointerOrigin_;
  std::vector<CheckedParam> checkedParams_;
  llvm::Value *report_ = nullptr;
  llvm::SmallVector<llvm::Value *, 3> programIds_;
};

} // namespace blockc

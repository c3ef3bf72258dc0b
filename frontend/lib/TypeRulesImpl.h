//===- TypeRulesImpl.h - TypeRules' helpers, shared by its files -*- C++ -*-===//
//
// TypeRules.cpp holds the public rules and the dispatch over op classes, and
// the rules of elementwise and shape ops; TypeRulesOps.cpp those of memory,
// atomics, reductions, dots, calls and control flow. Nothing outside
// frontend/lib includes this.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/TypeRules.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace blockc::typerules {

using Types = std::vector<Type>;
using Predicate = bool (*)(const Type &);

TypeError opError(std::string message);
TypeError operandError(int index, std::string message);
std::string quote(const Type &t);
std::optional<TypeError> expectOperands(const Operation &op, size_t n);
std::optional<TypeError> broadcastOperands(const Operation &op, std::initializer_list<int> indices,
                                           Shape &shape);
std::optional<TypeError> sameElement(const Operation &op, int a, int b);
bool isNumber(const Type &t);
bool isIntegerType(const Type &t);
bool isShiftable(const Type &t);
bool isFloatType(const Type &t);
std::optional<TypeError> requireKind(const Operation &op, int i, Predicate ok, const char *what);
std::optional<TypeError> inferElementwise(const Operation &op, size_t arity, Predicate ok,
                                          const char *what, Types &results);
std::optional<TypeError> checkAxis(const Operation &op, int64_t limit);

// TypeRulesOps.cpp
std::optional<TypeError> inferCast(const Operation &op, Types &results);
std::optional<TypeError> inferLoad(const Operation &op, Types &results);
std::optional<TypeError> inferStore(const Operation &op);
std::optional<TypeError> inferAtomic(const Operation &op, Types &results);
std::optional<TypeError> inferReduce(const Operation &op, Types &results);
std::optional<TypeError> inferCombining(const Operation &op, Types &results);
std::optional<TypeError> inferDot(const Operation &op, Types &results);
std::optional<TypeError> inferCall(const Operation &op, const Module &module, Types &results);
std::optional<TypeError> inferFor(const Operation &op, Types &results);
std::optional<TypeError> inferWhile(const Operation &op, Types &results);
std::optional<TypeError> inferIf(const Operation &op, Types &results);

} // namespace blockc::typerules

//===- CodeGenGroups.cpp - One strip loop for several consumers -----------===//
//
// A strip group's loop evaluates, in each strip, every sink's operands first
// (the per-strip memo makes a value they share one computation) and only then
// writes: stores, reduction accumulators, scratch buffers and carried values
// updated in place. Rows of a multi-dimensional group are walked as in
// forEachStrip, with reductions folded at the end of each row.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include <algorithm>
#include <memory>

namespace blockc {

void KernelCodeGen::emitStripGroup(const StripGroup &group) {
  struct SinkState {
    llvm::Value *buffer = nullptr;
    std::unique_ptr<Reduction> reduction;
  };
  /// What a strip of a sink computed, until it is written.
  struct SinkStrip {
    StoreStrip store;
    llvm::Value *value = nullptr;
  };
  std::vector<SinkState> states(group.sinks.size());
  for (size_t i = 0; i < group.sinks.size(); ++i) {
    const StripSink &sink = group.sinks[i];
    SinkState &state = states[i];
    switch (sink.kind) {
    case StripSink::Kind::Store:
      break;
    case StripSink::Kind::Reduce:
      state.reduction = std::make_unique<Reduction>(*this, *sink.op);
      if (sink.op->result()->type().isBlock())
        state.buffer = allocaBuffer(sink.op->result()->type(), sink.op->result()->name());
      break;
    case StripSink::Kind::Materialize:
      state.buffer = allocaBuffer(sink.op->result()->type(), sink.op->result()->name());
      break;
    case StripSink::Kind::Carried:
      state.buffer = buffers_.at(sink.carried);
      break;
    }
  }

  const Shape &shape = group.shape;
  // Reductions take several accumulators, and with them the whole loop.
  unsigned ways = 0;
  for (SinkState &state : states)
    if (state.reduction)
      ways = ways ? std::min(ways, state.reduction->maxWays()) : state.reduction->maxWays();
  // Each sink's strip is evaluated once per way: math in any of them caps them.
  auto sinkComputesMath = [&](const StripSink &sink) {
    switch (sink.kind) {
    case StripSink::Kind::Store:
      return evaluatesMath(sink.op->operands[1]);
    case StripSink::Kind::Carried:
      return evaluatesMath(sink.op->operands[sink.carriedIndex]);
    case StripSink::Kind::Reduce:
      return evaluatesMath(sink.op->operands[0]);
    case StripSink::Kind::Materialize:
      return sink.op->opClass() == OpClass::FloatUnary ||
             sink.op->opClass() == OpClass::FloatBinary ||
             std::any_of(sink.op->operands.begin(), sink.op->operands.end(),
                         [&](const Value *operand) { return evaluatesMath(operand); });
    }
    return false;
  };
  bool computesMath = std::any_of(group.sinks.begin(), group.sinks.end(), sinkComputesMath);
  // The group's stores wait through all of its strip's work, math included.
  std::vector<bool> storesMayStream;
  for (const StripSink &sink : group.sinks)
    storesMayStream.push_back(sink.kind == StripSink::Kind::Store &&
                              storeMayStream(*sink.op, computesMath));
  // An in-order core overlaps only what one trip holds: a group of stores
  // takes independent strips too.
  if (!ways)
    ways = storeStripWays(computesMath);
  if (computesMath)
    ways = std::min(ways, mathStripWays());
  ways = waysFor(shape.back(), std::max(ways, 1u));
  std::vector<const Value *> read;
  for (const StripSink &sink : group.sinks)
    read.insert(read.end(), sink.op->operands.begin(), sink.op->operands.end());
  std::vector<NextProgramFetch> fetches = planNextProgramFetches(read, shape);
  auto perRow = [&](const Coords &rowCoords) {
    for (SinkState &state : states)
      if (state.reduction)
        state.reduction->beginRow(shape.back(), ways);
    // Each way's strip is evaluated before any is written (forEachStripOfRow).
    std::vector<std::vector<SinkStrip>> strips(ways, std::vector<SinkStrip>(group.sinks.size()));
    auto evaluate = [&](llvm::Value *column, bool vector, unsigned way) {
      Coords coords = rowCoords;
      coords.push_back(column);
      fetchForNextProgram(fetches, coords, vector);
      for (size_t i = 0; i < group.sinks.size(); ++i) {
        const StripSink &sink = group.sinks[i];
        SinkStrip &strip = strips[way][i];
        switch (sink.kind) {
        case StripSink::Kind::Store:
          strip.store = prepareStoreStrip(*sink.op, coords, vector, storesMayStream[i]);
          break;
        case StripSink::Kind::Reduce:
          strip.value = states[i].reduction->prepareStrip(coords, vector);
          break;
        case StripSink::Kind::Materialize:
          strip.value = eval(sink.op->result(), coords, vector);
          break;
        case StripSink::Kind::Carried:
          strip.value = eval(sink.op->operands[sink.carriedIndex], coords, vector);
          break;
        }
      }
    };
    auto commit = [&](llvm::Value *column, bool vector, unsigned way) {
      Coords coords = rowCoords;
      coords.push_back(column);
      for (size_t i = 0; i < group.sinks.size(); ++i) {
        const StripSink &sink = group.sinks[i];
        SinkState &state = states[i];
        const SinkStrip &strip = strips[way][i];
        switch (sink.kind) {
        case StripSink::Kind::Store:
          commitStoreStrip(*sink.op, strip.store);
          break;
        case StripSink::Kind::Reduce:
          state.reduction->accumulateStrip(strip.value, column, vector, way);
          break;
        case StripSink::Kind::Materialize:
          storeBuffer(state.buffer, sink.op->result()->type(), coords, strip.value, vector);
          break;
        case StripSink::Kind::Carried:
          storeBuffer(state.buffer, sink.carried->type(), coords, strip.value, vector);
          break;
        }
      }
    };
    forEachStripOfRow(shape.back(), ways, evaluate, commit);
    for (size_t i = 0; i < group.sinks.size(); ++i)
      if (states[i].reduction)
        states[i].reduction->finishRow(rowCoords, states[i].buffer);
  };
  Shape outer(shape.begin(), shape.end() - 1);
  std::vector<const Value *> masks, scalarResults;
  std::unordered_set<const Value *> seen;
  for (const StripSink &sink : group.sinks) {
    switch (sink.kind) {
    case StripSink::Kind::Store:
      collectAccessMasks(*sink.op, masks, seen);
      break;
    case StripSink::Kind::Reduce:
      collectAccessMasks(sink.op->operands[0], masks, seen);
      if (sink.op->result()->type().isScalar())
        scalarResults.push_back(sink.op->result());
      break;
    case StripSink::Kind::Materialize:
      collectAccessMasks(*sink.op, masks, seen);
      break;
    case StripSink::Kind::Carried:
      collectAccessMasks(sink.op->operands[sink.carriedIndex], masks, seen);
      break;
    }
  }
  versionOnFullMasks(masks, scalarResults, [&] {
    if (outer.empty())
      perRow({});
    else
      forEachElement(outer, perRow);
  });

  for (const StripSink &sink : group.sinks)
    noteLoadsRead(*sink.op);
  for (size_t i = 0; i < group.sinks.size(); ++i) {
    const StripSink &sink = group.sinks[i];
    if (sink.kind == StripSink::Kind::Carried)
      buffers_[sink.op->operands[sink.carriedIndex]] = states[i].buffer; // emitFor skips it
    else if (states[i].buffer)
      buffers_[sink.op->result()] = states[i].buffer;
  }
}

} // namespace blockc

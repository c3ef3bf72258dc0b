//===- Loops.cpp - Natural loops of a function's control-flow graph -------===//
#include "Loops.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace blockc::inspect {

namespace {

struct Block {
  size_t begin, end; // instruction indices [begin, end)
  std::vector<size_t> successors, predecessors;
};

std::vector<Block> basicBlocks(const std::vector<Decoded> &code) {
  std::map<uint64_t, size_t> indexOf;
  for (size_t i = 0; i < code.size(); ++i)
    indexOf[code[i].address] = i;
  std::set<size_t> leaders = {0};
  for (size_t i = 0; i < code.size(); ++i) {
    const InstructionFacts &f = code[i].facts;
    if (!f.isBranch && !f.isReturn)
      continue;
    if (i + 1 < code.size())
      leaders.insert(i + 1);
    if (code[i].target) {
      auto target = indexOf.find(*code[i].target);
      if (target != indexOf.end())
        leaders.insert(target->second);
    }
  }
  std::vector<Block> blocks;
  std::map<size_t, size_t> blockAt;
  for (auto it = leaders.begin(); it != leaders.end(); ++it) {
    auto next = std::next(it);
    blockAt[*it] = blocks.size();
    blocks.push_back({*it, next == leaders.end() ? code.size() : *next, {}, {}});
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const Decoded &last = code[blocks[b].end - 1];
    const InstructionFacts &f = last.facts;
    bool fallsThrough = f.isReturn ? false : !f.isBranch || f.isConditional;
    if (fallsThrough && b + 1 < blocks.size())
      blocks[b].successors.push_back(b + 1);
    if (f.isBranch && last.target) {
      auto target = indexOf.find(*last.target);
      if (target != indexOf.end())
        blocks[b].successors.push_back(blockAt[target->second]);
    }
  }
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t s : blocks[b].successors)
      blocks[s].predecessors.push_back(b);
  return blocks;
}

/// dominators[b] holds a if block a dominates block b; blocks the entry
/// does not reach dominate nothing and have no dominators.
std::vector<std::vector<bool>> dominators(const std::vector<Block> &blocks) {
  size_t n = blocks.size();
  std::vector<bool> reached(n, false);
  std::vector<size_t> work = {0};
  reached[0] = true;
  while (!work.empty()) {
    size_t b = work.back();
    work.pop_back();
    for (size_t s : blocks[b].successors)
      if (!reached[s]) {
        reached[s] = true;
        work.push_back(s);
      }
  }
  std::vector<std::vector<bool>> dom(n, std::vector<bool>(n, true));
  dom[0].assign(n, false);
  dom[0][0] = true;
  for (size_t b = 0; b < n; ++b)
    if (!reached[b])
      dom[b].assign(n, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 1; b < n; ++b) {
      if (!reached[b])
        continue;
      std::vector<bool> meet(n, true);
      for (size_t p : blocks[b].predecessors)
        if (reached[p])
          for (size_t a = 0; a < n; ++a)
            meet[a] = meet[a] && dom[p][a];
      meet[b] = true;
      if (meet != dom[b]) {
        dom[b] = std::move(meet);
        changed = true;
      }
    }
  }
  return dom;
}

constexpr size_t kMaxPathBlocks = 1024;

/// Up to `limit` + 1 paths through an innermost loop's `body` from `header`
/// back to it, as block lists; none if a cycle avoids the header.
std::vector<std::vector<size_t>> pathsThrough(const std::vector<Block> &blocks,
                                              const std::set<size_t> &body, size_t header,
                                              size_t limit) {
  std::vector<std::vector<size_t>> paths;
  std::vector<size_t> path;
  std::set<size_t> onPath;
  bool cyclic = false;
  std::function<void(size_t)> walk = [&](size_t b) {
    if (paths.size() > limit || cyclic)
      return;
    if (!onPath.insert(b).second) {
      cyclic = true;
      return;
    }
    path.push_back(b);
    for (size_t s : blocks[b].successors) {
      if (s == header)
        paths.push_back(path);
      else if (body.count(s))
        walk(s);
    }
    path.pop_back();
    onPath.erase(b);
  };
  walk(header);
  if (cyclic)
    return {};
  return paths;
}

std::vector<size_t> instructionsOf(const std::vector<Block> &blocks,
                                   const std::vector<size_t> &path) {
  std::vector<size_t> instructions;
  for (size_t b : path)
    for (size_t i = blocks[b].begin; i < blocks[b].end; ++i)
      instructions.push_back(i);
  return instructions;
}

} // namespace

std::vector<Loop> findLoops(const std::vector<Decoded> &code) {
  if (code.empty())
    return {};
  std::vector<Block> blocks = basicBlocks(code);
  std::vector<std::vector<bool>> dom = dominators(blocks);
  // Header block -> the blocks of its loop.
  std::map<size_t, std::set<size_t>> loops;
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t header : blocks[b].successors) {
      if (!dom[b][header])
        continue;
      std::set<size_t> &body = loops[header];
      body.insert(header);
      std::vector<size_t> work;
      if (body.insert(b).second)
        work.push_back(b);
      while (!work.empty()) {
        size_t x = work.back();
        work.pop_back();
        for (size_t p : blocks[x].predecessors)
          if (body.insert(p).second)
            work.push_back(p);
      }
    }
  std::vector<Loop> result;
  for (const auto &[header, body] : loops) {
    Loop loop;
    for (size_t b : body)
      for (size_t i = blocks[b].begin; i < blocks[b].end; ++i)
        loop.body.push_back(i);
    // The header's instructions first, then the rest in address order.
    const Block &first = blocks[header];
    std::vector<size_t> ordered;
    for (size_t i = first.begin; i < first.end; ++i)
      ordered.push_back(i);
    for (size_t i : loop.body)
      if (i < first.begin || i >= first.end)
        ordered.push_back(i);
    loop.body = std::move(ordered);
    loop.depth = 0;
    for (const auto &[otherHeader, otherBody] : loops) {
      if (otherBody.count(header))
        ++loop.depth;
      if (otherHeader != header && body.count(otherHeader))
        loop.innermost = false;
    }
    // The path walks recurse block by block: a loop of more blocks than any
    // compiler's innermost loop (a damaged object) is estimated whole, as is
    // one of more paths than are worth estimating one by one.
    if (loop.innermost && body.size() <= kMaxPathBlocks) {
      std::vector<std::vector<size_t>> paths = pathsThrough(blocks, body, header, kMaxLoopPaths);
      if (paths.size() > 1 && paths.size() <= kMaxLoopPaths)
        for (const std::vector<size_t> &path : paths)
          loop.paths.push_back(instructionsOf(blocks, path));
    }
    result.push_back(std::move(loop));
  }
  return result;
}

} // namespace blockc::inspect

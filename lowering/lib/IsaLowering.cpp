//===- IsaLowering.cpp - The registry of ISA lowerings --------------------===//
//
// Lowering asks for an IsaLowering by architecture and never learns which
// ISAs exist: the ISA layer above it fills this table.
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/IsaLowering.h"

#include <mutex>
#include <utility>
#include <vector>

namespace blockc {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::pair<Arch, IsaLoweringFactory>> factories;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

} // namespace

void registerIsaLowering(Arch arch, IsaLoweringFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &[registered, existing] : r.factories)
    if (registered == arch) {
      existing = factory;
      return;
    }
  r.factories.emplace_back(arch, factory);
}

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  Registry &r = registry();
  IsaLoweringFactory factory = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto &[registered, candidate] : r.factories)
      if (registered == target.arch)
        factory = candidate;
  }
  return factory ? factory(target) : nullptr;
}

} // namespace blockc

//===- Estimate.cpp - A loop's cycles from the CPU's scheduling model -----===//
//
// The same computation as `llvm-mca -mcpu=CPU` over the loop body, through
// its library: the body's instructions become mca::Instructions (with RVV's
// vector type as instruments, as llvm-mca's own vsetvli handling gives
// them), run for a number of iterations through the default (out-of-order)
// or in-order pipeline, and a listener adds up each unit's busy cycles.
//
//===----------------------------------------------------------------------===//
#include "Estimate.h"

#include "llvm/MCA/Context.h"
#include "llvm/MCA/CustomBehaviour.h"
#include "llvm/MCA/HWEventListener.h"
#include "llvm/MCA/InstrBuilder.h"
#include "llvm/MCA/Pipeline.h"
#include "llvm/MCA/SourceMgr.h"
#include "llvm/Support/Error.h"

#include <map>

namespace blockc::inspect {

namespace {

constexpr unsigned kIterations = 100;
/// A unit busy this share of the cycles bounds the loop (docs/inspect.md).
constexpr double kBoundShare = 0.7;
/// The latency llvm-mca gives calls (its default, -call-latency); calls are
/// left out of estimates, so it only matters to a call the analysis missed.
constexpr unsigned kCallLatency = 100;

/// Busy cycles of each unit of each processor resource.
class UnitPressure final : public llvm::mca::HWEventListener {
public:
  void onEvent(const llvm::mca::HWInstructionEvent &event) override {
    if (event.Type != llvm::mca::HWInstructionEvent::Issued)
      return;
    const auto &issued = static_cast<const llvm::mca::HWInstructionIssuedEvent &>(event);
    for (const llvm::mca::ResourceUse &use : issued.UsedResources)
      busy_[{use.first.first, use.first.second}] += double(use.second);
  }
  /// (resource index, unit mask) -> cycles.
  const std::map<std::pair<uint64_t, uint64_t>, double> &busy() const { return busy_; }

private:
  std::map<std::pair<uint64_t, uint64_t>, double> busy_;
};

} // namespace

std::optional<Estimate> estimateLoop(const Machine &machine,
                                     const std::vector<const Decoded *> &body,
                                     const llvm::MCInst *entryVtype) {
  const llvm::MCSchedModel &model = machine.subtarget->getSchedModel();
  if (!model.hasInstrSchedModel())
    return std::nullopt;
  std::unique_ptr<llvm::mca::InstrumentManager> instruments(
      machine.target->createInstrumentManager(*machine.subtarget, *machine.instructions));
  if (!instruments)
    instruments =
        std::make_unique<llvm::mca::InstrumentManager>(*machine.subtarget, *machine.instructions);
  llvm::mca::InstrBuilder builder(*machine.subtarget, *machine.instructions, *machine.registers,
                                  machine.analysis.get(), *instruments, kCallLatency);
  llvm::SmallVector<llvm::mca::UniqueInstrument> active;
  auto track = [&](const llvm::MCInst &inst) {
    llvm::SmallVector<llvm::mca::UniqueInstrument> created = instruments->createInstruments(inst);
    if (!created.empty())
      active = std::move(created);
  };
  if (entryVtype)
    track(*entryVtype);
  Estimate estimate;
  std::vector<std::unique_ptr<llvm::mca::Instruction>> lowered;
  for (const Decoded *d : body) {
    track(d->inst);
    // A call's time is its callee's: the model has none (llvm-mca assumes
    // 100 cycles and warns); it is left out and counted.
    if (d->facts.isCall) {
      ++estimate.unmodelled;
      continue;
    }
    llvm::SmallVector<llvm::mca::Instrument *> in;
    for (const auto &i : active)
      in.push_back(i.get());
    llvm::Expected<std::unique_ptr<llvm::mca::Instruction>> inst =
        builder.createInstruction(d->inst, in);
    if (!inst) {
      llvm::consumeError(inst.takeError());
      ++estimate.unmodelled;
      continue;
    }
    lowered.push_back(std::move(*inst));
  }
  if (lowered.empty())
    return std::nullopt;
  llvm::mca::CircularSourceMgr source(lowered, kIterations);
  std::unique_ptr<llvm::mca::CustomBehaviour> behaviour(
      machine.target->createCustomBehaviour(*machine.subtarget, source, *machine.instructions));
  if (!behaviour)
    behaviour = std::make_unique<llvm::mca::CustomBehaviour>(*machine.subtarget, source,
                                                             *machine.instructions);
  llvm::mca::Context context(*machine.registers, *machine.subtarget);
  llvm::mca::PipelineOptions options(0, 0, 0, 0, 0, 0, /*NoAlias=*/true);
  std::unique_ptr<llvm::mca::Pipeline> pipeline =
      model.isOutOfOrder() ? context.createDefaultPipeline(options, source, *behaviour)
                           : context.createInOrderPipeline(options, source, *behaviour);
  UnitPressure pressure;
  pipeline->addEventListener(&pressure);
  llvm::Expected<unsigned> cycles = pipeline->run();
  if (!cycles) {
    llvm::consumeError(cycles.takeError());
    return std::nullopt;
  }
  estimate.cyclesPerIteration = double(*cycles) / kIterations;
  for (const auto &[unit, busy] : pressure.busy()) {
    double perIteration = busy / kIterations;
    if (perIteration > estimate.busyCycles) {
      estimate.busyCycles = perIteration;
      estimate.busiestUnit = model.getProcResource(unsigned(unit.first))->Name;
    }
  }
  estimate.busyShare =
      estimate.cyclesPerIteration > 0 ? estimate.busyCycles / estimate.cyclesPerIteration : 0;
  estimate.bound = estimate.busyShare >= kBoundShare ? estimate.busiestUnit : "latency";
  return estimate;
}

} // namespace blockc::inspect

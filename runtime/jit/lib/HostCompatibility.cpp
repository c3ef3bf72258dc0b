//===- HostCompatibility.cpp ----------------------------------------------===//
#include "blockc/jit/HostCompatibility.h"

#include "blockc/lowering/Emit.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <memory>

namespace blockc {

namespace {

/// Features whose instructions LLVM emits only for their own intrinsics, which
/// generated kernels never call: system, privileged and tracing instructions.
/// Virtual machines often hide them (the project's 16-core Xeon VM reports no
/// enqcmd, pconfig, ptwrite, uintr or waitpkg), and refusing a target for
/// them would refuse code that runs.
bool neverInGeneratedCode(llvm::StringRef feature) {
  static const llvm::StringRef systemOnly[] = {
      "cldemote", "clflushopt", "clwb",    "enqcmd",  "fsgsbase", "hreset",    "invpcid",
      "kl",       "movdir64b",  "movdiri", "pconfig", "pku",      "prefetchi", "ptwrite",
      "rdpid",    "rdpru",      "rdrnd",   "rdseed",  "rtm",      "serialize", "sgx",
      "shstk",    "tsxldtrk",   "uintr",   "waitpkg", "wbnoinvd", "widekl",    "xsave",
      "xsavec",   "xsaveopt",   "xsaves",  "mwaitx",  "clzero",   "monitorx"};
  return llvm::is_contained(systemOnly, feature);
}

/// What LLVM detects, with every feature blockc knows set as `--target host`
/// has it: on RISC-V and AArch64 LLVM may detect nothing (QEMU's user mode),
/// and BLOCKC_HOST_FEATURES speaks for the machine everywhere.
llvm::StringMap<bool> hostFeatureMap() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  Target host;
  std::string error;
  // A malformed BLOCKC_HOST_FEATURES is reported where `host` is asked for.
  if (!lookupTarget("host", host, error))
    return features;
  for (size_t i = 0; i < size_t(Feature::Count); ++i) {
    Feature f = Feature(i);
    features[featureName(f)] = host.has(f);
  }
  return features;
}

} // namespace

std::vector<std::string> missingFeatures(const Target &target, const std::string &hostTriple,
                                         const llvm::StringMap<bool> &hostFeatures) {
  initializeLLVMTargets();
  llvm::Triple triple(target.triple);
  std::vector<std::string> missing;
  if (triple.getArch() != llvm::Triple(hostTriple).getArch())
    return {"the " + triple.getArchName().str() + " architecture"};
  std::string lookupError;
  const llvm::Target *backend = llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!backend)
    return {"an LLVM backend for " + target.triple};
  // The subtarget resolves everything the CPU name implies (sapphirerapids
  // implies avx512fp16) on top of the explicit feature string.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      backend->createMCSubtargetInfo(triple, target.cpu, target.llvmFeatures));
  if (!subtarget)
    return {"an LLVM subtarget for " + target.cpu};
  // x86 hosts report every feature they detect, true or false; AArch64 and
  // RISC-V hosts list only the features present. There a feature the target
  // names explicitly (an ISA extension by construction) that the host does not
  // list is missing too.
  bool listsOnlyPresent = llvm::all_of(hostFeatures, [](const auto &f) { return f.second; });
  llvm::SmallVector<llvm::StringRef, 16> explicitFeatures;
  llvm::StringRef(target.llvmFeatures).split(explicitFeatures, ',', -1, false);
  for (const llvm::SubtargetFeatureKV &feature : subtarget->getAllProcessorFeatures()) {
    if (!subtarget->getFeatureBits().test(feature.Value) || neverInGeneratedCode(feature.Key))
      continue;
    auto host = hostFeatures.find(feature.Key);
    bool absentButNamed = host == hostFeatures.end() && listsOnlyPresent &&
                          llvm::is_contained(explicitFeatures, "+" + std::string(feature.Key));
    if ((host != hostFeatures.end() && !host->second) || absentButNamed)
      missing.push_back(feature.Key);
  }
  std::sort(missing.begin(), missing.end());
  return missing;
}

bool canRunOnThisMachine(const Target &target, std::string &error) {
  // `host` is this CPU's own feature set by construction.
  if (target.name == "host")
    return true;
  std::string hostTriple = llvm::sys::getProcessTriple();
  if (llvm::Triple(target.triple).getArch() != llvm::Triple(hostTriple).getArch()) {
    error = "target '" + target.name + "' generates " +
            llvm::Triple(target.triple).getArchName().str() + " code, which cannot run on this " +
            llvm::Triple(hostTriple).getArchName().str() +
            " machine; compile it with 'blockc compile' instead";
    return false;
  }
  std::vector<std::string> missing = missingFeatures(target, hostTriple, hostFeatureMap());
  if (missing.empty())
    return true;
  error = "target '" + target.name + "' needs CPU features this machine lacks:";
  for (const std::string &f : missing)
    error += " " + f;
  error += "; run it where they exist, or choose another target ('blockc targets')";
  return false;
}

} // namespace blockc

//===- Classify.cpp - Sorting instructions into the report's categories ---===//
#include "Classify.h"

#include <initializer_list>
#include <regex>
#include <sstream>
#include <string_view>

namespace blockc::inspect {

namespace {

bool startsWithAny(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (s.substr(0, p.size()) == p)
      return true;
  return false;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (s == n)
      return true;
  return false;
}

Classification controlFlow(const InstructionFacts &f) {
  if (f.isCall)
    return {Category::Call, "", false, false};
  if (f.isBranch || f.isReturn)
    return {Category::Branch, "", false, false};
  return {Category::Scalar, "", false, false};
}

// x86 in AT&T syntax: registers name their width (%xmm, %ymm, %zmm), %k are
// AVX-512 masks and %tmm AMX tiles.
Classification classifyX86(const InstructionFacts &f) {
  const std::string &m = f.mnemonic, &ops = f.operands;
  if (contains(ops, "%tmm") || startsWithAny(m, {"tdp", "tile", "ldtilecfg", "sttilecfg"}))
    return {Category::Matrix, "tmm", false, false};
  if (f.isCall || f.isBranch || f.isReturn)
    return controlFlow(f);
  std::string width = contains(ops, "%zmm")   ? "zmm"
                      : contains(ops, "%ymm") ? "ymm"
                      : contains(ops, "%xmm") ? "xmm"
                                              : "";
  bool mask = startsWithAny(m, {"kmov", "kand", "kor", "kxor", "kxnor", "knot", "kortest", "ktest",
                                "kshift", "kunpck", "kadd"});
  if (mask)
    return {Category::VectorMask, "k", false, false};
  // Scalar SSE arithmetic (addss, vfmadd231ss) uses xmm registers too.
  static const std::regex scalarSuffix("(ss|sd|sh)$");
  bool scalarFloat = width == "xmm" && std::regex_search(m, scalarSuffix) &&
                     !startsWithAny(m, {"vbroadcast", "vpbroadcast"});
  if (width.empty() || scalarFloat)
    return {Category::Scalar, "", false, false};
  Classification c{Category::VectorArithmetic, width, false, false};
  bool stack = contains(ops, "(%rsp)") || contains(ops, "(%rbp)");
  bool move = startsWithAny(
      m, {"vmov", "movap", "movup", "movdq", "vlddqu", "vmaskmov", "vpmaskmov", "movnt"});
  if (contains(m, "gather"))
    c.category = Category::VectorGather;
  else if (contains(m, "scatter"))
    c.category = Category::VectorScatter;
  else if (startsWithAny(m, {"vfmadd", "vfmsub", "vfnmadd", "vfnmsub", "vpdp", "vdpbf16", "vpmadd",
                             "vfmaddsub", "vfmsubadd"}))
    c.category = Category::VectorFma;
  else if (startsWithAny(m, {"vphadd", "vhadd", "vpsadbw"}))
    c.category = Category::VectorReduction;
  else if (startsWithAny(m, {"vbroadcast", "vpbroadcast"}) && f.mayLoad)
    c.category = Category::VectorLoad;
  else if (startsWithAny(m, {"vperm",       "vshuf",     "vpshuf",     "vunpck",   "vpunpck",
                             "vinsert",     "vextract",  "valign",     "vpalignr", "vbroadcast",
                             "vpbroadcast", "vcompress", "vpcompress", "vexpand",  "vpexpand",
                             "vmovddup",    "vmovshdup", "vmovsldup",  "vpslldq",  "vpsrldq",
                             "vpack"}))
    c.category = Category::VectorPermute;
  else if (startsWithAny(m, {"vpmovm2", "vpmovb2m", "vpmovw2m", "vpmovd2m", "vpmovq2m"}) ||
           (startsWithAny(m, {"vpcmp", "vcmp", "vptestm", "vptestnm", "vfpclass"}) &&
            contains(ops, "%k")))
    // AVX-512 compares write a mask register.
    c.category = Category::VectorMask;
  else if (move && f.mayStore)
    c.category = Category::VectorStore;
  else if (move && f.mayLoad)
    c.category = Category::VectorLoad;
  // Full-register moves to and from the stack: spills and reloads, or
  // stack scratch (docs/inspect.md).
  if (move && stack && !contains(m, "nt")) {
    c.spill = f.mayStore;
    c.reload = f.mayLoad;
  }
  return c;
}

// AArch64: SVE registers are z0-z31 and predicates p0-p15; NEON's are
// v0-v31 with an arrangement (v0.4s) or q0-q31 whole.
Classification classifyAArch64(const InstructionFacts &f) {
  const std::string &m = f.mnemonic, &ops = f.operands;
  static const std::regex matrixArray("\\bza");
  if (std::regex_search(ops, matrixArray))
    return {Category::Matrix, "za", false, false};
  if (f.isCall || f.isBranch || f.isReturn)
    return controlFlow(f);
  static const std::regex sve("\\bz[0-9]+"), predicate("\\bp[0-9]+"),
      neon("\\bv[0-9]+\\.[0-9]*[bhsd]|\\bq[0-9]+\\b");
  bool usesSve = std::regex_search(ops, sve), usesNeon = std::regex_search(ops, neon);
  bool usesPredicate = std::regex_search(ops, predicate);
  if (isOneOf(m, {"rdvl", "addvl", "addpl", "cntb", "cnth", "cntw", "cntd", "incb", "inch", "incw",
                  "incd", "decb", "dech", "decw", "decd"}) &&
      !usesSve)
    return {Category::VectorConfiguration, "z (scalable)", false, false};
  if (!usesSve && !usesNeon) {
    if (usesPredicate)
      return {Category::VectorMask, "p", false, false};
    return {Category::Scalar, "", false, false};
  }
  Classification c{Category::VectorArithmetic, usesSve ? "z (scalable)" : "v (128-bit)", false,
                   false};
  static const std::regex vectorAddress("\\[[^\\]]*\\bz[0-9]+");
  bool vectorAddressed = std::regex_search(ops, vectorAddress);
  bool load = startsWithAny(
      m, {"ld1", "ldnt1", "ldff1", "ldnf1", "ld2", "ld3", "ld4", "ldr", "ldp", "ldnp", "ldur"});
  bool store =
      startsWithAny(m, {"st1", "stnt1", "st2", "st3", "st4", "str", "stp", "stnp", "stur"});
  if (load)
    c.category = vectorAddressed ? Category::VectorGather : Category::VectorLoad;
  else if (store)
    c.category = vectorAddressed ? Category::VectorScatter : Category::VectorStore;
  else if (startsWithAny(m, {"fmla",  "fmls",   "fmad",  "fmsb",   "fnmla", "fnmls", "fnmad",
                             "fnmsb", "mla",    "mls",   "mad",    "msb",   "sdot",  "udot",
                             "usdot", "sudot",  "bfdot", "bfmmla", "smmla", "ummla", "usmmla",
                             "fmmla", "bfmlal", "fmlal", "fmlsl",  "smlal", "umlal", "fdot"}))
    c.category = Category::VectorFma;
  else if (startsWithAny(m, {"faddv", "fadda", "fmaxv", "fminv", "fmaxnmv", "fminnmv", "addv",
                             "uaddv", "saddv", "smaxv", "sminv", "umaxv",   "uminv",   "andv",
                             "orv",   "eorv",  "faddp", "addp",  "uaddlv",  "saddlv"}))
    c.category = Category::VectorReduction;
  else if (startsWithAny(m, {"zip", "uzp", "trn", "ext", "tbl", "tbx", "dup", "mov", "ins", "rev",
                             "splice", "compact", "insr", "umov", "smov", "lasta", "lastb",
                             "clasta", "clastb"}))
    c.category = Category::VectorPermute;
  else if (startsWithAny(m, {"whilel", "whileg", "ptrue", "pfalse", "ptest", "brk", "cntp", "punpk",
                             "fcm", "cmp", "sel", "pnext", "pfirst"}))
    c.category = Category::VectorMask;
  // SVE spills address the stack in vector lengths ([sp, #1, mul vl]); NEON
  // q registers to [sp] are spills or stack scratch.
  bool stack = contains(ops, "[sp") || contains(ops, "[x29");
  if ((load || store) && stack && !vectorAddressed &&
      (m == "ldr" || m == "str" || m == "ldp" || m == "stp")) {
    c.spill = store;
    c.reload = load;
  }
  return c;
}

// RISC-V: RVV instructions begin with `v`; their element width and register
// group come from the last vsetvli. The SpacemiT IME's begin with `smt.`.
Classification classifyRiscV(const InstructionFacts &f, const RiscvState &state) {
  const std::string &m = f.mnemonic;
  if (startsWithAny(m, {"smt.vmadot", "smt."}))
    return {Category::Matrix, "ime", false, false};
  if (f.isCall || f.isBranch || f.isReturn)
    return controlFlow(f);
  if (isOneOf(m, {"vsetvli", "vsetivli", "vsetvl"}))
    return {Category::VectorConfiguration, "", false, false};
  if (m.empty() || m[0] != 'v')
    return {Category::Scalar, "", false, false};
  Classification c{Category::VectorArithmetic, state.vtype, false, false};
  static const std::regex wholeStore("^vs[1248]r\\.v$"), wholeLoad("^vl[1248]re[0-9]+\\.v$");
  if (std::regex_match(m, wholeStore)) {
    c.category = Category::VectorStore;
    c.spill = state.addressesStack(f.operands);
    c.width = "whole registers";
  } else if (std::regex_match(m, wholeLoad)) {
    c.category = Category::VectorLoad;
    c.reload = state.addressesStack(f.operands);
    c.width = "whole registers";
  } else if (startsWithAny(m, {"vluxei", "vloxei", "vluxseg", "vloxseg"}))
    c.category = Category::VectorGather;
  else if (startsWithAny(m, {"vsuxei", "vsoxei", "vsuxseg", "vsoxseg"}))
    c.category = Category::VectorScatter;
  else if (startsWithAny(m, {"vlse", "vlsseg"}))
    c.category = Category::VectorStridedLoad;
  else if (startsWithAny(m, {"vsse", "vssseg"}))
    c.category = Category::VectorStridedStore;
  else if (startsWithAny(m, {"vle", "vlseg", "vlm.v"}))
    c.category = Category::VectorLoad;
  else if (startsWithAny(m, {"vse", "vsseg", "vsm.v"}))
    c.category = Category::VectorStore;
  else if (startsWithAny(m, {"vfmacc", "vfnmacc", "vfmsac", "vfnmsac", "vfmadd", "vfnmadd",
                             "vfmsub", "vfnmsub", "vmacc", "vnmsac", "vmadd", "vnmsub", "vwmacc",
                             "vfwmacc", "vfwnmacc", "vfwmsac", "vfwnmsac", "vqdot"}))
    c.category = Category::VectorFma;
  else if (startsWithAny(m, {"vred", "vfred", "vwred", "vfwred"}))
    c.category = Category::VectorReduction;
  else if (startsWithAny(m, {"vrgather", "vslide", "vcompress", "vmv1r", "vmv2r", "vmv4r", "vmv8r",
                             "vmv.s.x", "vmv.x.s", "vfmv.f.s", "vfmv.s.f", "vmv.v.x", "vfmv.v.f",
                             "vmv.v.i"}))
    c.category = Category::VectorPermute;
  else if (startsWithAny(m, {"vmand", "vmor",  "vmxor", "vmnand", "vmnor",  "vmxnor", "vmset",
                             "vmclr", "vmmv",  "vmnot", "vcpop",  "vfirst", "vmsbf",  "vmsif",
                             "vmsof", "viota", "vmseq", "vmsne",  "vmslt",  "vmsle",  "vmsgt",
                             "vmsge", "vmfeq", "vmfne", "vmflt",  "vmfle",  "vmfgt",  "vmfge"}))
    c.category = Category::VectorMask;
  return c;
}

} // namespace

bool RiscvState::update(const InstructionFacts &facts) {
  if (facts.isCall) {
    // The callee may leave anything in the argument and temporary registers.
    stackAddresses.clear();
  } else if (!facts.mayStore && !facts.isBranch) {
    std::vector<std::string> registers;
    std::istringstream operands(facts.operands);
    for (std::string operand; std::getline(operands, operand, ',');)
      if (size_t first = operand.find_first_not_of(" \t"); first != std::string::npos)
        registers.push_back(operand.substr(first, operand.find_last_not_of(" \t") - first + 1));
    if (registers.empty())
      return false;
    // The first operand is what an instruction writes; a loaded value is
    // not an address computed from sp, whatever the load's own address.
    bool fromStack = !facts.mayLoad &&
                     std::any_of(registers.begin() + 1, registers.end(), [&](const std::string &r) {
                       return r == "sp" || stackAddresses.count(r) != 0;
                     });
    if (fromStack)
      stackAddresses.insert(registers.front());
    else
      stackAddresses.erase(registers.front());
  }
  if (facts.mnemonic != "vsetvli" && facts.mnemonic != "vsetivli")
    return false;
  static const std::regex type("\\b(e[0-9]+),\\s*(mf?[0-9])");
  std::smatch match;
  if (std::regex_search(facts.operands, match, type))
    vtype = match[1].str() + "," + match[2].str();
  return true;
}

bool RiscvState::addressesStack(const std::string &operands) const {
  static const std::regex base("\\(([a-z0-9]+)\\)");
  std::smatch match;
  if (!std::regex_search(operands, match, base))
    return false;
  return match[1].str() == "sp" || stackAddresses.count(match[1].str()) != 0;
}

Classification classify(Isa isa, const InstructionFacts &facts, const RiscvState &riscv) {
  switch (isa) {
  case Isa::X86:
    return classifyX86(facts);
  case Isa::AArch64:
    return classifyAArch64(facts);
  case Isa::RiscV:
    return classifyRiscV(facts, riscv);
  }
  return {};
}

} // namespace blockc::inspect

//===- CHeader.cpp - The C header of an AOT-compiled module ---------------===//
//
// Block IR names are not C names: `@vec.add`, `%0` and `%int` are valid Block
// IR. The header must compile as C and C++ anyway, so every name it declares
// is mapped to an identifier that nothing else in the translation unit can
// mean (keywords, <stdint.h> and <stdbool.h> names, the runtime's own, the
// launch function's locals). A kernel whose C name differs from its symbol is
// declared with an asm label, so the object needs no change.
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/Diagnostics.h"
#include "blockc/lowering/Emit.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

namespace blockc {

namespace {

// C23 and C++23 keywords, alternative tokens, and what <stdbool.h>,
// <stdint.h> and <stddef.h> define as words.
const std::set<std::string, std::less<>> kReservedWords = {"alignas",
                                                           "alignof",
                                                           "and",
                                                           "and_eq",
                                                           "asm",
                                                           "atomic_cancel",
                                                           "atomic_commit",
                                                           "atomic_noexcept",
                                                           "auto",
                                                           "bitand",
                                                           "bitor",
                                                           "bool",
                                                           "break",
                                                           "case",
                                                           "catch",
                                                           "char",
                                                           "char8_t",
                                                           "char16_t",
                                                           "char32_t",
                                                           "class",
                                                           "compl",
                                                           "concept",
                                                           "const",
                                                           "consteval",
                                                           "constexpr",
                                                           "constinit",
                                                           "const_cast",
                                                           "continue",
                                                           "co_await",
                                                           "co_return",
                                                           "co_yield",
                                                           "decltype",
                                                           "default",
                                                           "delete",
                                                           "do",
                                                           "double",
                                                           "dynamic_cast",
                                                           "else",
                                                           "enum",
                                                           "explicit",
                                                           "export",
                                                           "extern",
                                                           "false",
                                                           "float",
                                                           "for",
                                                           "friend",
                                                           "goto",
                                                           "if",
                                                           "inline",
                                                           "int",
                                                           "long",
                                                           "mutable",
                                                           "namespace",
                                                           "new",
                                                           "noexcept",
                                                           "not",
                                                           "not_eq",
                                                           "nullptr",
                                                           "operator",
                                                           "or",
                                                           "or_eq",
                                                           "private",
                                                           "protected",
                                                           "public",
                                                           "reflexpr",
                                                           "register",
                                                           "reinterpret_cast",
                                                           "requires",
                                                           "restrict",
                                                           "return",
                                                           "short",
                                                           "signed",
                                                           "sizeof",
                                                           "static",
                                                           "static_assert",
                                                           "static_cast",
                                                           "struct",
                                                           "switch",
                                                           "synchronized",
                                                           "template",
                                                           "this",
                                                           "thread_local",
                                                           "throw",
                                                           "true",
                                                           "try",
                                                           "typedef",
                                                           "typeid",
                                                           "typename",
                                                           "typeof",
                                                           "typeof_unqual",
                                                           "union",
                                                           "unsigned",
                                                           "using",
                                                           "virtual",
                                                           "void",
                                                           "volatile",
                                                           "wchar_t",
                                                           "while",
                                                           "xor",
                                                           "xor_eq",
                                                           "NULL",
                                                           "offsetof",
                                                           "size_t",
                                                           "ptrdiff_t",
                                                           "max_align_t",
                                                           "nullptr_t",
                                                           "wint_t",
                                                           "main"};

/// Typedefs and limit macros of <stdint.h>: int32_t, uint_least8_t,
/// intptr_t, INT32_MAX, UINT64_C, SIZE_MAX, ...
const std::regex kStdintNames("u?int(_least|_fast)?[0-9]+_t|u?int(max|ptr)_t|U?INT(_LEAST|_FAST)?(["
                              "0-9]+|MAX|PTR)_(MIN|MAX|C)|"
                              "(SIZE|PTRDIFF|SIG_ATOMIC|WCHAR|WINT)_(MIN|MAX)");

/// Names with a leading double underscore, or underscore and capital, belong
/// to the implementation; blockc_ and BLOCKC_ to the runtime's header.
bool hasReservedPrefix(const std::string &name) {
  auto startsWith = [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; };
  return startsWith("__") ||
         (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))) ||
         startsWith("blockc_") || startsWith("BLOCKC_");
}

/// A C identifier for the Block IR name `name`: every byte outside
/// [A-Za-z0-9_] becomes '_'; a leading digit or a reserved prefix gets 'n'
/// before it; a keyword or a <stdint.h> name gets a trailing '_'.
std::string cIdentifier(const std::string &name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) || hasReservedPrefix(out))
    out.insert(0, "n");
  if (kReservedWords.count(out) || std::regex_match(out, kStdintNames))
    out += '_';
  return out;
}

std::string cType(const Type &t) {
  static const char *names[] = {"bool",     "int8_t",   "int16_t", "int32_t", "int64_t",
                                "uint16_t", "uint16_t", "float",   "double"};
  std::string base = names[static_cast<unsigned>(t.kind())];
  return t.isPointer() ? base + " *" : base + " ";
}

/// `declaration` ending in the symbol `symbol`, which its C name may not spell.
std::string withSymbol(const std::string &declaration, const std::string &cName,
                       const std::string &symbol) {
  if (cName == symbol)
    return declaration;
  return declaration + " __asm__(\"" + symbol + "\")";
}

/// The launch function's parameters: each kernel parameter's C name, made
/// unique among themselves (`a.b` and `a_b` would both become `a_b`) and
/// distinct from the kernel's, which the launch function calls.
std::vector<std::string> parameterNames(const Function &fn, const std::string &kernelName) {
  std::vector<std::string> names;
  std::set<std::string> taken = {kernelName};
  for (const auto &arg : fn.body.args) {
    std::string name = cIdentifier(arg->name());
    std::string unique = name;
    for (int suffix = 2; !taken.insert(unique).second; ++suffix)
      unique = name + "_" + std::to_string(suffix);
    names.push_back(unique);
  }
  return names;
}

} // namespace

std::optional<std::string> emitHeader(const Module &module, const std::string &guard,
                                      DiagnosticEngine &diags) {
  std::string out = "/* Generated by blockc. f16 and bf16 elements are uint16_t bit patterns. */\n"
                    "#ifndef " +
                    guard + "\n#define " + guard +
                    "\n\n"
                    "#include <blockc/runtime.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  // Every file-scope name the header declares, and the kernel it came from.
  std::map<std::string, const Function *> declared;
  for (const auto &fn : module.functions) {
    if (!fn->isKernel)
      continue;
    std::string name = cIdentifier(fn->name);
    for (const std::string &global : {name, name + "_launch"}) {
      auto [it, inserted] = declared.emplace(global, fn.get());
      if (!inserted) {
        diags.error(fn->loc, "kernels '@" + it->second->name + "' and '@" + fn->name +
                                 "' both need the C name '" + global +
                                 "' in the header; rename one of them");
        return std::nullopt;
      }
    }
    std::string scratch = "blockc_scratch_bytes_" + fn->name;
    std::string requirements = "blockc_core_requirements_" + fn->name;
    std::string scratchC = "blockc_scratch_bytes_" + name;
    std::string requirementsC = "blockc_core_requirements_" + name;
    out += "/* The kernel itself, as blockc_launch calls it. */\n";
    out += withSymbol("void " + name +
                          "(void **args, int32_t pid_x, int32_t pid_y, int32_t pid_z, "
                          "int32_t grid_x, int32_t grid_y, int32_t grid_z)",
                      name, fn->name) +
           ";\n";
    out += "/* Scratch one program of it uses: on the stack up to "
           "BLOCKC_MAX_STACK_SCRATCH_BYTES, else in\n   the launching runtime's per-thread arena "
           "(blockc_scratch_arena). */\n";
    out += withSymbol("extern const uint64_t " + scratchC, scratchC, scratch) + ";\n";
    out += "/* BLOCKC_REQUIRES_* bits: units of the core the launcher must run it on. */\n";
    out +=
        withSymbol("extern const uint64_t " + requirementsC, requirementsC, requirements) + ";\n\n";
    out += "/* Runs every program of `grid`; options may be NULL (defaults and BLOCKC_* "
           "variables). Returns 0 or a BLOCKC_ERROR_* code (see blockc_last_error()). */\n";
    out += "static inline int " + name + "_launch(";
    std::vector<std::string> params = parameterNames(*fn, name);
    std::string args;
    for (size_t i = 0; i < params.size(); ++i) {
      out += cType(fn->body.args[i]->type()) + params[i] + ", ";
      args += (i ? ", " : "") + std::string("(void *)&") + params[i];
    }
    // The launch function's own names start with blockc_, which no parameter's
    // C name does.
    out += "blockc_grid blockc_grid_, const blockc_launch_options *blockc_options_) {\n";
    out += "  void *blockc_args_[] = {" + (args.empty() ? std::string("0") : args) + "};\n";
    out += "  blockc_kernel_info blockc_info_ = BLOCKC_KERNEL_INFO(\"" + fn->name + "\", " +
           scratchC + ", " + requirementsC + ");\n";
    out += "  return blockc_launch_kernel(" + name +
           ", blockc_args_, blockc_grid_, blockc_options_, &blockc_info_);\n}\n\n";
  }
  out += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return out;
}

} // namespace blockc

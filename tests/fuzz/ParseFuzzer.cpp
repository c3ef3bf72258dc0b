//===- ParseFuzzer.cpp - libFuzzer target over parse, verify and print ----===//
//
// No input may crash, abort or hang the frontend. Beyond that, every module the
// parser accepts must print to text that parses back to the same text: a
// round-trip failure is a bug, so it aborts and libFuzzer keeps the input.
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/Parser.h"
#include "blockc/frontend/Printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  blockc::SourceFile file{"fuzz.bir", std::string(reinterpret_cast<const char *>(data), size)};
  blockc::DiagnosticEngine diags;
  std::unique_ptr<blockc::Module> module = blockc::parseModule(file, {}, diags);
  if (!module) {
    // Rendering the diagnostic exercises the caret code on arbitrary bytes.
    std::string text = blockc::formatDiagnostic(diags.diagnostic(), &file);
    if (text.empty())
      std::abort();
    return 0;
  }
  std::string printed = blockc::printModule(*module);
  blockc::SourceFile again{"printed.bir", printed};
  blockc::DiagnosticEngine diags2;
  std::unique_ptr<blockc::Module> reparsed = blockc::parseModule(again, {}, diags2);
  if (!reparsed || blockc::printModule(*reparsed) != printed) {
    std::fprintf(stderr, "round trip failed:\n%s\n", printed.c_str());
    if (!reparsed)
      std::fprintf(stderr, "%s", blockc::formatDiagnostic(diags2.diagnostic(), &again).c_str());
    std::abort();
  }
  return 0;
}

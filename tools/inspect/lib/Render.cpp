//===- Render.cpp - The inspect report as a table and as JSON -------------===//
#include "blockc/inspect/Inspect.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace blockc::inspect {

const char *categoryName(Category category) {
  switch (category) {
  case Category::VectorLoad:
    return "vector load";
  case Category::VectorStridedLoad:
    return "strided load";
  case Category::VectorGather:
    return "gather";
  case Category::VectorStore:
    return "vector store";
  case Category::VectorStridedStore:
    return "strided store";
  case Category::VectorScatter:
    return "scatter";
  case Category::VectorFma:
    return "fma";
  case Category::VectorArithmetic:
    return "vector arithmetic";
  case Category::VectorReduction:
    return "reduction";
  case Category::VectorPermute:
    return "permute";
  case Category::VectorMask:
    return "mask";
  case Category::VectorConfiguration:
    return "vector configuration";
  case Category::Matrix:
    return "matrix";
  case Category::Scalar:
    return "scalar";
  case Category::Call:
    return "call";
  case Category::Branch:
    return "branch";
  }
  return "?";
}

bool isVectorOrMatrix(Category category) {
  return category != Category::Scalar && category != Category::Call && category != Category::Branch;
}

unsigned InstructionMix::total() const {
  unsigned sum = 0;
  for (unsigned c : counts)
    sum += c;
  return sum;
}

unsigned InstructionMix::vectorOrMatrix() const {
  unsigned sum = 0;
  for (size_t c = 0; c < kCategoryCount; ++c)
    if (isVectorOrMatrix(Category(c)))
      sum += counts[c];
  return sum;
}

void InstructionMix::add(const InstructionMix &other) {
  for (size_t c = 0; c < kCategoryCount; ++c)
    counts[c] += other.counts[c];
}

namespace {

std::string percent(unsigned part, unsigned whole) {
  return std::to_string(whole ? (part * 100 + whole / 2) / whole : 0) + "%";
}

std::string fixed(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f", value);
  return text;
}

void writeSummary(llvm::raw_ostream &out, const CodeSummary &code, const std::string &indent) {
  std::string mix;
  for (size_t c = 0; c < kCategoryCount; ++c)
    if (code.mix.counts[c])
      mix += std::string(mix.empty() ? "" : ", ") + categoryName(Category(c)) + " " +
             std::to_string(code.mix.counts[c]);
  out << indent << "mix: " << mix << "\n";
  if (!code.widths.empty()) {
    out << indent << "widths:";
    for (const auto &[width, count] : code.widths)
      out << " " << width << " (" << count << ")";
    out << "\n";
  }
  if (code.vectorSpills || code.vectorReloads)
    out << indent << "vector spills " << code.vectorSpills << ", reloads " << code.vectorReloads
        << "\n";
  if (!code.calls.empty()) {
    out << indent << "calls:";
    for (const auto &[callee, count] : code.calls)
      out << " " << callee << " (" << count << ")";
    out << "\n";
  }
}

void writeEstimate(llvm::raw_ostream &out, const Estimate &e) {
  out << fixed(e.cyclesPerIteration) << " cycles/iteration; " << e.busiestUnit << " busy "
      << fixed(e.busyCycles) << " (" << percent(unsigned(e.busyShare * 1000 + 0.5), 1000)
      << "); bound by " << e.bound;
  if (e.unmodelled)
    out << "; " << e.unmodelled << " left out (calls, or instructions the model cannot time)";
  out << "\n";
}

llvm::json::Object estimateJson(const Estimate &e) {
  return llvm::json::Object{{"cycles_per_iteration", e.cyclesPerIteration},
                            {"busiest_unit", e.busiestUnit},
                            {"busy_cycles", e.busyCycles},
                            {"busy_share", e.busyShare},
                            {"bound", e.bound},
                            {"unmodelled_instructions", e.unmodelled}};
}

llvm::json::Object summaryJson(const CodeSummary &code) {
  llvm::json::Object mix;
  for (size_t c = 0; c < kCategoryCount; ++c)
    mix[categoryName(Category(c))] = code.mix.counts[c];
  llvm::json::Object widths, calls;
  for (const auto &[width, count] : code.widths)
    widths[width] = count;
  for (const auto &[callee, count] : code.calls)
    calls[callee] = count;
  return llvm::json::Object{{"instructions", code.mix.total()},
                            {"vector_or_matrix", code.mix.vectorOrMatrix()},
                            {"mix", std::move(mix)},
                            {"widths", std::move(widths)},
                            {"vector_spills", code.vectorSpills},
                            {"vector_reloads", code.vectorReloads},
                            {"calls", std::move(calls)}};
}

} // namespace

std::string renderTable(const std::vector<Report> &reports, bool withListings, int loopIndex) {
  std::string text;
  llvm::raw_string_ostream out(text);
  for (const Report &report : reports) {
    out << report.source << ": " << report.architecture << ", estimates for " << report.cpu << "\n";
    for (const FunctionReport &f : report.functions) {
      unsigned total = f.code.mix.total();
      out << "\nfunction " << f.name << " (" << llvm::format_hex(f.address, 2) << "): " << total
          << " instructions, " << percent(f.code.mix.vectorOrMatrix(), total)
          << " vector or matrix\n";
      writeSummary(out, f.code, "  ");
      for (const LoopReport &l : f.loops) {
        if (loopIndex >= 0 && int(l.index) != loopIndex)
          continue;
        unsigned n = l.code.mix.total();
        out << "  loop " << l.index << " at " << llvm::format_hex(l.header, 2) << ", depth "
            << l.depth << (l.innermost ? ", innermost" : "") << ": " << n << " instructions, "
            << percent(l.code.mix.vectorOrMatrix(), n) << " vector or matrix\n";
        writeSummary(out, l.code, "    ");
        if (l.estimate) {
          out << "    estimate";
          if (l.fastestPath)
            out << " (the fastest of " << l.paths << " paths, " << l.fastestPath->instructions
                << " instructions)";
          out << ": ";
          writeEstimate(out, *l.estimate);
        }
        if (l.slowestPath) {
          out << "    slowest path (" << l.slowestPath->instructions << " instructions): ";
          writeEstimate(out, l.slowestPath->estimate);
        }
        if (withListings)
          for (const std::string &line : l.listing)
            out << "      " << line << "\n";
      }
      for (const std::string &w : f.warnings)
        out << "  warning: " << w << "\n";
    }
  }
  return text;
}

std::string renderJson(const std::vector<Report> &reports) {
  llvm::json::Array files;
  for (const Report &report : reports) {
    llvm::json::Array functions;
    for (const FunctionReport &f : report.functions) {
      llvm::json::Array loops;
      for (const LoopReport &l : f.loops) {
        llvm::json::Object loop{{"index", l.index},
                                {"header", int64_t(l.header)},
                                {"depth", l.depth},
                                {"innermost", l.innermost},
                                {"code", summaryJson(l.code)}};
        if (l.estimate)
          loop["estimate"] = estimateJson(*l.estimate);
        auto pathJson = [](const LoopReport::Path &path) {
          return llvm::json::Object{{"instructions", path.instructions},
                                    {"estimate", estimateJson(path.estimate)}};
        };
        if (l.fastestPath && l.slowestPath)
          loop["paths"] = llvm::json::Object{{"count", l.paths},
                                             {"fastest", pathJson(*l.fastestPath)},
                                             {"slowest", pathJson(*l.slowestPath)}};
        loops.push_back(std::move(loop));
      }
      llvm::json::Array warnings;
      for (const std::string &w : f.warnings)
        warnings.push_back(w);
      functions.push_back(llvm::json::Object{{"name", f.name},
                                             {"address", int64_t(f.address)},
                                             {"code", summaryJson(f.code)},
                                             {"loops", std::move(loops)},
                                             {"warnings", std::move(warnings)}});
    }
    files.push_back(llvm::json::Object{{"source", report.source},
                                       {"architecture", report.architecture},
                                       {"cpu", report.cpu},
                                       {"functions", std::move(functions)}});
  }
  std::string text;
  llvm::raw_string_ostream out(text);
  out << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{{"blockc_inspect", 1},
                                                                     {"files", std::move(files)}}))
      << "\n";
  return text;
}

} // namespace blockc::inspect

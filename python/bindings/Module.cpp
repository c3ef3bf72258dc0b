//===- Module.cpp - blockc._core: the JIT and launcher for Python ---------===//
//
// The C++ half of the Python frontend: compile Block IR text in process (the
// JIT and its disk cache), launch the kernel over a grid, trace launches.
// The Python half translates Triton kernels into the Block IR text given
// here, and maps lines of errors and bounds reports back to Python source.
//
//===----------------------------------------------------------------------===//
#include "Errors.h"
#include "Kernel.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/targets/IsaLowerings.h"

#include <memory>
#include <optional>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace blockc::python {

namespace {

Kernel compile(const std::string &source, const std::string &kernel, const std::string &fileName,
               const std::string &target, const std::string &features, bool checkBounds,
               bool fastMath) {
  SourceFile file{fileName, source};
  CompileOptions options;
  options.target = target;
  options.features = features;
  // The other kernels of the source are parsed and verified, not compiled.
  options.kernels = {kernel};
  options.checkBounds = checkBounds;
  options.fastMath = fastMath;
  DiagnosticEngine diags;
  std::unique_ptr<JitModule> module;
  {
    // A compile takes from milliseconds (cached) to seconds: other Python
    // threads, and other compiles, run meanwhile.
    py::gil_scoped_release release;
    module = JitModule::compile(file, options, diags);
  }
  if (!module)
    throwCompileError(diags.hasError() ? diags.diagnostic()
                                       : Diagnostic{{}, "compiling the kernel failed"},
                      file);
  const JitKernel *compiled = module->kernel(kernel);
  if (!compiled)
    throwCompileError(Diagnostic{{}, "no kernel '" + kernel + "'"}, file);
  return Kernel(std::shared_ptr<const JitModule>(std::move(module)), *compiled);
}

/// Ahead of time: kernel `kernel` of `source` for `target`, written to `path` as an
/// object (`obj`), a shared library (`so`), assembly (`asm`) or the C header of
/// its launch function (`header`), whole or not at all.
void compileKernelToFile(const std::string &source, const std::string &kernel,
                         const std::string &path, const std::string &emit,
                         const std::string &fileName, const std::string &target,
                         const std::string &features) {
  static const std::pair<const char *, EmitKind> kinds[] = {{"obj", EmitKind::Object},
                                                            {"so", EmitKind::SharedLibrary},
                                                            {"asm", EmitKind::Assembly},
                                                            {"header", EmitKind::Header}};
  const EmitKind *kind = nullptr;
  for (const auto &[name, value] : kinds)
    if (emit == name)
      kind = &value;
  if (!kind)
    throw py::value_error("emit='" + emit + "': expected 'obj', 'so', 'asm' or 'header'");
  SourceFile file{fileName, source};
  CompileOptions options;
  options.target = target;
  options.features = features;
  options.kernels = {kernel};
  DiagnosticEngine diags;
  bool ok;
  {
    py::gil_scoped_release release;
    registerIsaLowerings();
    ok = blockc::compileToFile(file, options, *kind, path, diags);
  }
  if (!ok)
    throwCompileError(diags.hasError() ? diags.diagnostic()
                                       : Diagnostic{{}, "compiling the kernel failed"},
                      file);
}

void checkTrace(int status) {
  if (status != BLOCKC_SUCCESS)
    throwLaunchError(blockc_last_error());
}

} // namespace

} // namespace blockc::python

PYBIND11_MODULE(_core, m) {
  using namespace blockc;
  using namespace blockc::python;
  m.doc() = "blockc's JIT and launcher: compile Block IR text, launch a kernel over a grid.";
  registerExceptions(m);
  bindKernel(m);

  m.def("compile", &compile, py::arg("source"), py::arg("kernel"),
        py::arg("file_name") = "<python>", py::arg("target") = "host", py::arg("features") = "",
        py::arg("check_bounds") = false, py::arg("fast_math") = false,
        R"(Compiles kernel `kernel` of the Block IR text `source` and returns it as a Kernel.

Only that kernel is compiled; the others are parsed and verified. The object
code is cached on disk (cache_dir()) by source, options, target and compiler
version, so compiling the same text again only loads it. The GIL is released
while compiling.

file_name: the name diagnostics give the source.
target: a name from `blockc targets` that this machine can run ('host').
features: target features to add or remove ('+avx512f,-amx-tile').
check_bounds: every load and store checks its lanes against the buffers'
  extents (Kernel.launch then needs `extents`).
fast_math: math ops may use SLEEF's faster 3.5-ULP variants.

Raises CompileError with the diagnostic (file:line:col, source line, caret).)");

  m.def("compile_to_file", &compileKernelToFile, py::arg("source"), py::arg("kernel"),
        py::arg("path"), py::arg("emit"), py::arg("file_name") = "<python>",
        py::arg("target") = "host", py::arg("features") = "",
        R"(Compiles kernel `kernel` of the Block IR text `source` ahead of time for
`target` (any name from `blockc targets`, another architecture's included) and
writes it to `path`: emit='obj' an object, 'so' a shared library, 'asm'
assembly, 'header' the C header declaring its launch function. The file is
written whole or not at all. Raises CompileError with the diagnostic.)");
  m.def(
      "trace_start",
      [](std::optional<std::string> path) {
        int status;
        {
          py::gil_scoped_release release;
          status = blockc_trace_start(path ? path->c_str() : nullptr);
        }
        checkTrace(status);
      },
      py::arg("path"),
      R"(Starts recording every launch of the process into a trace (Chrome trace JSON,
for ui.perfetto.dev) written to `path`, or kept in memory when `path` is None.
A trace already recording is written and closed first. Raises LaunchError if
the file cannot be created.)");
  m.def(
      "trace_flush",
      [] {
        int status;
        {
          py::gil_scoped_release release;
          status = blockc_trace_flush();
        }
        checkTrace(status);
      },
      "Writes the trace recorded so far to its file (a complete JSON document); "
      "recording goes on.");
  m.def(
      "trace_stop",
      [] {
        int status;
        {
          py::gil_scoped_release release;
          status = blockc_trace_stop();
        }
        checkTrace(status);
      },
      "Writes the trace to its file and stops recording.");
  m.def(
      "cache_dir", [] { return kernelCacheDirectory(); },
      "The folder of the JIT's disk cache of compiled kernels, as the JIT decides it\n"
      "now: BLOCKC_CACHE_DIR, else $XDG_CACHE_HOME/blockc, else ~/.cache/blockc; ''\n"
      "when BLOCKC_CACHE_DIR=off disables the cache.");
}

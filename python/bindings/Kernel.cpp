//===- Kernel.cpp ---------------------------------------------------------===//
//
// A Python user launches small kernels in loops, so a launch costs what the
// launcher costs plus converting the arguments: no LLVM, and no heap beyond
// vectors that stay inline for kernels of up to 16 parameters.
//
//===----------------------------------------------------------------------===//
#include "Kernel.h"

#include "Arguments.h"
#include "Errors.h"

#include "llvm/ADT/SmallVector.h"

namespace py = pybind11;

namespace blockc::python {

namespace {

/// A list or tuple's items, or LaunchError naming `what`.
py::object fastSequence(py::handle value, const std::string &what) {
  PyObject *sequence = PySequence_Fast(value.ptr(), "");
  if (!sequence) {
    PyErr_Clear();
    throwLaunchError(what + ": expected a list or tuple, " + got(value.ptr()));
  }
  return py::reinterpret_steal<py::object>(sequence);
}

/// Item `i` of `sequence` (from fastSequence), owned by the caller: a value's
/// __index__ or __float__ is Python code, which may shrink a list while its
/// items are converted.
py::object itemOf(const py::object &sequence, size_t i, size_t size, const std::string &what) {
  if (size_t(PySequence_Fast_GET_SIZE(sequence.ptr())) != size)
    throwLaunchError(what + " changed size while its items were converted");
  return py::reinterpret_borrow<py::object>(PySequence_Fast_GET_ITEM(sequence.ptr(), i));
}

blockc_grid toGrid(py::handle value) {
  py::object sequence = fastSequence(value, "grid");
  Py_ssize_t size = PySequence_Fast_GET_SIZE(sequence.ptr());
  PyObject **items = PySequence_Fast_ITEMS(sequence.ptr());
  if (size < 1 || size > 3)
    throwLaunchError("grid: expected 1 to 3 program counts (x, y, z), got " + std::to_string(size));
  int64_t counts[3] = {1, 1, 1};
  for (Py_ssize_t i = 0; i < size; ++i)
    if (!toInt64(items[i], counts[i]))
      throwLaunchError("grid[" + std::to_string(i) + "]: expected a program count, an int, " +
                       got(items[i]));
  // The launcher checks the ranges, with its own message.
  return {counts[0], counts[1], counts[2]};
}

std::string signature(const JitKernel &kernel, bool pointersOnly) {
  std::string text;
  for (const Param &p : kernel.params)
    if (!pointersOnly || p.type.isPointer())
      text += (text.empty() ? "%" : ", %") + p.name;
  return text;
}

std::string count(size_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

} // namespace

Kernel::Kernel(std::shared_ptr<const JitModule> module, const JitKernel &kernel)
    : module_(std::move(module)), kernel_(&kernel) {
  for (const Param &p : kernel.params)
    pointerParams_ += p.type.isPointer();
}

py::list Kernel::params() const {
  py::list list;
  for (const Param &p : kernel_->params)
    list.append(py::make_tuple(p.name, p.type.str()));
  return list;
}

std::string Kernel::repr() const {
  std::string text = "<blockc Kernel @" + kernel_->name + "(";
  for (size_t i = 0; i < kernel_->params.size(); ++i)
    text += (i ? ", %" : "%") + kernel_->params[i].name + ": " + kernel_->params[i].type.str();
  return text + (kernel_->checksBounds ? "), bounds-checked>" : ")>");
}

py::object Kernel::launch(py::handle gridValue, py::handle argsValue, py::handle extentsValue,
                          int64_t numThreads) const {
  const JitKernel &kernel = *kernel_;
  blockc_grid grid = toGrid(gridValue);

  py::object args = fastSequence(argsValue, "args");
  size_t given = size_t(PySequence_Fast_GET_SIZE(args.ptr()));
  if (given != kernel.params.size())
    throwLaunchError("kernel @" + kernel.name + " takes " +
                     count(kernel.params.size(), "argument") + " (" + signature(kernel, false) +
                     "), got " + std::to_string(given));
  // Sized before any pointer into them is taken.
  llvm::SmallVector<ArgumentSlot, 16> slots(given);
  llvm::SmallVector<int64_t, 8> extents(kernel.checksBounds ? pointerParams_ : 0);
  llvm::SmallVector<void *, 32> pointers;
  std::string error;
  for (size_t i = 0; i < given; ++i) {
    const Param &param = kernel.params[i];
    py::object item = itemOf(args, i, given, "args");
    if (!convertArgument(item.ptr(), param.type, slots[i], error))
      throwLaunchError("argument " + std::to_string(i) + " (%" + param.name + ": " +
                       param.type.str() + "): " + error);
    pointers.push_back(&slots[i]);
  }

  // A bounds-checked kernel takes, after its own arguments, a pointer to the
  // extent of each pointer argument and one to the report (runtime.h).
  blockc_bounds_report report{};
  if (kernel.checksBounds) {
    auto expected = [&] {
      return "kernel @" + kernel.name + " checks bounds: extents needs " +
             count(pointerParams_, "byte size") + ", one per pointer argument (" +
             signature(kernel, true) + ")";
    };
    if (extentsValue.is_none())
      throwLaunchError(expected() + "; got None");
    py::object sequence = fastSequence(extentsValue, "extents");
    size_t size = size_t(PySequence_Fast_GET_SIZE(sequence.ptr()));
    if (size != pointerParams_)
      throwLaunchError(expected() + ", got " + std::to_string(size));
    for (size_t i = 0; i < size; ++i) {
      py::object item = itemOf(sequence, i, size, "extents");
      if (!toInt64(item.ptr(), extents[i]) || extents[i] < 0)
        throwLaunchError("extents[" + std::to_string(i) +
                         "]: expected a size in bytes, an int >= 0, " + got(item.ptr()));
      pointers.push_back(&extents[i]);
    }
    pointers.push_back(&report);
  }

  blockc_launch_options options;
  blockc_launch_options_init(&options);
  const char *envError = nullptr;
  if (blockc_launch_options_from_env(&options, &envError) != BLOCKC_SUCCESS)
    throwLaunchError(envError ? envError : blockc_last_error());
  if (numThreads < 0 || numThreads > INT32_MAX)
    throwLaunchError("num_threads " + std::to_string(numThreads) +
                     ": expected 0 (the default: BLOCKC_NUM_THREADS or OpenMP's) or a positive "
                     "thread count");
  if (numThreads > 0)
    options.num_threads = int32_t(numThreads);

  blockc_kernel_info info = kernel.info();
  int status;
  {
    // Other Python threads run while the programs do, and may launch too:
    // the launcher is safe to call from several threads at once.
    py::gil_scoped_release release;
    status = blockc_launch_kernel(kernel.fn, pointers.data(), grid, &options, &info);
  }
  // blockc_last_error() is this thread's, so nothing in between changed it.
  if (status != BLOCKC_SUCCESS)
    throwLaunchError(blockc_last_error());
  if (!report.failed)
    return py::none();
  py::dict violation;
  violation["line"] = report.line;
  violation["column"] = report.column;
  violation["is_store"] = report.is_store == 1;
  violation["kind"] = report.is_store == 2 ? "assert" : report.is_store ? "store" : "load";
  violation["argument"] = report.argument;
  violation["pid"] = py::make_tuple(report.pid_x, report.pid_y, report.pid_z);
  violation["offset"] = report.offset;
  violation["extent"] = report.extent;
  return std::move(violation);
}

void bindKernel(py::module_ &module) {
  py::class_<Kernel>(module, "Kernel",
                     "One compiled kernel, from blockc._core.compile. It keeps its compiled "
                     "code alive;\nlaunch it any number of times, from any thread.")
      .def_property_readonly("name", &Kernel::name, "The kernel's name, without '@'.")
      .def_property_readonly("params", &Kernel::params,
                             "The parameters in order, as (name without '%', Block IR type) "
                             "pairs:\n[('a', 'ptr<f32>'), ('n', 'i32')].")
      .def_property_readonly(
          "checks_bounds", &Kernel::checksBounds,
          "Compiled with check_bounds=True: launch() then needs `extents` and returns "
          "the\nfirst out-of-bounds access it found.")
      .def_property_readonly("scratch_bytes", &Kernel::scratchBytes,
                             "Scratch one program uses, in bytes: on its thread's stack up "
                             "to 256 KiB\n(each launch checks that the stacks hold it), "
                             "else in the thread's scratch arena.")
      .def_property_readonly("core_requirements", &Kernel::coreRequirements,
                             "BLOCKC_REQUIRES_* bits (runtime.h): units only some cores have, "
                             "such as\nthe SpacemiT IME, which the launcher runs the kernel on.")
      .def("__repr__", &Kernel::repr)
      .def("launch", &Kernel::launch, py::arg("grid"), py::arg("args"),
           py::arg("extents") = py::none(), py::arg("num_threads") = 0,
           R"(Runs every program of `grid` once and returns when all have finished.

grid: (x, y, z) program counts (1 or 2 counts: the others are 1).
args: one value per parameter, in order: for a pointer, an int address
  (array.ctypes.data, tensor.data_ptr(); 0 is allowed), an object with the
  buffer protocol (a numpy array: its first element), a torch tensor (its
  data_ptr()) or an object with __array_interface__; an int for an
  integer parameter (it must fit the type), a float or int for a float
  parameter, a bool (or 0, 1) for i1.
extents: for a kernel with checks_bounds, the size IN BYTES of the buffer
  behind each pointer argument, in parameter order (arr.nbytes); ignored
  otherwise.
num_threads: > 0 overrides BLOCKC_NUM_THREADS and OpenMP's default.

The launch options are the defaults overridden by the BLOCKC_* environment
variables, read at each launch. The GIL is released while the programs run.

Returns None, or for a bounds-checked kernel that found an out-of-bounds
access or a false assert, a dict describing the first (its program stopped
there and later programs returned at once: the outputs are incomplete):
line, column (of the op in the Block IR), kind ("load", "store" (a store or
an atomic) or "assert"), is_store (kind == "store"), argument (the
parameter's index, -1 if unknown or an assert), pid (x, y, z), offset and
extent (in elements of the argument).

Raises LaunchError for a wrong argument count or value, a bad BLOCKC_*
variable, or a launch the launcher refused (its blockc_last_error()).)");
}

} // namespace blockc::python

//===- Errors.cpp ---------------------------------------------------------===//
#include "Errors.h"

namespace py = pybind11;

namespace blockc::python {

namespace {

// The types live as long as the process: the module is never unloaded, and a
// Python object destroyed by a static destructor after the interpreter has
// finalized would crash at exit.
PyObject *compileErrorType = nullptr;
PyObject *launchErrorType = nullptr;

PyObject *newExceptionType(py::module_ &module, const char *name, const char *doc, PyObject *base) {
  std::string qualified = std::string(PyModule_GetName(module.ptr())) + "." + name;
  PyObject *type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (!type)
    throw py::error_already_set();
  // add_object steals nothing: the module and this file each hold a reference.
  module.add_object(name, py::handle(type));
  return type;
}

} // namespace

void registerExceptions(py::module_ &module) {
  compileErrorType = newExceptionType(
      module, "CompileError",
      "The Block IR did not compile.\n\n"
      "str(e) is the diagnostic as the blockc command prints it: file:line:col, the\n"
      "source line and a caret under the column. The attributes `message` (the text\n"
      "after 'error: '), `line` and `column` (1-based; 0 when the error has no\n"
      "location, such as an unknown target) let a frontend that generated the\n"
      "Block IR point at its own source instead.",
      PyExc_Exception);
  launchErrorType = newExceptionType(
      module, "LaunchError",
      "A kernel could not be launched: an argument did not convert to its parameter's\n"
      "type, a BLOCKC_* environment variable or launch option was wrong, or the\n"
      "launcher refused the launch (str(e) is then its blockc_last_error() text).\n"
      "No program of the kernel ran, except for launcher errors that say otherwise.",
      PyExc_RuntimeError);
}

void throwCompileError(const Diagnostic &diagnostic, const SourceFile &file) {
  std::string text = formatDiagnostic(diagnostic, &file);
  // A traceback ends the message with its own line break.
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  py::object error = py::reinterpret_borrow<py::object>(compileErrorType)(text);
  error.attr("message") = diagnostic.message;
  error.attr("line") = diagnostic.loc.line;
  error.attr("column") = diagnostic.loc.col;
  PyErr_SetObject(compileErrorType, error.ptr());
  throw py::error_already_set();
}

void throwLaunchError(const std::string &message) {
  PyErr_SetString(launchErrorType, message.c_str());
  throw py::error_already_set();
}

} // namespace blockc::python

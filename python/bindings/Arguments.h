//===- Arguments.h - Python values as kernel arguments ----------*- C++ -*-===//
//
// A launch hands the kernel one pointer per parameter, to the parameter's
// value stored in its own width (runtime.h): a pointer parameter's slot holds
// the address, an i1 one byte 0 or 1, an f16 or bf16 its 16-bit pattern. A
// Python value converts into such a slot only if it fits the type: a launch
// with an argument silently truncated or rounded to infinity would compute
// something other than what the caller wrote.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Types.h"

#include <Python.h>
#include <cstdint>
#include <string>

namespace blockc::python {

/// The storage of one argument; the kernel reads its type's width from the
/// start of it.
struct ArgumentSlot {
  alignas(8) unsigned char bytes[8];
};

/// Stores `value` as a value of `type` (a kernel parameter's: a scalar or a
/// pointer) into `slot`. Needs the GIL. On failure returns false with what
/// was wrong in `error` ("5000000000 does not fit i32"), the Python error
/// indicator cleared.
bool convertArgument(PyObject *value, const Type &type, ArgumentSlot &slot, std::string &error);

/// A Python int (or an object with __index__, such as a numpy integer) as an
/// int64; false for anything else or a value out of range.
bool toInt64(PyObject *value, int64_t &out);

/// "got float 2.5", "got None", "got numpy.ndarray": the end of a message
/// saying what was expected.
std::string got(PyObject *value);

} // namespace blockc::python

//===- Arguments.cpp ------------------------------------------------------===//
#include "Arguments.h"

#include "blockc/frontend/SmallFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace blockc::python {

namespace {

/// A new reference to `value` as a Python int: ints themselves, and objects
/// that say they are integers through __index__ (numpy's). Floats are not:
/// 2.5 for an i32 is a mistake, not a 2. Null, with no error set, otherwise.
PyObject *asInteger(PyObject *value) {
  if (PyLong_Check(value)) {
    Py_INCREF(value);
    return value;
  }
  if (PyFloat_Check(value) || !PyIndex_Check(value))
    return nullptr;
  PyObject *index = PyNumber_Index(value);
  if (!index)
    PyErr_Clear();
  return index;
}

/// str(value), or its type's name when even that fails.
std::string describe(PyObject *value) {
  std::string text;
  if (PyObject *str = PyObject_Str(value)) {
    if (const char *utf8 = PyUnicode_AsUTF8(str))
      text = utf8;
    Py_DECREF(str);
  }
  PyErr_Clear();
  return text.empty() ? Py_TYPE(value)->tp_name : text;
}

template <typename T> void store(ArgumentSlot &slot, T value) {
  static_assert(sizeof(T) <= sizeof slot.bytes);
  std::memcpy(slot.bytes, &value, sizeof value);
}

/// A new reference to the address an array object gives in Python: a torch
/// tensor's data_ptr(), or __array_interface__'s data[0] (any other array).
/// Null, with no error set, for an object that has neither.
PyObject *addressOfArrayObject(PyObject *value) {
  static PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  static PyObject *arrayInterface = PyUnicode_InternFromString("__array_interface__");
  if (PyObject *method = PyObject_GetAttr(value, dataPtr)) {
    PyObject *address = PyObject_CallNoArgs(method);
    Py_DECREF(method);
    if (!address)
      PyErr_Clear();
    return address;
  }
  PyErr_Clear();
  PyObject *interface = PyObject_GetAttr(value, arrayInterface);
  if (!interface) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject *address = nullptr;
  PyObject *data = PyDict_Check(interface) ? PyDict_GetItemString(interface, "data") : nullptr;
  if (data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) >= 1) {
    address = PyTuple_GET_ITEM(data, 0);
    Py_INCREF(address);
  }
  Py_DECREF(interface);
  return address;
}

bool convertPointer(PyObject *value, ArgumentSlot &slot, std::string &error) {
  // A numpy array gives its first element's address through the buffer
  // protocol in about 0.1 us, where Python's __array_interface__ builds a
  // dict (1 us) for each pointer of each launch.
  if (!PyLong_Check(value) && PyObject_CheckBuffer(value)) {
    Py_buffer view;
    if (PyObject_GetBuffer(value, &view, PyBUF_STRIDED_RO) != 0) {
      PyErr_Clear();
      error = "expected an address as an int or an object with a strided buffer (a numpy "
              "array), " +
              got(value);
      return false;
    }
    store(slot, uintptr_t(view.buf));
    PyBuffer_Release(&view);
    return true;
  }
  // A torch tensor, or another array: asked here rather than in Python, where
  // the launch would build a list of addresses first.
  PyObject *integer = PyLong_Check(value) ? nullptr : addressOfArrayObject(value);
  if (integer) {
    PyObject *index = asInteger(integer);
    Py_DECREF(integer);
    integer = index;
    if (!integer) {
      error = "expected data_ptr() or __array_interface__ to give an int address, " + got(value);
      return false;
    }
  } else {
    integer = asInteger(value);
  }
  if (!integer) {
    error = "expected an address as an int (such as array.ctypes.data or tensor.data_ptr()), "
            "a numpy array, a torch tensor or an object with __array_interface__, " +
            got(value);
    return false;
  }
  unsigned long long address = PyLong_AsUnsignedLongLong(integer);
  bool ok = !PyErr_Occurred();
  PyErr_Clear();
  if (!ok)
    error = describe(integer) + " is not an address: expected an int in [0, 2**64)";
  Py_DECREF(integer);
  if (ok)
    store(slot, uintptr_t(address));
  return ok;
}

bool convertBool(PyObject *value, ArgumentSlot &slot, std::string &error) {
  int truth = -1;
  if (PyBool_Check(value)) {
    truth = value == Py_True;
  } else if (std::strcmp(Py_TYPE(value)->tp_name, "numpy.bool_") == 0 ||
             std::strcmp(Py_TYPE(value)->tp_name, "numpy.bool") == 0) {
    // numpy warns that its bool's __index__ is going away: ask for its truth.
    // (NumPy 1 names the type numpy.bool_, NumPy 2 numpy.bool.)
    truth = PyObject_IsTrue(value);
    PyErr_Clear();
  } else if (PyObject *integer = asInteger(value)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(integer, &overflow);
    PyErr_Clear();
    Py_DECREF(integer);
    if (overflow || (v != 0 && v != 1)) {
      error = describe(value) + " does not fit i1: expected True, False, 0 or 1";
      return false;
    }
    truth = int(v);
  }
  if (truth < 0) {
    error = "expected a bool, " + got(value);
    return false;
  }
  store(slot, uint8_t(truth));
  return true;
}

bool convertInteger(PyObject *value, ScalarKind kind, ArgumentSlot &slot, std::string &error) {
  PyObject *integer = asInteger(value);
  if (!integer) {
    error = "expected an int, " + got(value);
    return false;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(integer, &overflow);
  PyErr_Clear();
  unsigned bits = bitWidth(kind);
  long long max = bits == 64 ? std::numeric_limits<long long>::max() : (1LL << (bits - 1)) - 1;
  long long min = -max - 1;
  bool fits = !overflow && v >= min && v <= max;
  if (!fits)
    error = describe(integer) + " does not fit " + std::string(scalarKindName(kind));
  Py_DECREF(integer);
  if (!fits)
    return false;
  switch (kind) {
  case ScalarKind::I8:
    store(slot, int8_t(v));
    break;
  case ScalarKind::I16:
    store(slot, int16_t(v));
    break;
  case ScalarKind::I32:
    store(slot, int32_t(v));
    break;
  default:
    store(slot, int64_t(v));
    break;
  }
  return true;
}

bool convertFloat(PyObject *value, ScalarKind kind, ArgumentSlot &slot, std::string &error) {
  std::string name(scalarKindName(kind));
  double d;
  if (PyFloat_Check(value)) {
    d = PyFloat_AS_DOUBLE(value);
  } else if (PyLong_Check(value) || PyIndex_Check(value) ||
             (Py_TYPE(value)->tp_as_number && Py_TYPE(value)->tp_as_number->nb_float)) {
    // Ints, numpy's floats and integers: whatever float() accepts of a number.
    d = PyFloat_AsDouble(value);
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      error = describe(value) + " does not fit " + name;
      return false;
    }
  } else {
    error = "expected a float or an int, " + got(value);
    return false;
  }
  bool overflowed = false;
  switch (kind) {
  case ScalarKind::F64:
    store(slot, d);
    break;
  case ScalarKind::F32: {
    float f = float(d);
    overflowed = std::isinf(f);
    store(slot, f);
    break;
  }
  case ScalarKind::F16: {
    uint16_t h = toHalfBits(d);
    overflowed = (h & 0x7fff) == 0x7c00;
    store(slot, h);
    break;
  }
  default: {
    uint16_t h = toBFloat16Bits(d);
    overflowed = (h & 0x7fff) == 0x7f80;
    store(slot, h);
    break;
  }
  }
  // Infinity itself is a value of every float type; a finite number that
  // rounds to it is not.
  if (overflowed && std::isfinite(d)) {
    error = describe(value) + " does not fit " + name + " (it would round to infinity)";
    return false;
  }
  return true;
}

} // namespace

std::string got(PyObject *value) {
  if (value == Py_None)
    return "got None";
  std::string text = describe(value);
  std::string type = Py_TYPE(value)->tp_name;
  // An array's text would bury the message.
  if (text.size() > 40 || text.find('\n') != std::string::npos || text == type)
    return "got " + type;
  return "got " + type + " " + text;
}

bool toInt64(PyObject *value, int64_t &out) {
  PyObject *integer = asInteger(value);
  if (!integer)
    return false;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(integer, &overflow);
  PyErr_Clear();
  Py_DECREF(integer);
  out = v;
  return !overflow;
}

bool convertArgument(PyObject *value, const Type &type, ArgumentSlot &slot, std::string &error) {
  if (type.isPointer())
    return convertPointer(value, slot, error);
  if (type.kind() == ScalarKind::I1)
    return convertBool(value, slot, error);
  if (type.isInteger())
    return convertInteger(value, type.kind(), slot, error);
  return convertFloat(value, type.kind(), slot, error);
}

} // namespace blockc::python

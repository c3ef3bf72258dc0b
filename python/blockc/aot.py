"""Launching kernels compiled ahead of time, with blockc's runtime library alone.

On a board without LLVM (or without blockc's compiler), a kernel compiled on the
workstation by `python -m triton.tools.compile` (OUT.so and OUT.json) launches
with the line that launches it through the JIT:

    import blockc.aot
    kernel = blockc.aot.load("out/scaled_add_256.json")
    kernel[grid](x, y, out, n, 3.0, BLOCK=256)

Arrays are numpy arrays or CPU torch tensors (anything with data_ptr() or an
__array_interface__); a tl.constexpr argument may be left out, and if given must
equal the value the kernel was compiled with. The library loads libblockc_runtime.so
(BLOCKC_RUNTIME_LIBRARY names it; else the one beside this build's package, else
the system's) and never imports blockc._core.
"""
import ctypes
import json
import math
import os
import struct

__all__ = ["load", "AotKernel", "AotError"]


class AotError(RuntimeError):
    """A kernel that cannot be loaded or launched, with the reason."""


class _Grid(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int64), ("y", ctypes.c_int64), ("z", ctypes.c_int64)]


class _KernelInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint64), ("name", ctypes.c_char_p),
                ("scratch_bytes", ctypes.c_uint64), ("core_requirements", ctypes.c_uint64)]


_RUNTIME = None


def _runtime():
    """libblockc_runtime.so, loaded once, its symbols global: a kernel .so takes
    blockc_scratch_arena from it."""
    global _RUNTIME
    if _RUNTIME is None:
        here = os.path.dirname(os.path.abspath(__file__))
        candidates = [os.environ.get("BLOCKC_RUNTIME_LIBRARY", ""),
                      os.path.join(here, "..", "..", "runtime", "libblockc_runtime.so"),
                      "libblockc_runtime.so"]
        errors = []
        for candidate in filter(None, candidates):
            if os.sep in candidate and not os.path.exists(candidate):
                continue
            try:
                library = ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError as e:
                errors.append(str(e))
        else:
            raise AotError("cannot load blockc's runtime library (libblockc_runtime.so): set "
                           "BLOCKC_RUNTIME_LIBRARY to its path" +
                           (f" ({'; '.join(errors)})" if errors else ""))
        library.blockc_launch_kernel.restype = ctypes.c_int
        library.blockc_launch_kernel.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                                 _Grid, ctypes.c_void_p,
                                                 ctypes.POINTER(_KernelInfo)]
        library.blockc_last_error.restype = ctypes.c_char_p
        _RUNTIME = library
    return _RUNTIME


def _float_bits(value, fmt, bits_type):
    return bits_type.from_buffer_copy(struct.pack(fmt, value))


def _bfloat16_bits(value):
    # Round f32's pattern to nearest even, as blockc's own conversion does.
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    if math.isnan(value):
        return ctypes.c_uint16(0x7FC0)
    return ctypes.c_uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


_INTEGERS = {"i1": (ctypes.c_uint8, 0, 1), "i8": (ctypes.c_int8, -2**7, 2**7 - 1),
             "i16": (ctypes.c_int16, -2**15, 2**15 - 1), "i32": (ctypes.c_int32, -2**31, 2**31 - 1),
             "i64": (ctypes.c_int64, -2**63, 2**63 - 1)}


def _address(value):
    if hasattr(value, "data_ptr"):
        device = getattr(value, "device", None)
        if device is not None and str(device) != "cpu":
            raise TypeError(f"is a tensor on '{device}': pass a CPU tensor")
        return value.data_ptr()
    interface = getattr(value, "__array_interface__", None)
    if interface is None:
        raise TypeError(f"is a {type(value).__name__}; a pointer parameter takes a numpy array "
                        "or a CPU tensor")
    if interface["data"][1]:
        raise TypeError("is a read-only array; the kernel may store through it")
    return interface["data"][0]


def _slot(type_text, value):
    """A ctypes object holding `value` as the kernel reads a parameter of `type_text`."""
    if type_text.startswith("ptr<"):
        return ctypes.c_void_p(_address(value))
    if type_text in _INTEGERS:
        ctype, low, high = _INTEGERS[type_text]
        if isinstance(value, float) or not hasattr(value, "__index__"):
            raise TypeError(f"expected an int for {type_text}, got {type(value).__name__} {value!r}")
        integer = value.__index__()
        if not low <= integer <= high:
            raise TypeError(f"{integer} does not fit {type_text}")
        return ctype(integer)
    if type_text in ("f32", "f64", "f16", "bf16"):
        number = float(value)
        if type_text == "f64":
            return ctypes.c_double(number)
        # A finite value beyond f32 is refused, as the JIT's launch does, not
        # rounded to infinity (f16 packing refuses its own overflow).
        try:
            struct.pack("<f", number)
        except OverflowError:
            raise OverflowError(f"{number!r} does not fit {type_text}") from None
        if type_text == "f32":
            return ctypes.c_float(number)
        if type_text == "f16":
            return _float_bits(number, "<e", ctypes.c_uint16)
        return _bfloat16_bits(number)
    raise TypeError(f"has type {type_text}, which this loader does not know")


class AotKernel:
    """One specialisation of a kernel, compiled ahead of time: launch it as
    `kernel[grid](*args, **kwargs)`, with the JIT's launch line."""

    def __init__(self, manifest_path):
        try:
            with open(manifest_path) as f:
                manifest = json.load(f)
        except (OSError, ValueError) as e:
            raise AotError(f"{manifest_path}: cannot read the kernel's manifest: {e}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != "blockc-aot-1":
            raise AotError(f"{manifest_path}: not a manifest of python -m triton.tools.compile "
                           "(format blockc-aot-1)")
        self.name = manifest["kernel"]
        self.parameters = manifest["parameters"]
        self.constexprs = manifest["constexprs"]
        self.arguments = [tuple(entry) for entry in manifest["arguments"]]
        path = os.path.join(os.path.dirname(os.path.abspath(manifest_path)), manifest["library"])
        runtime = _runtime()
        try:
            library = ctypes.CDLL(path)
        except OSError as e:
            raise AotError(f"{path}: cannot load the kernel (compiled for target "
                           f"'{manifest.get('target')}'): {e}") from None
        self._runtime, self._library = runtime, library
        try:
            self._function = ctypes.cast(library[self.name], ctypes.c_void_p)
            scratch = ctypes.c_uint64.in_dll(library, "blockc_scratch_bytes_" + self.name).value
            needs = ctypes.c_uint64.in_dll(library, "blockc_core_requirements_" + self.name).value
        except (AttributeError, ValueError) as e:
            raise AotError(f"{path} lacks kernel '{self.name}': {e}") from None
        self._name_bytes = self.name.encode()
        self._info = _KernelInfo(ctypes.sizeof(_KernelInfo), self._name_bytes, scratch, needs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def run(self, *args, grid, **kwargs):
        if len(args) > len(self.parameters):
            raise TypeError(f"{self.name}() takes {len(self.parameters)} arguments, "
                            f"{len(args)} given")
        bound = dict(zip(self.parameters, args))
        for key, value in kwargs.items():
            if key not in self.parameters or key in bound:
                raise TypeError(f"{self.name}(): unexpected or repeated argument '{key}'")
            bound[key] = value
        for key, value in self.constexprs.items():
            if key in bound and bound[key] != value:
                raise TypeError(f"{self.name}(): '{key}' was compiled as {value!r}; this "
                                f"launch gives {bound[key]!r} (compile that specialisation too)")
        slots = []
        for name, type_text in self.arguments:
            if name not in bound:
                raise TypeError(f"{self.name}(): missing argument '{name}'")
            try:
                slots.append(_slot(type_text, bound[name]))
            except (TypeError, ValueError, OverflowError) as e:
                raise TypeError(f"{self.name}(): argument '{name}' {e}") from None
        pointers = (ctypes.c_void_p * max(1, len(slots)))(
            *[ctypes.cast(ctypes.pointer(slot), ctypes.c_void_p) for slot in slots])
        if callable(grid):
            grid = grid({**self.constexprs, **bound})
        grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))
        status = self._runtime.blockc_launch_kernel(self._function, pointers, _Grid(*grid), None,
                                                    ctypes.byref(self._info))
        if status != 0:
            raise AotError(f"launch of {self.name} failed: "
                           f"{self._runtime.blockc_last_error().decode(errors='replace')}")


def load(manifest_path):
    """The kernel whose OUT.json `python -m triton.tools.compile` wrote."""
    return AotKernel(manifest_path)

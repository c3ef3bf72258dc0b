"""`@triton.jit` and `kernel[grid](...)`: specialise, translate, compile, launch.

A launch binds the arguments as Python binds a call, then types each runtime
argument as Triton does (int by value, float as fp32, tensors as pointers to
their dtype; an int equal to 1 becomes a constexpr). That signature and the
constexpr values select a compiled kernel from the function's cache; a miss
translates the function (frontend/codegen.py) and compiles the Block IR
through blockc's JIT, whose disk cache (BLOCKC_CACHE_DIR) is keyed on that
text, so the same kernel compiles once per machine. The launch itself runs in
C++ with the GIL released.
"""

import hashlib
import inspect
import linecache
import numbers
import os
import re
import sys
import textwrap

from ...frontend import dtypes
from ...frontend.codegen import Translator, Param, constexpr_key
from ...frontend.errors import CompilationError
from .. import language
from .reinterpret import unwrapped
from .launcher import (MAX_PROGRAMS, UNKEYED, environment_flag, is_read_only, make_binder,
                       make_key, plain_grid)

# Launch options of GPU backends: meaningful there, accepted and ignored here
# so that scripts written for a GPU run unchanged.
GPU_LAUNCH_OPTIONS = frozenset({
    "num_warps", "num_stages", "num_ctas", "maxnreg", "waves_per_eu", "matrix_instr_nonkdim",
    "kpack", "enable_fp_fusion", "launch_cooperative_grid", "launch_pdl", "num_consumer_groups",
    "num_buffers_warp_spec", "enable_warp_specialization", "stream", "device", "warmup",
    "sanitize_overflow", "instrumentation_mode", "extern_libs", "debug",
})

_TORCH_DTYPES = {
    "float16": dtypes.float16, "bfloat16": dtypes.bfloat16, "float32": dtypes.float32,
    "float64": dtypes.float64, "int8": dtypes.int8, "int16": dtypes.int16,
    "int32": dtypes.int32, "int64": dtypes.int64, "bool": dtypes.int1, "uint8": dtypes.uint8,
    "uint16": dtypes.uint16, "uint32": dtypes.uint32, "uint64": dtypes.uint64,
    "half": dtypes.float16, "float": dtypes.float32, "double": dtypes.float64,
    "float8_e4m3fn": dtypes.float8e4nv, "float8_e5m2": dtypes.float8e5,
    "float8_e4m3fnuz": dtypes.float8e4b8, "float8_e5m2fnuz": dtypes.float8e5b16,
}


def _core():
    from ... import _core as core
    return core


class KernelArgumentError(TypeError):
    """An argument a kernel cannot take, named with the kernel's place."""


class DeviceAssertionError(AssertionError):
    """A tl.device_assert (or `assert`) that failed in a kernel compiled with
    TRITON_DEBUG=1, debug=True or check_bounds=True."""


class BoundsError(IndexError):
    """A load or store outside its argument's buffer, found by a kernel
    compiled with bounds checks (TRITON_DEBUG=1 or check_bounds=True)."""


def _is_tensor(value):
    return hasattr(value, "data_ptr") or hasattr(value, "__array_interface__")


_DTYPE_OF = {}


def _tensor_dtype(value):
    """(dtype or None, its name) of a numpy array or torch tensor, cached by
    the library's dtype object: a launch asks once per argument."""
    found = _DTYPE_OF.get(value.dtype)
    if found is None and isinstance(value.dtype, dtypes.dtype):  # triton.reinterpret's
        found = _DTYPE_OF[value.dtype] = (value.dtype, str(value.dtype))
    if found is None:
        name = str(value.dtype).replace("torch.", "")
        found = _DTYPE_OF[value.dtype] = (_TORCH_DTYPES.get(name), name)
    return found


_POINTERS = {}


def _pointer_to(ty):
    if ty not in _POINTERS:
        _POINTERS[ty] = dtypes.pointer_type(ty)
    return _POINTERS[ty]


def _device_of(value):
    device = getattr(value, "device", None)
    return getattr(device, "type", "cpu") if device is not None else "cpu"


def _address(value):
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    return value.__array_interface__["data"][0]


def _extent_bytes(value):
    """Bytes from the tensor's first element to the end of its memory, which
    a bounds-checked kernel may touch."""
    value = unwrapped(value)
    if hasattr(value, "data_ptr"):
        storage = value.untyped_storage() if hasattr(value, "untyped_storage") else \
            value.storage()
        start = storage.data_ptr()
        return max(0, start + storage.nbytes() - value.data_ptr())
    import numpy
    root = value
    while isinstance(getattr(root, "base", None), numpy.ndarray):
        root = root.base
    # NumPy 2 moved byte_bounds into numpy.lib.array_utils (1.24 has only the old name).
    array_utils = getattr(numpy.lib, "array_utils", None)
    byte_bounds = array_utils.byte_bounds if array_utils else numpy.byte_bounds
    low, high = byte_bounds(root)
    return max(0, high - _address(value))


class CompiledKernel:
    """One specialisation, compiled: what `kernel[grid](...)` returns."""

    def __init__(self, name, translation, kernel, runtime_params):
        self.name = name
        self.translation = translation
        self.kernel = kernel
        self.runtime_params = runtime_params
        # The arguments a launch must find writeable.
        self.stored_arguments = tuple(i for i, p in enumerate(runtime_params)
                                      if p.name in translation.stored_params)
        self.pointer_params = tuple(p.type.is_ptr() for p in runtime_params)
        self.asm = {"bir": translation.text}
        self.metadata = {"name": name, "target": "host",
                         "scratch_bytes": kernel.scratch_bytes if kernel else 0}

    def python_place(self, bir_line):
        places = self.translation.places
        if 1 <= bir_line <= len(places) and places[bir_line - 1]:
            return places[bir_line - 1]
        return None


class JITFunction:
    """A `@triton.jit` function: launched with `kernel[grid](...)`, or called
    from another one (then translated inline)."""

    __blockc_jit__ = True

    def __init__(self, fn, do_not_specialize=None, do_not_specialize_on_alignment=None,
                 debug=None, noinline=None, repr=None, launch_metadata=None):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__globals__ = fn.__globals__
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.defaults = {name: p.default for name, p in self.signature.parameters.items()
                         if p.default is not inspect.Parameter.empty}
        if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
               for p in self.signature.parameters.values()):
            raise TypeError(f"{fn.__name__}: a @triton.jit function takes named parameters "
                            "only (no *args, **kwargs or positional-only ones)")
        self.constexprs = {name for name, p in self.signature.parameters.items()
                           if _is_constexpr_annotation(p.annotation)}
        names = do_not_specialize or ()
        self.do_not_specialize = {self.arg_names[n] if isinstance(n, int) else n for n in names}
        self.debug = debug
        self.cache = {}
        # The launch's fast path (launcher.py): a key made of the arguments'
        # types alone to the compiled kernel and the positions of its runtime
        # arguments, filled by the full specialisation the first time.
        self.launch_cache = {}
        self._bind_fast = make_binder(self.signature)
        self._key = make_key(self.arg_names, self.constexprs, self.do_not_specialize)

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is a @triton.jit function: launch it with "
                           f"{self.__name__}[grid](...), or call it from another one")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self._launch(grid, args, kwargs)

    @property
    def src(self):
        """The function's source from its `def` on, as Triton's `JITFunction.src`;
        "" where Python cannot find it (a function made by exec without a file)."""
        try:
            text = textwrap.dedent(inspect.getsource(self.fn))
        except (OSError, TypeError):
            return ""
        start = re.search(r"^def\s+\w+\s*\(", text, re.MULTILINE)
        return text[start.start():] if start else text

    @property
    def cache_key(self):
        """A hash of the source and of the @triton.jit functions it names, as
        Triton's: libraries key code they generate on it (FlagGems'
        pointwise_dynamic). Globals that are not functions are left out; the
        launch watches those itself."""
        return _source_key(self, set())

    @property
    def place(self):
        """FILE:LINE of the `def`, for messages about a launch."""
        from ...frontend.codegen import parse
        try:
            parsed = parse(self.fn)
            file, line, _ = parsed.place(parsed.node)
            return f"{file}:{line}"
        except CompilationError:
            code = self.fn.__code__
            return f"{code.co_filename}:{code.co_firstlineno}"

    # --- launching --------------------------------------------------------

    def run(self, *args, grid, warmup=False, **kwargs):
        if warmup:
            return self._run(args, kwargs, grid, warmup=True)
        return self._launch(grid, args, kwargs)

    def _launch(self, grid, args, kwargs):
        """A launch: the fast path where the arguments' key finds a compiled
        kernel (bounds checks aside), else the full one (_run)."""
        if "warmup" in kwargs and "warmup" not in self.signature.parameters:
            # kernel[grid](..., warmup=True), as run(..., warmup=True): compile, no launch.
            kwargs = dict(kwargs)
            if kwargs.pop("warmup"):
                return self._run(args, kwargs, grid, warmup=True)
        bind = self._bind_fast
        try:
            values, options = bind(*args, **kwargs) if bind is not None else (None, None)
        except TypeError:
            values = None  # _run names what is wrong
        if values is None or (options and not options.keys() <= _LAUNCH_OPTION_NAMES) or \
                (options.get("check_bounds", self.debug) if options else self.debug) or \
                environment_flag("TRITON_DEBUG"):
            return self._run(args, kwargs, grid, warmup=False)
        try:
            entry = self.launch_cache.get(self._key(False, *values))
        except TypeError:  # a constexpr that cannot be hashed
            entry = None
        if entry is None or not entry[0].translation.watched.unchanged():
            return self._run(args, kwargs, grid, warmup=False)
        compiled, positions = entry
        if callable(grid):
            grid = grid(dict(zip(self.arg_names, values)))
        counts = plain_grid(grid) or _grid(grid, None, self)
        runtime_values = [values[i] for i in positions]
        for index in compiled.stored_arguments:
            if is_read_only(runtime_values[index]):
                raise self._read_only_error(compiled.runtime_params[index].name)
        threads = (options.get("num_cpu_threads") or 0) if options else 0
        report = _launch(compiled, counts, runtime_values, None, threads)
        if report:
            raise self._bounds_error(compiled, report)
        return compiled

    def _run(self, args, kwargs, grid, warmup):
        """The full launch: bind with Python's rules (and its messages), type
        every argument, compile on a miss."""
        options, kwargs = _split_options(kwargs, self.signature.parameters) if kwargs else \
            ({}, kwargs)
        bound = self._bind(args, kwargs)
        check_bounds = bool(options.get("check_bounds", self.debug) or
                            environment_flag("TRITON_DEBUG"))
        key = self._launch_key(bound, check_bounds)
        entry = self.launch_cache.get(key) if key is not None else None
        values = list(bound.values())
        if entry is not None and entry[0].translation.watched.unchanged():
            compiled, positions = entry
            runtime_values = [values[i] for i in positions]
        else:
            compiled, runtime_values = self._specialise(bound, check_bounds)
            if key is not None:
                self.launch_cache[key] = (compiled, self._runtime_positions(bound, compiled))
        if warmup:
            return compiled
        grid = _grid(grid, bound, self)
        for index in compiled.stored_arguments:
            if is_read_only(runtime_values[index]):
                raise self._read_only_error(compiled.runtime_params[index].name)
        extents = [_extent_bytes(value) for is_pointer, value in
                   zip(compiled.pointer_params, runtime_values) if is_pointer] \
            if check_bounds else None
        threads = options.get("num_cpu_threads") or 0
        report = _launch(compiled, grid, runtime_values, extents, threads)
        if report:
            raise self._bounds_error(compiled, report)
        return compiled

    def _launch_key(self, arguments, check_bounds):
        """What the specialisation of these arguments depends on, computed
        from their types alone (launcher.py's key), or None where only the
        full specialisation can say (tuples, descriptors, unusual objects)."""
        key = self._key(check_bounds, *arguments.values())
        if any(part is UNKEYED for part in key):
            return None
        try:
            hash(key)
        except TypeError:  # a constexpr that cannot be hashed
            return None
        return key

    def _runtime_positions(self, arguments, compiled):
        """Where the compiled kernel's runtime parameters are among the
        arguments, in order: those the full specialisation did not make
        constexprs."""
        names = {param.name for param in compiled.runtime_params}
        return [i for i, name in enumerate(arguments) if name in names]

    def warmup(self, *args, grid=None, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def bir(self, *args, **kwargs):
        """The Block IR text of the specialisation these arguments select."""
        _, kwargs = _split_options(kwargs, self.signature.parameters)
        params = [self._param(name, value) for name, value in self._bind(args, kwargs).items()]
        return Translator(language).translate_kernel(self.fn, params).text

    def _bind(self, args, kwargs):
        """The arguments by parameter name, defaults applied: Python's
        binding, without inspect's cost on every launch."""
        names = self.arg_names
        if len(args) <= len(names):
            arguments = dict(zip(names, args))
            for name, value in kwargs.items():
                if name in arguments or name not in self.signature.parameters:
                    break
                arguments[name] = value
            else:
                for name in names[len(args):]:
                    if name not in arguments:
                        default = self.defaults.get(name, inspect.Parameter.empty)
                        if default is inspect.Parameter.empty:
                            break
                        arguments[name] = default
                else:
                    return {name: arguments[name] for name in names}
        # Something is wrong: inspect says what.
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise KernelArgumentError(f"{self.__name__} (defined at {self.place}"
                                      f"{_launch_place()}): {e}") from None
        bound.apply_defaults()
        return bound.arguments

    def _specialise(self, arguments, check_bounds):
        params, key, runtime_values = [], [], []
        for name, value in arguments.items():
            param = self._param(name, value)
            params.append(param)
            if param.constexpr:
                key.append((name, "c", constexpr_key(param.value)))
            elif param.items is not None:
                key.append((name, param.key()))
                runtime_values += _tuple_leaves(param, value)
            else:
                key.append((name, str(param.type)))
                runtime_values.append(value)
        key.append(("check_bounds", check_bounds))
        key = tuple(key)
        compiled = self.cache.get(key)
        # A global the translation read (a constant, a helper) that holds
        # something else now: the kernel as compiled would run the old value.
        if compiled is None or not compiled.translation.watched.unchanged():
            compiled = self._compile(params, check_bounds)
            self.cache[key] = compiled
        return compiled, runtime_values

    def _param(self, name, value):
        while hasattr(value, "__blockc_constexpr__") and not isinstance(value, type):
            value = value.value
        if name in self.constexprs:
            if _is_tensor(value) and not isinstance(value, type):
                raise self._argument_error(name, "is a tl.constexpr parameter but was given a "
                                           "tensor")
            return Param(name, constexpr=True, value=_plain(value))
        if value is None:
            return Param(name, constexpr=True, value=None)
        if _is_host_descriptor(value):
            # The base, then each dimension's size and stride: runtime values
            # (i64), as Triton passes them; the block shape specialises.
            rank = len(value.shape)
            items = [self._param(f"{name}.base", value.base)]
            items += [Param(f"{name}.shape{d}", dtypes.int64) for d in range(rank)]
            items += [Param(f"{name}.stride{d}", dtypes.int64) for d in range(rank)]
            return Param(name, items=items,
                         descriptor=(tuple(value.block_shape), value.padding))
        if isinstance(value, tuple):
            # Triton's tuple arguments: each element is typed as an argument.
            return Param(name, items=[self._param(f"{name}.{i}", v) for i, v in enumerate(value)])
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return Param(name, dtypes.int1)
        if _is_integer(value):
            value = int(value)
            if value == 1 and name not in self.do_not_specialize:
                return Param(name, constexpr=True, value=1)
            if -2**31 <= value < 2**31:
                return Param(name, dtypes.int32)
            if -2**63 <= value < 2**63:
                return Param(name, dtypes.int64)
            if value < 0:
                raise self._argument_error(name, f"{value} is below the range of a signed 64-bit "
                                           "integer (its least value is -2**63); no integer "
                                           "type holds it")
            if value >= 2**64:
                raise self._argument_error(name, f"{value} exceeds the range of an unsigned 64-bit "
                                           "integer (its greatest value is 2**64 - 1); no "
                                           "integer type holds it")
            raise self._argument_error(name, f"{value} fits only an unsigned 64-bit type (it is "
                                       "above 2**63 - 1), which Triton would give it and Block IR "
                                       "does not have yet")
        if isinstance(value, numbers.Real):
            return Param(name, dtypes.float32)
        if _is_tensor(value):
            device = _device_of(value)
            if device != "cpu":
                raise self._argument_error(name, f"is a tensor on '{device}'; blockc runs "
                                           "kernels on the CPU: pass a CPU tensor (.cpu()) or a "
                                           "numpy array")
            ty, type_name = _tensor_dtype(value)
            if ty is None:
                raise self._argument_error(name, f"is a tensor of {type_name}, which Triton "
                                           "kernels cannot take")
            if ty.missing:
                raise self._argument_error(name, f"is a {type_name} tensor: {ty.missing}")
            return Param(name, _pointer_to(ty))
        raise self._argument_error(name, f"is a {type(value).__name__}; a kernel takes tensors, "
                                   "numpy arrays, ints, floats, bools and None (or any value "
                                   "for a tl.constexpr parameter)")

    def _argument_error(self, name, what):
        return KernelArgumentError(f"{self.__name__} (defined at {self.place}{_launch_place()}): "
                                   f"argument '{_shown(name)}' {what}")

    def _read_only_error(self, name):
        return self._argument_error(name, "is a read-only array (its flags.writeable is False), "
                                    "and the kernel stores through it: pass a writeable array "
                                    "(np.array(x) copies one)")

    def _compile(self, params, check_bounds):
        translation = Translator(language, debug=check_bounds).translate_kernel(self.fn, params)
        _dump(translation)
        bir_name = f"{self.__name__}.bir"
        try:
            kernel = _core().compile(translation.text, translation.kernel_name,
                                     file_name=bir_name, check_bounds=check_bounds)
        except _core().CompileError as e:
            raise _python_error(e, translation) from None
        runtime = [leaf for p in params for leaf in p.leaves()]
        return CompiledKernel(self.__name__, translation, kernel, runtime)

    def _bounds_error(self, compiled, report):
        what = "store" if report["is_store"] else "load"
        place = compiled.python_place(report["line"])
        if report.get("kind") == "assert":
            message = compiled.translation.assert_messages.get(report["line"], "")
            line = linecache.getline(place[0], place[1]).rstrip() if place else ""
            where = f"{place[0]}:{place[1]}: " if place else ""
            return DeviceAssertionError(
                f"{where}device assertion failed in kernel {self.__name__}, program "
                f"{tuple(report['pid'])}" + (f": {message}" if message else "") +
                "; the launch stopped" + (f"\n  {line}" if line else ""))
        where = f"{place[0]}:{place[1]}: " if place else ""
        argument = report["argument"]
        names = [_shown(p.name) for p in compiled.runtime_params]
        target = f"'{names[argument]}'" if 0 <= argument < len(names) else "no argument's buffer"
        line = linecache.getline(place[0], place[1]).rstrip() if place else ""
        return BoundsError(
            f"{where}out-of-bounds {what} in kernel {self.__name__}, program "
            f"{tuple(report['pid'])}: element {report['offset']} of {target}, whose buffer has "
            f"{report['extent']} elements; the launch stopped" + (f"\n  {line}" if line else ""))


def _source_key(jit_fn, seen):
    seen.add(id(jit_fn))
    digest = hashlib.sha256(jit_fn.src.encode())
    for name in jit_fn.fn.__code__.co_names:
        called = jit_fn.__globals__.get(name)
        if isinstance(called, JITFunction) and id(called) not in seen:
            digest.update(_source_key(called, seen).encode())
    return digest.hexdigest()


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _shown(name):
    """A parameter's name as the user wrote it: the leaves of a tuple
    argument, named NAME.0, NAME.1.2 in Block IR, as NAME[0], NAME[1][2]."""
    base, *indices = name.split(".")
    return base + "".join(f"[{i}]" for i in indices)


def _launch_place():
    """", launched at FILE:LINE": the user's line that launched the kernel
    (the first frame outside this package), for messages about a launch."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE_DIR + os.sep):
        frame = frame.f_back
    return f", launched at {frame.f_code.co_filename}:{frame.f_lineno}" if frame else ""


def _launch(compiled, grid, values, extents, threads):
    torch = sys.modules.get("torch")
    if torch is not None and torch.autograd._profiler_enabled():
        with torch.profiler.record_function(compiled.name):
            return compiled.kernel.launch(grid, values, extents, threads)
    return compiled.kernel.launch(grid, values, extents, threads)


def _is_host_descriptor(value):
    from ..tools.tensor_descriptor import TensorDescriptor
    return isinstance(value, TensorDescriptor)


def _tuple_leaves(param, value):
    """The runtime values of a tuple argument (or a TensorDescriptor's), in
    its Params' order."""
    if param.descriptor is not None:
        value = (value.base, *value.shape, *value.strides)
    out = []
    for item, v in zip(param.items, value):
        if item.items is not None:
            out += _tuple_leaves(item, v)
        elif not item.constexpr:
            out.append(v)
    return out


_LAUNCH_OPTION_NAMES = GPU_LAUNCH_OPTIONS | {"num_cpu_threads", "check_bounds"}


def _split_options(kwargs, parameters):
    """Launch options out of the keyword arguments; a kernel parameter that
    shares an option's name (softmax's `num_stages`) stays an argument."""
    options = {}
    for name in list(kwargs):
        if name in parameters:
            continue
        if name in _LAUNCH_OPTION_NAMES:
            options[name] = kwargs.pop(name)
    return options, kwargs


def _grid(grid, arguments, fn):
    if callable(grid):
        grid = grid(dict(arguments))
    counts = plain_grid(grid)
    if counts is not None:
        return counts
    count = _grid_count(grid)
    if count is not None:
        grid = (grid,)
    elif isinstance(grid, (str, bytes)) or not hasattr(grid, "__iter__"):
        raise _grid_error(fn, f"the grid must be a tuple of 1 to 3 integers, or a function of "
                          f"the meta-parameters returning one; got {type(grid).__name__} "
                          f"{grid!r}")
    grid = tuple(grid)
    # Triton's launcher reads the first three entries; kernels written for it
    # sometimes pass (M, n, 1, 1). Entries past the third are accepted when
    # they are 1, the only value that changes nothing.
    while len(grid) > 3 and _grid_count(grid[-1]) == 1:
        grid = grid[:-1]
    if not 1 <= len(grid) <= 3:
        raise _grid_error(fn, f"the grid has {len(grid)} dimensions; it takes 1 to 3 (and "
                          "entries past the third only if they are 1)")
    counts = []
    for axis, entry in enumerate(grid):
        count = _grid_count(entry)
        if count is None:
            raise _grid_error(fn, f"grid[{axis}] is {type(entry).__name__} {entry!r}; a program "
                              "count must be an integer (an int, a numpy integer, or a 0-d "
                              "integer array or tensor)")
        if not 0 <= count <= MAX_PROGRAMS:
            raise _grid_error(fn, f"grid[{axis}] is {count}; a program count is 0 to "
                              f"{MAX_PROGRAMS} (2**31 - 1: program ids are int32)")
        counts.append(count)
    return tuple(counts) + (1,) * (3 - len(counts))


def _grid_count(entry):
    """An integer grid entry as an int; None for anything else. Floats are
    not counts (1000 / 256 would silently launch 3 programs), nor strings,
    nor bools."""
    if isinstance(entry, bool):
        return None
    if isinstance(entry, numbers.Integral):
        return int(entry)
    # numpy 0-d arrays and torch 0-d tensors of an integer dtype; numpy's
    # bool scalars (not Integral) end here too, and are refused by dtype.
    dtype = getattr(entry, "dtype", None)
    if dtype is None or getattr(entry, "ndim", None) != 0:
        return None
    name = str(dtype).replace("torch.", "")
    if not name.startswith(("int", "uint")):
        return None
    return int(entry.item())


def _grid_error(fn, what):
    return KernelArgumentError(f"{fn.__name__} (defined at {fn.place}{_launch_place()}): {what}")


def _is_integer(value):
    # numpy's integer scalars register as numbers.Integral; its bool_ does not.
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _plain(value):
    """numpy scalars as Python numbers, so that constexpr arithmetic and the
    cache key behave as for the numbers they are."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def _is_constexpr_annotation(annotation):
    if annotation is language.constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


def _python_error(error, translation):
    """blockc's diagnostic on the generated Block IR, moved to the Python
    line that produced the op."""
    places = translation.places
    line = getattr(error, "line", 0)
    place = places[line - 1] if 1 <= line <= len(places) else None
    if place:
        file, py_line, py_col = place
        return CompilationError(error.message, file, py_line, py_col,
                                linecache.getline(file, py_line).rstrip("\n"),
                                f"in the Block IR translated from it:\n{error}")
    return CompilationError(str(error).strip())


def _dump(translation):
    folder = os.environ.get("BLOCKC_DUMP_BIR")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256(translation.text.encode()).hexdigest()[:12]
    with open(os.path.join(folder, f"{translation.kernel_name}-{digest}.bir"), "w") as f:
        f.write(translation.text)


def jit(fn=None, *, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
        noinline=None, repr=None, launch_metadata=None, version=None):
    """`@triton.jit`, with or without arguments."""
    def decorate(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline)
    return decorate(fn) if fn is not None else decorate

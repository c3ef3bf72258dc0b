"""The translator: a `@triton.jit` function's syntax tree to Block IR text.

It walks the tree the way Triton's own code generator does. Python names are
bound to values in an environment; constexprs are ordinary Python values,
evaluated as Python evaluates them, so `if CONSTEXPR:` translates only the
branch taken and `BLOCK // 2` is a number. Tensors are Block IR values, and an
operation on one writes ops through the Builder (semantic.py), which applies
Triton's typing rules. Rebinding a name is Python's business; where control
flow joins (a loop's next iteration, the end of an `if`), the names that
changed become a `for`'s `iter` values or an `if`'s results, leaf by leaf.
`@jit` helpers are translated inline at each call, so each call site gets the
specialisation its arguments ask for.
"""

import ast
import builtins
import inspect
import sys
import textwrap
import types

from .dtypes import UnsupportedType, dtype
from .controlflow import ControlFlow
from .emitter import Emitter
from .errors import CompilationError, UnsupportedLanguageConstruct
from .semantic import Builder
from .values import tensor, block_pointer, is_builtin
from .watch import Watched


class ParsedFunction:
    """A Python function's syntax tree and where it came from."""

    def __init__(self, fn):
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise CompilationError(f"cannot read the source of {fn.__qualname__}: {e}")
        self.fn = fn
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.source = "".join(lines)
        self.first_line = first
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.lines = lines
        tree = ast.parse(textwrap.dedent(self.source))
        self.node = tree.body[0]
        if not isinstance(self.node, ast.FunctionDef):
            raise CompilationError(f"{fn.__qualname__} is not a plain function")

    def place(self, node):
        """(file, line, column) of a node, 1-based, in the real file."""
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        return self.file, self.first_line + line - 1, col + self.indent + 1

    def source_line(self, node):
        index = getattr(node, "lineno", 1) - 1
        return self.lines[index].rstrip("\n") if 0 <= index < len(self.lines) else None


_PARSED = {}


def parse(fn):
    key = (fn, getattr(fn, "__code__", None))
    if key not in _PARSED:
        _PARSED[key] = ParsedFunction(fn)
    return _PARSED[key]


class _Frame:
    """One function being translated: the kernel, or an inlined helper."""

    def __init__(self, parsed, env, call_node):
        self.parsed = parsed
        self.env = env
        self.call_node = call_node
        self.returned = False
        self.return_value = None
        # The statements that run after the one being translated, up to the
        # end of the function; None inside a counted loop's body, which a
        # return cannot leave.
        self.tail = []
        self.globals = parsed.fn.__globals__
        # The cells, not their values: a launch checks what they hold now.
        code = parsed.fn.__code__
        self.closure = dict(zip(code.co_freevars, parsed.fn.__closure__ or ()))


class Param:
    """A kernel parameter of one specialisation: a runtime value of `type`,
    a constexpr with `value`, or a tuple of `items` (Params named NAME.0,
    NAME.1, ...: a tuple argument is one Block IR parameter per leaf)."""

    def __init__(self, name, type=None, constexpr=False, value=None, items=None,
                 descriptor=None):
        self.name = name
        self.type = type
        self.constexpr = constexpr
        self.value = value
        self.items = items
        # A host TensorDescriptor: (block shape, padding); items are its base,
        # shape and strides.
        self.descriptor = descriptor

    def leaves(self):
        """The runtime parameters this one stands for, in order."""
        if self.items is not None:
            return [leaf for item in self.items for leaf in item.leaves()]
        return [] if self.constexpr else [self]

    def key(self):
        if self.items is not None:
            return ("tuple", tuple(item.key() for item in self.items), self.descriptor)
        return ("c", constexpr_key(self.value)) if self.constexpr else str(self.type)


def constexpr_key(value):
    """A constexpr in a cache key: typed, so that 1, 1.0 and True differ, and
    by repr when the value cannot be hashed."""
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return (type(value).__name__, repr(value))


class Translation:
    """The result: Block IR text, the kernel's name, and for every line of
    the text the Python place it came from (for errors the compiler finds);
    the names of the pointer parameters the kernel may store through; and
    the outside values it read (watch.py)."""

    def __init__(self, text, kernel_name, places, stored_params=frozenset(), watched=None,
                 assert_messages=None):
        self.text = text
        self.kernel_name = kernel_name
        self.places = places
        self.stored_params = stored_params
        self.watched = watched if watched is not None else Watched()
        # Block IR line -> the message of the device assertion on it.
        self.assert_messages = assert_messages or {}


_BINARY = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod",
}
_BITWISE = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}
_SHIFT = {ast.LShift: "shl", ast.RShift: "shr"}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
            ast.NotEq: "ne"}
_PYTHON_COMPARE = {
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_UNSUPPORTED_STATEMENTS = {
    ast.Break: "break: Block IR loops always run their full trip count",
    ast.Continue: "continue: Block IR loops have no early exit from an iteration",
    ast.With: "with statements", ast.Try: "try statements", ast.Raise: "raise",
    ast.Import: "import inside a kernel", ast.ImportFrom: "import inside a kernel",
    ast.Global: "global declarations", ast.Nonlocal: "nonlocal declarations",
    ast.Delete: "del", ast.FunctionDef: "a function defined inside a kernel",
    ast.ClassDef: "a class defined inside a kernel", ast.AsyncFunctionDef: "async functions",
    ast.AsyncFor: "async for", ast.AsyncWith: "async with",
}
_MAX_INLINE_DEPTH = 64


def _is_tensorish(value):
    return isinstance(value, (tensor, block_pointer))


def _has_tensor(value):
    if _is_tensorish(value):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_tensor(v) for v in value)
    return False


def _unwrap(value):
    """A `tl.constexpr(x)` object is `x` to the translator."""
    while hasattr(value, "__blockc_constexpr__") and not isinstance(value, type):
        value = value.value
    return value


def _contains_return(node):
    nodes = node if isinstance(node, list) else [node]
    return any(isinstance(n, ast.Return) for top in nodes for n in ast.walk(top))


class _Bind(ast.stmt):
    """One iteration's binding of an unrolled loop's target, so that an
    unrolled loop can be spelled as a list of statements (a `return` in it
    then takes the rest of the function with it like any other)."""

    _fields = ("target",)

    def __init__(self, target, value):
        super().__init__(target=target)
        self.value = value


class Translator(ControlFlow, ast.NodeVisitor):
    def __init__(self, language, debug=False):
        # The triton.language module: the translator recognises its ranges
        # and constexpr marker by identity.
        self.tl = language
        self.emitter = Emitter()
        self.builder = Builder(self.emitter)
        # Device assertions are checked only in debug builds (TRITON_DEBUG=1),
        # as Triton checks them.
        self.builder.debug = debug
        # Builtins that take a @triton.jit function (tl.reduce's combine_fn)
        # have the translator inline it where they need its body.
        self.builder.call_jit = self._call_jit
        self._call_nodes = []
        self.frames = []
        self.watched = Watched()

    # --- entry --------------------------------------------------------------

    def translate_kernel(self, fn, params, name=None):
        parsed = parse(fn)
        name = name or fn.__name__
        env = {}
        signature = []
        pointer_params = {}

        def bind(p):
            if p.descriptor is not None:
                base, *sizes = (bind(item) for item in p.items)
                rank = len(sizes) // 2
                block_shape, padding = p.descriptor
                return self.builder.make_tensor_descriptor(base, sizes[:rank], sizes[rank:],
                                                           block_shape, padding)
            if p.items is not None:
                return tuple(bind(item) for item in p.items)
            if p.constexpr:
                return p.value
            value = tensor(f"%{p.name}", p.type)
            signature.append(f"%{p.name}: {value.bir_type}")
            if p.type.is_ptr():
                pointer_params[value.handle] = p.name
            return value

        for p in params:
            env[p.name] = bind(p)
        frame = _Frame(parsed, env, None)
        self.frames.append(frame)
        self.builder.loc = parsed.place(parsed.node)
        self.emitter.line(f"kernel @{name}({', '.join(signature)}) {{", self.builder.loc)
        self.emitter.depth += 1
        self._block(parsed.node.body)
        if frame.returned and frame.return_value is not None:
            raise self.error(parsed.node, "a kernel cannot return a value")
        self.emitter.depth -= 1
        self.emitter.line("}", None)
        self.frames.pop()
        text, places = self.emitter.text()
        stored = frozenset(pointer_params[h] for h in
                           self.builder.reaching(self.builder.stored_through)
                           if h in pointer_params)
        messages = {}
        for number, line in enumerate(text.splitlines(), 1):
            words = line.split()
            if len(words) == 2 and words[0] == "assert":
                messages[number] = self.builder.assert_messages.get(words[1], "")
        return Translation(text, name, places, stored, self.watched, messages)

    # --- errors -------------------------------------------------------------

    @property
    def frame(self):
        return self.frames[-1]

    def error(self, node, message, kind=CompilationError):
        parsed = self.frame.parsed
        file, line, col = parsed.place(node)
        notes = []
        for caller, callee in zip(reversed(self.frames[:-1]), reversed(self.frames[1:])):
            c_file, c_line, c_col = caller.parsed.place(callee.call_node)
            notes.append(f"  called from {c_file}:{c_line}:{c_col} "
                         f"({caller.parsed.fn.__name__})")
        return kind(message, file, line, col, parsed.source_line(node),
                    "\n".join(notes) or None)

    def unsupported(self, node, what):
        return self.error(node, f"unsupported: {what}", UnsupportedLanguageConstruct)

    def visit(self, node):
        saved = self.builder.loc
        if hasattr(node, "lineno"):
            self.builder.loc = self.frame.parsed.place(node)
        try:
            return super().visit(node)
        except (CompilationError, RecursionError):
            raise
        except UnsupportedType as e:
            raise self.unsupported(node, str(e))
        except (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError,
                OverflowError, AssertionError, AttributeError) as e:
            raise self.error(node, str(e) or type(e).__name__)
        finally:
            self.builder.loc = saved

    def generic_visit(self, node):
        raise self.unsupported(node, f"the Python construct {type(node).__name__}")

    # --- statements ---------------------------------------------------------

    def _block(self, statements):
        frame = self.frame
        after = frame.tail
        statements = list(statements)
        try:
            for i, statement in enumerate(statements):
                if frame.returned:
                    return
                frame.tail = None if after is None else statements[i + 1:] + after
                self.visit(statement)
        finally:
            frame.tail = after

    def _to_end(self, statements):
        """Translates `statements` as the rest of the function: falling off
        their end is returning None."""
        frame = self.frame
        saved = frame.tail
        frame.tail = []
        try:
            self._block(statements)
        finally:
            frame.tail = saved
        if not frame.returned:
            frame.returned, frame.return_value = True, None

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assign(self, node):
        value = self.visit(node.value)
        if not self._is_constexpr_call(node.value):
            value = self._as_runtime_value(value)
        for target in node.targets:
            self._assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.visit(node.value)
        annotation = self._annotation(node.annotation)
        if annotation is not self.tl.constexpr:
            value = self._as_runtime_value(value)
        self._assign(node.target, value)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.unsupported(node, "augmented assignment to anything but a name")
        current = self._lookup(node.target, node.target.id)
        value = self._binary(node, node.op, current, self.visit(node.value))
        self._assign(node.target, self._as_runtime_value(value))

    def _is_constexpr_call(self, node):
        """`tl.constexpr(v)`: blockc keeps it a constexpr where it is assigned
        (Triton 3.6 makes a tensor of it; kernels written for earlier Tritons
        use it as a constexpr, as a shape)."""
        if not isinstance(node, ast.Call):
            return False
        try:
            fn = self.visit(node.func)
        except Exception:
            return False
        return fn is self.tl.constexpr

    def _annotation(self, node):
        try:
            return _unwrap(self.visit(node))
        except Exception:  # an annotation Python alone understands (a string, a class)
            return None

    def _as_runtime_value(self, value):
        """Triton's assignment: a Python number (a constexpr included) bound to
        a name without a `tl.constexpr` annotation becomes a scalar tensor, so
        that it has tensor methods (`.to`) and computes as Triton does (int32
        division truncates, as Python's does not). Other values (dtypes, None,
        functions, tuples of them) stay as they are; tuples are walked."""
        value = _unwrap(value)
        if isinstance(value, tuple):
            return tuple(self._as_runtime_value(v) for v in value)
        if isinstance(value, (bool, int, float)) and not isinstance(value, type):
            return self.builder.to_tensor(value)
        return value

    def _assign(self, target, value):
        value = _unwrap(value)
        if isinstance(target, ast.Name):
            self.frame.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {self._describe(value)} into "
                                 f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self._assign(t, v)
        else:
            raise self.unsupported(target, "assignment to anything but names and tuples of "
                                   "names (tensors are values: use tl.store to write memory)")

    def visit_Return(self, node):
        self.frame.return_value = None if node.value is None else _unwrap(self.visit(node.value))
        self.frame.returned = True

    def visit_Assert(self, node):
        test = _unwrap(self.visit(node.test))
        if _has_tensor(test):
            # As Triton: an assert on a run-time value is tl.device_assert.
            message = "" if node.msg is None else str(_unwrap(self.visit(node.msg)))
            self.builder.device_assert(test, message)
            return
        if not test:
            message = "" if node.msg is None else f": {self.visit(node.msg)}"
            raise self.error(node, f"assertion failed{message}")

    def visit_If(self, node):
        condition = _unwrap(self.visit(node.test))
        rest = self.frame.tail
        if rest is not None and _contains_return(node):
            # A return in either branch ends the function on that path: the
            # rest of the function becomes part of each branch, so that it
            # runs only where no return was reached (Triton's semantics).
            # Both branches then end the function, and only what they return
            # joins; names rebound after a return are never merged.
            if not _has_tensor(condition):
                self._to_end((node.body if condition else node.orelse) + rest)
                return
            self._runtime_if(node, condition, lambda: self._to_end(node.body + rest),
                             lambda: self._to_end(node.orelse + rest), to_end=True)
            return
        if not _has_tensor(condition):
            self._block(node.body if condition else node.orelse)
            return
        self._runtime_if(node, condition, lambda: self._block(node.body),
                         lambda: self._block(node.orelse))

    def visit_While(self, node):
        self._while_loop(node)

    def visit_For(self, node):
        if node.orelse:
            raise self.unsupported(node, "for ... else")
        iterator = node.iter
        if isinstance(iterator, ast.Call):
            fn = _unwrap(self.visit(iterator.func))
            if fn is self.tl.static_range:
                args = [_unwrap(self.visit(a)) for a in iterator.args]
                kwargs = {k.arg: _unwrap(self.visit(k.value)) for k in iterator.keywords}
                if _has_tensor(args) or _has_tensor(list(kwargs.values())):
                    raise self.error(iterator, "tl.static_range needs constexpr bounds")
                self._unrolled(node, range(*args, **{k: v for k, v in kwargs.items()
                                                     if k == "step"}))
                return
            if fn is builtins.range or fn is self.tl.range:
                args = [_unwrap(self.visit(a)) for a in iterator.args]
                step = None
                for keyword in iterator.keywords:
                    # tl.range's pipelining and unrolling hints are GPU
                    # scheduling advice; the CPU compiler decides alone.
                    if keyword.arg == "step":
                        step = _unwrap(self.visit(keyword.value))
                if not 1 <= len(args) <= 3:
                    raise self.error(iterator, "range takes 1 to 3 arguments")
                if len(args) == 1:
                    args = [0] + args
                if step is not None:
                    args = args[:2] + [step]
                if len(args) == 2:
                    args.append(1)
                self._counted_loop(node, *args)
                return
        sequence = _unwrap(self.visit(iterator))
        if isinstance(sequence, (tuple, list)):
            self._unrolled(node, sequence)
            return
        raise self.unsupported(node, "a for loop over anything but range, tl.range, "
                               "tl.static_range or a constexpr tuple")

    def _unrolled(self, node, values):
        statements = []
        for value in values:
            bind = _Bind(node.target, value)
            ast.copy_location(bind, node)
            statements += [bind] + node.body
        self._block(statements)

    def visit__Bind(self, node):
        self._assign(node.target, node.value)

    # --- expressions --------------------------------------------------------

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            raise self.unsupported(node, "this use of a name")
        return self._lookup(node, node.id)

    def _lookup(self, node, name):
        frame = self.frame
        if name in frame.env:
            return frame.env[name]
        cell = frame.closure.get(name)
        if cell is not None:
            try:
                value = cell.cell_contents
            except ValueError:  # bound later in the enclosing function
                raise self.error(node, f"free variable '{name}' is not bound yet") from None
            self.watched.read(cell, name, value)
            return _unwrap(value)
        if name in frame.globals:
            value = frame.globals[name]
            self.watched.read(frame.globals, name, value)
            return _unwrap(value)
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined (a name first bound inside a loop "
                         "body or one branch of a runtime `if` is not visible after it)")

    def visit_Attribute(self, node):
        value = _unwrap(self.visit(node.value))
        if isinstance(value, tensor) and node.attr == "T":
            return self.builder.permute(value, (1, 0))
        try:
            found = getattr(value, node.attr)
        except AttributeError:
            if node.attr == "value" and not _has_tensor(value):
                # The translator holds constexprs unwrapped; `.value` of one
                # (`BLOCK.value`, `tl.constexpr(4).value`) is the value.
                return value
            raise self.error(node, f"{self._describe(value)} has no attribute '{node.attr}'")
        if isinstance(value, types.ModuleType) and _is_user_module(value) and \
                node.attr in value.__dict__:
            # `config.BLOCK` is a global of module config.
            self.watched.read(value.__dict__, node.attr, found)
        return _unwrap(found)

    def visit_Subscript(self, node):
        value = _unwrap(self.visit(node.value))
        index = _unwrap(self.visit(node.slice))
        if isinstance(value, tensor):
            return self.builder.subscript(value, index)
        if _has_tensor(index):
            raise self.error(node, "a tuple can be indexed only with a constexpr")
        return value[index]

    def visit_Slice(self, node):
        parts = [None if p is None else _unwrap(self.visit(p))
                 for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def visit_Tuple(self, node):
        items = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                items.extend(_unwrap(self.visit(element.value)))
            else:
                items.append(_unwrap(self.visit(element)))
        return tuple(items)

    def visit_List(self, node):
        return list(self.visit_Tuple(node))

    def visit_JoinedStr(self, node):
        values = [self.visit(v) for v in node.values]
        if _has_tensor(values):
            raise self.error(node, "an f-string of a runtime value")
        return "".join(str(v) for v in values)

    def visit_FormattedValue(self, node):
        value = _unwrap(self.visit(node.value))
        spec = "" if node.format_spec is None else self.visit(node.format_spec)
        return format(value, spec)

    def visit_UnaryOp(self, node):
        operand = _unwrap(self.visit(node.operand))
        if not _is_tensorish(operand):
            return {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                    ast.Invert: lambda v: ~v, ast.Not: lambda v: not v}[type(node.op)](operand)
        b = self.builder
        if isinstance(node.op, ast.USub):
            return b.minus(operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Invert):
            return b.invert(operand)
        return b.logical_not(operand)

    def visit_BinOp(self, node):
        return self._binary(node, node.op, self.visit(node.left), self.visit(node.right))

    def _binary(self, node, op, left, right):
        left, right = _unwrap(left), _unwrap(right)
        if not _is_tensorish(left) and not _is_tensorish(right):
            return _python_binary(op, left, right)
        b = self.builder
        if type(op) in _BINARY:
            return getattr(b, _BINARY[type(op)])(left, right)
        if type(op) in _BITWISE:
            return b.bitwise(_BITWISE[type(op)], left, right)
        if type(op) in _SHIFT:
            return b.shift(_SHIFT[type(op)], left, right)
        if isinstance(op, ast.Pow):
            raise self.unsupported(node, "** on tensors (use tl.math.pow or "
                                   "libdevice.pow)")
        raise self.unsupported(node, f"the operator {type(op).__name__} on tensors")

    def visit_BoolOp(self, node):
        values = node.values
        result = _unwrap(self.visit(values[0]))
        for value_node in values[1:]:
            if not _is_tensorish(result):
                # Python's short circuit, on constexprs.
                if isinstance(node.op, ast.And) and not result:
                    return result
                if isinstance(node.op, ast.Or) and result:
                    return result
                result = _unwrap(self.visit(value_node))
                continue
            other = _unwrap(self.visit(value_node))
            result = self.builder.logical("and" if isinstance(node.op, ast.And) else "or",
                                          result, other)
        return result

    def visit_Compare(self, node):
        left = _unwrap(self.visit(node.left))
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = _unwrap(self.visit(right_node))
            if type(op) in (ast.Is, ast.IsNot):
                # Identity is Python's even for tensors: `ptr is not None`
                # tests an optional argument while translating.
                value = _PYTHON_COMPARE[type(op)](left, right)
            elif _is_tensorish(left) or _is_tensorish(right):
                if type(op) not in _COMPARE:
                    raise self.unsupported(node, f"the comparison {type(op).__name__} on "
                                           "tensors")
                value = self.builder.compare(_COMPARE[type(op)], left, right)
            else:
                value = _PYTHON_COMPARE[type(op)](left, right)
            if result is None:
                result = value
            elif _is_tensorish(result) or _is_tensorish(value):
                result = self.builder.logical("and", result, value)
            else:
                result = result and value
            left = right
        return result

    def visit_IfExp(self, node):
        condition = _unwrap(self.visit(node.test))
        if not _has_tensor(condition):
            return self.visit(node.body if condition else node.orelse)
        frame = self.frame
        saved = frame.returned, frame.return_value
        key = f"<ifexp {id(node)}>"  # not a Python name; one per expression

        def side(expression):
            def run():
                frame.env[key] = _unwrap(self.visit(expression))
            return run

        frame.env[key] = None
        self._runtime_if(node, condition, side(node.body), side(node.orelse))
        frame.returned, frame.return_value = saved
        return frame.env.pop(key)

    def visit_Call(self, node):
        fn = _unwrap(self.visit(node.func))
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(_unwrap(self.visit(a.value)))
            else:
                args.append(_unwrap(self.visit(a)))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(_unwrap(self.visit(k.value)))
            else:
                kwargs[k.arg] = _unwrap(self.visit(k.value))
        if getattr(fn, "__blockc_jit__", False):
            return self._inline(node, fn, args, kwargs)
        if is_builtin(fn):
            self._call_nodes.append(node)
            try:
                return fn(*args, _builder=self.builder, **kwargs)
            finally:
                self._call_nodes.pop()
        if getattr(fn, "__blockc_unsupported__", None):
            raise self.unsupported(node, fn.__blockc_unsupported__)
        if fn is builtins.min or fn is builtins.max:
            if not _has_tensor(args):
                return fn(*args, **kwargs)
            combine = self.builder.minimum if fn is builtins.min else self.builder.maximum
            result = args[0]
            for arg in args[1:]:
                result = combine(result, arg)
            return result
        if fn is builtins.abs and _has_tensor(args):
            return self.builder.abs(args[0])
        if fn is builtins.print:
            # As in Triton: `print` in a kernel is tl.device_print.
            if kwargs:
                raise self.error(node, "print in a kernel takes no keyword arguments (it is "
                                 "tl.device_print)")
            prefix, values = (args[0], args[1:]) if args and isinstance(args[0], str) else ("", args)
            return self.builder.device_print(prefix, list(values))
        if isinstance(fn, dtype):
            # `tl.float32(0.0)`, as Liger's kernels write it: a scalar (or a
            # tensor converted) of that type, which Triton's code generator
            # accepts as a cast.
            if len(args) != 1 or kwargs:
                raise self.error(node, f"tl.{fn.codegen_name()}(...) takes one value, the "
                                 "number or tensor to convert")
            return self.builder.to_tensor(_unwrap(args[0]), fn)
        if fn is builtins.isinstance:
            # Decided when the kernel is compiled, from what each value is in
            # the translation: `isinstance(x, tl.tensor_descriptor)` picks a
            # branch (tutorial 06's _maybe_make_tensor_desc), as in Triton.
            if len(args) != 2 or kwargs:
                raise self.error(node, "isinstance takes a value and a type (or a tuple of types)")
            return isinstance(args[0], _unwrap(args[1]))
        if fn is self.tl.constexpr and _has_tensor(args):
            raise self.error(node, "tl.constexpr() wraps a compile-time value; this is "
                             f"{self._describe(args[0])}, known only when the kernel runs")
        if fn in (builtins.range, self.tl.range, self.tl.static_range):
            raise self.unsupported(node, f"{getattr(fn, '__name__', fn)} outside a for loop")
        if _has_tensor(args) or _has_tensor(list(kwargs.values())):
            raise self.error(node, f"{getattr(fn, '__name__', fn)!s} is not a @triton.jit "
                             "function or a triton.language builtin, so it cannot take tensors")
        if not callable(fn):
            raise self.error(node, f"{self._describe(fn)} is not callable")
        return fn(*args, **kwargs)

    def _call_jit(self, jit_fn, args):
        return self._inline(self._call_nodes[-1], jit_fn, args, {})

    def _inline(self, node, jit_fn, args, kwargs):
        if len(self.frames) >= _MAX_INLINE_DEPTH:
            raise self.error(node, "@triton.jit helpers nest too deep (recursion?): Block IR "
                             "inlines every call")
        fn = jit_fn.fn
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"{fn.__name__}(): {e}")
        bound.apply_defaults()
        parsed = parse(fn)
        env = {name: _unwrap(value) for name, value in bound.arguments.items()}
        frame = _Frame(parsed, env, node)
        self.frames.append(frame)
        try:
            self._block(parsed.node.body)
        finally:
            self.frames.pop()
        return frame.return_value

    # --- helpers ------------------------------------------------------------

    @staticmethod
    def _bir(dtype, shape):
        return tensor("", dtype, shape).bir_type

    @staticmethod
    def _describe(value):
        if isinstance(value, tensor):
            return f"a tensor of type {value.bir_type}"
        if isinstance(value, block_pointer):
            return "a block pointer"
        if isinstance(value, (tuple, list)):
            return f"a {type(value).__name__} of {len(value)}"
        return f"{type(value).__name__} {value!r}"


def _is_user_module(module):
    """Not the standard library's, numpy's or Triton's, whose attributes a
    script does not reassign: each watched value costs every launch a test."""
    top = module.__name__.partition(".")[0]
    return top not in sys.stdlib_module_names and top not in ("triton", "blockc", "numpy",
                                                              "torch", "builtins")


def _python_binary(op, left, right):
    return {
        ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b,
        ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b,
        ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
        ast.BitXor: lambda a, b: a ^ b, ast.LShift: lambda a, b: a << b,
        ast.RShift: lambda a, b: a >> b, ast.MatMult: lambda a, b: a @ b,
    }[type(op)](left, right)


def _statement_error(kind):
    def visit(self, node):
        raise self.unsupported(node, _UNSUPPORTED_STATEMENTS[kind])
    return visit


for _kind in _UNSUPPORTED_STATEMENTS:
    setattr(Translator, f"visit_{_kind.__name__}", _statement_error(_kind))

__all__ = ["Translator", "Translation", "Param"]

"""Ahead-of-time compilation of a `@triton.jit` kernel into an object and a C header,
as Triton's `triton.tools.compile` does for CUDA: compile on the workstation, for the
board's target, and link the result into an app with blockc's runtime (no LLVM, no
Python on the board).

    python -m triton.tools.compile KERNEL.py --kernel-name NAME --signature SIG \\
        [--target TARGET] [--features F] [--out-name OUT] [--out-path DIR]

SIG gives every parameter of the kernel, in order, separated by commas:
  *fp32  *bf16:16      a pointer to elements of that type (`:16`, Triton's alignment
                       hint, is accepted and changes nothing)
  i1 i8 i16 i32 i64 fp16 bf16 fp32 fp64
                       a scalar of that type
  1024  0.5  True      a value: what a tl.constexpr parameter is bound to, or a constant
                       that replaces a runtime parameter
TARGET is a name from `blockc targets` (default: host; spacemit-k1 for the K1).
Writes DIR/OUT.o and DIR/OUT.h (whose OUT_launch(...) launches the kernel over a grid,
through blockc_launch_kernel), for an app; DIR/OUT.so and DIR/OUT.json, which
blockc.aot.load launches from Python with the runtime library alone (no LLVM); and
DIR/OUT.bir, the Block IR it was translated to.
OUT (default: the kernel's name) names the kernel's symbols, so that several
specialisations of one kernel can live in one app.
"""
import argparse
import ast
import importlib.util
import json
import os
import re
import sys

# Absolute imports: `python -m triton.tools.compile` runs this file under the alias's
# name, from which relative imports would not reach blockc.frontend.
from blockc.frontend import dtypes
from blockc.frontend.codegen import Param, Translator
from blockc.frontend.errors import CompilationError
from blockc.triton import language
from blockc.triton.runtime.jit import JITFunction, _core, _pointer_to

_SCALARS = {"i1": dtypes.int1, "i8": dtypes.int8, "i16": dtypes.int16, "i32": dtypes.int32,
            "i64": dtypes.int64, "fp16": dtypes.float16, "bf16": dtypes.bfloat16,
            "fp32": dtypes.float32, "fp64": dtypes.float64,
            "u8": dtypes.uint8, "u16": dtypes.uint16, "u32": dtypes.uint32,
            "u64": dtypes.uint64, "fp8e4nv": dtypes.float8e4nv, "fp8e5": dtypes.float8e5,
            "fp8e4b15": dtypes.float8e4b15, "fp8e4b8": dtypes.float8e4b8,
            "fp8e5b16": dtypes.float8e5b16}


class SignatureError(ValueError):
    pass


def parse_signature(text, names, constexprs):
    """The Params of `names` that `text` gives, in order."""
    entries = [entry.strip() for entry in text.split(",")]
    if entries == [""]:
        entries = []
    if len(entries) != len(names):
        raise SignatureError(f"the signature has {len(entries)} entries, the kernel "
                             f"{len(names)} parameters ({', '.join(names)})")
    params = []
    for name, entry in zip(names, entries):
        type_text = entry.split(":", 1)[0].strip()
        pointer = type_text.startswith("*")
        scalar = _SCALARS.get(type_text.lstrip("*"))
        if scalar is not None:
            if name in constexprs:
                raise SignatureError(f"parameter '{name}' is a tl.constexpr: give its value, "
                                     f"not the type '{entry}'")
            if scalar.missing:
                raise SignatureError(f"parameter '{name}': {type_text.lstrip('*')}: "
                                     f"{scalar.missing}")
            params.append(Param(name, _pointer_to(scalar) if pointer else scalar))
            continue
        try:
            value = ast.literal_eval(entry)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, (bool, int, float)):
            params.append(Param(name, constexpr=True, value=value))
            continue
        raise SignatureError(f"parameter '{name}': '{entry}' is neither a type "
                             f"({', '.join(['*T'] + sorted(_SCALARS))}) nor a number")
    return params


def load_kernel(path, kernel_name):
    spec = importlib.util.spec_from_file_location(
        "_blockc_aot_" + re.sub(r"\W", "_", os.path.basename(path)), path)
    if spec is None:
        raise SignatureError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    kernel = getattr(module, kernel_name, None)
    while kernel is not None and not isinstance(kernel, JITFunction) and hasattr(kernel, "fn"):
        kernel = kernel.fn  # an @triton.autotune or @triton.heuristics wrapper
    if not isinstance(kernel, JITFunction):
        raise SignatureError(f"{path} has no @triton.jit function '{kernel_name}'")
    return kernel


def compile_kernel(path, kernel_name, signature, target="host", features="", out_name=None,
                   out_path="."):
    """Writes OUT.o, OUT.h and OUT.bir into `out_path`; returns their paths."""
    kernel = load_kernel(path, kernel_name)
    params = parse_signature(signature, kernel.arg_names, kernel.constexprs)
    translation = Translator(language).translate_kernel(kernel.fn, params)
    out_name = out_name or kernel_name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", out_name):
        raise SignatureError(f"--out-name '{out_name}' is not a C identifier")
    text = translation.text
    if out_name != translation.kernel_name:
        text, count = re.subn(rf"^kernel @{re.escape(translation.kernel_name)}\(",
                              f"kernel @{out_name}(", text, flags=re.M)
        assert count == 1, "the translation declares its kernel once"
    os.makedirs(out_path, exist_ok=True)
    base = os.path.join(out_path, out_name)
    outputs = {"bir": base + ".bir", "obj": base + ".o", "header": base + ".h",
               "so": base + ".so", "manifest": base + ".json"}
    with open(outputs["bir"], "w") as f:
        f.write(text)
    for emit in ("obj", "header", "so"):
        _core().compile_to_file(text, out_name, outputs[emit], emit,
                                file_name=os.path.basename(outputs["bir"]), target=target,
                                features=features)
    # What blockc.aot needs to launch the .so without the compiler: the kernel's
    # parameters as the launch line names them, and the values specialised away.
    manifest = {
        "format": "blockc-aot-1",
        "kernel": out_name,
        "library": os.path.basename(outputs["so"]),
        "target": target,
        "parameters": list(kernel.arg_names),
        "constexprs": {p.name: p.value for p in params if p.constexpr},
        "arguments": [[name, type_text] for name, type_text in _runtime_parameters(text, out_name)],
    }
    temporary = outputs["manifest"] + ".tmp"
    with open(temporary, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(temporary, outputs["manifest"])
    return outputs


def _runtime_parameters(text, kernel_name):
    """(name, Block IR type) of each parameter of the kernel's declaration."""
    match = re.search(rf"^kernel @{re.escape(kernel_name)}\((.*?)\)\s*\{{", text,
                      flags=re.M | re.S)
    assert match, "the translation declares its kernel"
    return [tuple(part.strip().lstrip("%").split(": ", 1))
            for part in match.group(1).split(",") if part.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m triton.tools.compile",
        description="Compile a @triton.jit kernel ahead of time into an object and a C header.")
    parser.add_argument("path", help="the Python file that defines the kernel")
    parser.add_argument("--kernel-name", "-n", required=True)
    parser.add_argument("--signature", "-s", required=True,
                        help="every parameter's type (*fp32, i32, ...) or value, comma-separated")
    parser.add_argument("--target", default="host", help="a name from `blockc targets`")
    parser.add_argument("--features", default="", help="target features to add or remove")
    parser.add_argument("--out-name", "-on", help="the kernel's name in the object and header")
    parser.add_argument("--out-path", "-o", default=".", help="the folder to write into")
    parser.add_argument("--grid", "-g", help="accepted for Triton's command line; the grid "
                        "is an argument of the header's launch function")
    args = parser.parse_args(argv)
    try:
        outputs = compile_kernel(args.path, args.kernel_name, args.signature, args.target,
                                 args.features, args.out_name, args.out_path)
    except (SignatureError, CompilationError, OSError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    except _core().CompileError as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    for kind in ("obj", "header", "so", "manifest"):
        print(outputs[kind])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Conformance: bad input. Every kernel that cannot be translated raises
triton.CompilationError naming this file and the line of the offending construct
(each such line ends with a `# err:NAME` comment that the test looks up). Launch
errors name the kernel and what is wrong with the arguments.

Two kinds of kernels: type errors that Triton rejects too, and constructs that Triton
accepts but Block IR lacks (fp8 variants, inline assembly). The second kind runs only against blockc: under Triton's interpreter it
would simply work."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import INTERPRET, blockc_only, compile_error_at, empty, interpreter_limitation, to_torch

HERE = __file__


def f32(n=16):
    return to_torch(np.arange(n, dtype=np.float32))


def test_compilation_error_is_one_class():
    from triton.compiler.errors import CompilationError
    assert triton.CompilationError is CompilationError
    assert issubclass(CompilationError, Exception)


# --- type errors (Triton rejects these too)


@triton.jit
def pointer_plus_float_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    p = x_ptr + 1.5  # err:pointer_plus_float
    tl.store(z_ptr + offs, tl.load(p + offs))


def test_pointer_plus_float():
    with compile_error_at(HERE, "err:pointer_plus_float"):
        pointer_plus_float_kernel[(1,)](f32(), f32())


@triton.jit
def dot_mismatch_kernel(a_ptr, b_ptr, c_ptr):
    i = tl.arange(0, 16)
    a = tl.load(a_ptr + i[:, None] * 16 + i[None, :])
    b = tl.load(b_ptr + i[:, None] * 16 + i[None, :])
    c = tl.dot(a, b)  # err:dot_mismatch
    tl.store(c_ptr + i[:, None] * 16 + i[None, :], c)


def test_dot_of_mismatched_dtypes():
    a = to_torch(np.ones((16, 16), np.float16))
    b = to_torch(np.ones((16, 16), np.float32))
    with compile_error_at(HERE, "err:dot_mismatch", match="dtype|type"):
        dot_mismatch_kernel[(1,)](a, b, empty((16, 16), "float32"))


@triton.jit
def and_on_floats_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x & x)  # err:and_on_floats


def test_bitwise_and_on_floats():
    with compile_error_at(HERE, "err:and_on_floats"):
        and_on_floats_kernel[(1,)](f32(), f32())


@triton.jit
def float_floordiv_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    y = x // 2.0  # err:float_floordiv
    tl.store(z_ptr + offs, y)


def test_floor_division_of_floats():
    with compile_error_at(HERE, "err:float_floordiv"):
        float_floordiv_kernel[(1,)](f32(), f32())


@triton.jit
def math_on_ints_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, tl.exp(x))  # err:math_on_ints


def test_math_on_ints():
    x = to_torch(np.arange(16, dtype=np.int32))
    with compile_error_at(HERE, "err:math_on_ints"):
        math_on_ints_kernel[(1,)](x, empty(16, "float32"))


@triton.jit
def shape_mismatch_kernel(x_ptr, z_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16))
    b = tl.load(x_ptr + tl.arange(0, 32))
    c = a + b  # err:shape_mismatch
    tl.store(z_ptr + tl.arange(0, 16), c)


def test_shapes_that_do_not_broadcast():
    with compile_error_at(HERE, "err:shape_mismatch"):
        shape_mismatch_kernel[(1,)](f32(32), f32(32))


@triton.jit
def undefined_name_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    tl.store(z_ptr + offs, tl.load(x_ptr + offs) * not_defined_anywhere)  # noqa: F821 # err:undefined_name


def test_undefined_name():
    with compile_error_at(HERE, "err:undefined_name", match="not_defined_anywhere"):
        undefined_name_kernel[(1,)](f32(), f32())


@triton.jit
def other_without_mask_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs, other=0.0)  # err:other_without_mask
    tl.store(z_ptr + offs, x)


def test_load_with_other_but_no_mask():
    with compile_error_at(HERE, "err:other_without_mask"):
        other_without_mask_kernel[(1,)](f32(), f32())


@triton.jit
def block_into_scalar_pointer_kernel(x_ptr, z_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(z_ptr, x)  # err:block_into_scalar


def test_store_of_a_block_through_a_scalar_pointer():
    with compile_error_at(HERE, "err:block_into_scalar"):
        block_into_scalar_pointer_kernel[(1,)](f32(), f32())


@triton.jit
def static_assert_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")  # err:static_assert
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)


def test_failed_static_assert():
    with compile_error_at(HERE, "err:static_assert", match="multiple of 16"):
        static_assert_kernel[(1,)](f32(), BLOCK=8)


@triton.jit
def _bad_helper(x):
    return x & 1.5  # err:in_helper


@triton.jit
def calls_bad_helper_kernel(x_ptr, z_ptr):
    offs = tl.arange(0, 16)
    tl.store(z_ptr + offs, _bad_helper(tl.load(x_ptr + offs)))  # err:helper_call


def test_error_inside_a_helper_names_the_helper_line_and_the_call():
    with compile_error_at(HERE, "err:in_helper"):
        calls_bad_helper_kernel[(1,)](f32(), f32())
    if not INTERPRET:
        from conftest import assert_points_at, line_of
        with pytest.raises(triton.CompilationError) as info:
            calls_bad_helper_kernel[(1,)](f32(), f32())  # the error comes back on a new launch
        assert_points_at(info.value, HERE, line_of(HERE, "err:helper_call"))


# --- constructs Block IR lacks (Triton accepts them)


@triton.jit
def break_kernel(z_ptr, n):
    s = 0
    for i in range(n):
        if i == 3:
            break  # err:break
        s += i
    tl.store(z_ptr, s)


@blockc_only  # Triton rejects `break` too, but its interpreter runs it as Python
def test_break_is_rejected():
    with compile_error_at(HERE, "err:break", match="break"):
        break_kernel[(1,)](empty(1, "int32"), 5)


@triton.jit
def return_in_loop_kernel(z_ptr, n):
    for i in range(n):
        if i == 3:
            return  # err:return_in_loop
        tl.store(z_ptr + i, i)


@blockc_only  # Triton rejects it too; its interpreter runs it as Python
def test_return_inside_a_loop_is_rejected_at_the_return():
    with compile_error_at(HERE, "err:return_in_loop", match="return inside a loop"):
        return_in_loop_kernel[(1,)](empty(8, "int32"), 5)


@triton.jit
def _value_or_nothing(x, flag):
    if flag > 0:  # err:mixed_returns
        return x + 1


@triton.jit
def mixed_returns_kernel(x_ptr, z_ptr, flag):
    offs = tl.arange(0, 16)
    tl.store(z_ptr + offs, _value_or_nothing(tl.load(x_ptr + offs), flag))


@interpreter_limitation("runs the helper as Python: returning on one path only is no error")
def test_a_helper_returning_a_value_on_one_path_only():
    with compile_error_at(HERE, "err:mixed_returns", match="return"):
        mixed_returns_kernel[(1,)](f32(), f32(), 3)


@triton.jit
def device_print_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.device_print("x", x, hex=x)  # err:device_print


@blockc_only
def test_device_print_with_a_tensor_for_hex_is_an_error():
    with compile_error_at(HERE, "err:device_print", match="hex"):
        device_print_kernel[(1,)](f32())


# --- launch errors


@triton.jit
def three_args_kernel(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def launch_error(match):
    """A launch error: under blockc a TypeError naming the kernel and matching
    `match`; under Triton's interpreter any exception."""
    if INTERPRET:
        return pytest.raises(Exception)
    return pytest.raises(TypeError, match=f"(?s)three_args_kernel.*{match}")


def test_too_few_arguments():
    with launch_error("n"):
        three_args_kernel[(1,)](f32(), f32(), BLOCK=16)


def test_too_many_arguments():
    with launch_error("argument"):
        three_args_kernel[(1,)](f32(), f32(), 16, 99, 100, BLOCK=16)


@interpreter_limitation("drops keyword arguments the kernel does not name")
def test_unknown_keyword():
    with launch_error("bogus"):
        three_args_kernel[(1,)](f32(), f32(), 16, BLOCK=16, bogus=3)


def test_missing_constexpr():
    with launch_error("BLOCK"):
        three_args_kernel[(1,)](f32(), f32(), 16)


@blockc_only
def test_tensor_on_the_meta_device():
    import torch
    meta = torch.empty(16, device="meta")
    with pytest.raises(Exception, match="(?s)three_args_kernel.*x_ptr.*meta"):
        three_args_kernel[(1,)](meta, f32(), 16, BLOCK=16)


class FakeCudaTensor:
    """Quacks like a torch tensor that lives on a GPU."""

    class device:
        type = "cuda"
        index = 0

        def __str__(self):
            return "cuda:0"

    def __init__(self):
        import torch
        self.dtype = torch.float32
        self.device = FakeCudaTensor.device()

    def data_ptr(self):
        return 0x7F0000000000


@blockc_only
def test_tensor_on_a_gpu():
    with pytest.raises(Exception, match="(?s)three_args_kernel.*z_ptr.*cuda"):
        three_args_kernel[(1,)](f32(), FakeCudaTensor(), 16, BLOCK=16)


@blockc_only
def test_an_argument_of_an_unsupported_kind():
    with pytest.raises(TypeError, match="(?s)three_args_kernel.*x_ptr"):
        three_args_kernel[(1,)]([1.0, 2.0], f32(), 2, BLOCK=16)

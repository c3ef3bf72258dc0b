"""Tools, as triton.tools has them: `compile` (ahead of time, a command) and
`tensor_descriptor.TensorDescriptor` (a kernel argument made on the host)."""

from . import tensor_descriptor  # noqa: E402,F401 (registered under triton.tools too)

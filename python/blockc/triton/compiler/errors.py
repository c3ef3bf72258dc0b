"""`triton.compiler.errors`."""

from ...frontend.errors import CompilationError, UnsupportedLanguageConstruct  # noqa: F401

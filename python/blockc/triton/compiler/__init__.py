"""`triton.compiler`: the error types scripts catch."""

from .errors import CompilationError, UnsupportedLanguageConstruct  # noqa: F401

"""Command-line tools, as triton.tools has them: `compile` (ahead of time)."""

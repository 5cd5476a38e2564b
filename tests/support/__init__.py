"""Helpers shared by several test layers (pytest puts `tests/` on the path: pyproject.toml)."""

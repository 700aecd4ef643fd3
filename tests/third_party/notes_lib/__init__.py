"""A library with a tool function, outside the project (pyproject.toml puts tests/third_party on
sys.path for the tests)."""

from .text import summarize

__all__ = ["summarize"]

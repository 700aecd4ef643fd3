"""Pausing Python's cycle collector around work that makes millions of objects and no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Parsing, scanning, unpickling and fixing make millions of objects and no reference cycles;
    the collector's passes over them are pure cost (bench/HISTORY.md has the figures).
    Reference counting still frees everything."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

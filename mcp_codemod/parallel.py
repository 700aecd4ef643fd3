"""Run a function over many inputs in worker processes, when there is enough work to pay for them.

Results come back in input order, whatever order the workers finish in, so output never depends
on scheduling.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this much source text (bytes) one process is done before a pool is up and fed. On two
# shared cores 2 processes broke even between 1 and 2 MB of parsing alone (bench/run.py, "Pool
# threshold"); with reading overlapped, the pool won on the 3 MB trees of the benchmark and lost
# on the 0.7 MB one (the MCP servers: 0.73 s against 0.65 s in one process).
POOL_THRESHOLD_BYTES = 1_000_000
# Forked workers start in about a millisecond with everything already imported; spawned ones
# (macOS, Windows) import the analysis again, which costs as much as parsing a lot of files.
_SPAWN_FACTOR = 8
# Work handed to a worker at a time: enough that round trips do not add up over thousands of
# small files, little enough that the workers finish together.
_CHUNK_BYTES = 50_000


def default_jobs() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _pool(jobs: int):
    # Imported here: most runs are small or cached and never start a pool, and these modules take
    # longer to import than such a run takes.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Forked workers inherit the imported analysis; Python 3.14 no longer forks by default.
    if sys.platform == "linux":
        context = multiprocessing.get_context("fork")
    else:
        context = multiprocessing.get_context()
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context)


class OrderedMap(Generic[Item, Result]):
    """`function` over items given one at a time, results in the order given. The items are
    handed to worker processes as soon as those given add up to enough work, while the caller
    goes on finding more (reading and prefiltering files overlaps parsing); below that, they run
    in this process when the results are asked for. `function` must be a module-level function.
    Use it as a context manager, so that the workers stop on any way out."""

    def __init__(self, function: Callable[[Item], Result], jobs: int | None) -> None:
        self.function = function
        self.jobs = default_jobs() if jobs is None else jobs
        self.threshold = POOL_THRESHOLD_BYTES
        if sys.platform != "linux":
            self.threshold *= _SPAWN_FACTOR
        self.waiting: list[Item] = []  # given, not yet handed to a worker
        self.waiting_size = 0
        self.pool = None
        self.chunks: list[Future[list[Result]]] = []

    def __enter__(self) -> OrderedMap[Item, Result]:
        return self

    def __exit__(self, *exception: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def put(self, item: Item, size: int) -> None:
        """Give one item; `size` is the work it represents (bytes of source)."""
        self.waiting.append(item)
        self.waiting_size += size
        # One item alone, however large, is parsed here: a worker would only add the round
        # trip of its facts (a 2 MB module's are larger than its source).
        if (
            self.pool is None
            and self.jobs > 1
            and len(self.waiting) > 1
            and self.waiting_size >= self.threshold  # nothing handed over yet: all given
        ):
            self.pool = _pool(self.jobs)
        if self.pool is not None and self.waiting_size >= _CHUNK_BYTES:
            self._hand_over()

    def results(self) -> list[Result]:
        """Every item's result, in the order the items were given."""
        if self.pool is None:
            results = _map_chunk(self.function, self.waiting)
            self.waiting = []
            return results
        if self.waiting:
            self._hand_over()
        return [result for chunk in self.chunks for result in chunk.result()]

    def _hand_over(self) -> None:
        self.chunks.append(self.pool.submit(_map_chunk, self.function, self.waiting))
        self.waiting = []
        self.waiting_size = 0


def _map_chunk(function: Callable[[Item], Result], items: list[Item]) -> list[Result]:
    return [function(item) for item in items]

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


class Workers:
    """The worker processes of one run. They start the first time enough work is given at once
    (the candidates' parse) and are kept for the run's later batches (the modules the linker
    loads together), which could not pay for a start but pay for a hand-over. Use it as a
    context manager, so that the workers stop on any way out."""

    def __init__(self, jobs: int | None) -> None:
        self.jobs = default_jobs() if jobs is None else jobs
        self.threshold = POOL_THRESHOLD_BYTES
        if sys.platform != "linux":
            self.threshold *= _SPAWN_FACTOR
        self.pool = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exception: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def start(self) -> None:
        if self.pool is None and self.jobs > 1:
            self.pool = _pool(self.jobs)


class OrderedMap(Generic[Item, Result]):
    """`function` over items given one at a time, results in the order given. The items are
    handed to the workers as soon as those given add up to enough work, while the caller goes
    on finding more (reading and prefiltering files overlaps parsing); below that, they run in
    this process when the results are asked for. `function` must be a module-level function."""

    def __init__(self, function: Callable[[Item], Result], workers: Workers) -> None:
        self.function = function
        self.workers = workers
        self.waiting: list[Item] = []  # given, not yet handed to a worker
        self.sizes: list[int] = []  # theirs
        self.waiting_size = 0
        self.given_size = 0
        self.chunks: list[Future[list[Result]]] = []

    def put(self, item: Item, size: int) -> None:
        """Give one item; `size` is the work it represents (bytes of source)."""
        self.waiting.append(item)
        self.sizes.append(size)
        self.waiting_size += size
        self.given_size += size
        workers = self.workers
        # One item alone, however large, is parsed here: a worker would only add the round
        # trip of its facts (a 2 MB module's are larger than its source).
        if workers.pool is None and len(self.waiting) > 1 and self.given_size >= workers.threshold:
            workers.start()
            if workers.pool is None:  # one job: everything runs here
                return
            # What was given before the start goes out in chunks too, not all to one worker.
            start, size = 0, 0
            for end, item_size in enumerate(self.sizes, start=1):
                size += item_size
                if size >= _CHUNK_BYTES:
                    self._hand_over(self.waiting[start:end])
                    start, size = end, 0
            del self.waiting[:start], self.sizes[:start]
            self.waiting_size = size
        elif (
            workers.pool is not None and len(self.waiting) > 1 and self.waiting_size >= _CHUNK_BYTES
        ):
            self._hand_over(self.waiting)
            self.waiting, self.sizes, self.waiting_size = [], [], 0

    def results(self) -> list[Result]:
        """Every item's result, in the order the items were given."""
        left, sizes = self.waiting, self.sizes
        self.waiting, self.sizes = [], []
        if self.workers.pool is not None and len(left) > 1:
            # What is left is shared out between the workers and this process, which would
            # otherwise only wait: a small batch keeps every core busy. The shares are of equal
            # size, not of equal count: one large module among small ones is a share of its own.
            start = 0
            for end in _cuts(sizes, self.workers.jobs + 1):
                self._hand_over(left[start:end])
                start = end
            left = left[start:]
        here = _map_chunk(self.function, left)
        return [result for chunk in self.chunks for result in chunk.result()] + here

    def hand_over_all(self) -> None:
        """Hand every item given so far to the workers, in shares of about equal size, none
        kept for this process: it has other work to do meanwhile. Without workers they wait
        for `results`."""
        left, sizes = self.waiting, self.sizes
        if self.workers.pool is None or not left:
            return
        start = 0
        for end in [*_cuts(sizes, self.workers.jobs), len(left)]:
            self._hand_over(left[start:end])
            start = end
        self.waiting, self.sizes, self.waiting_size = [], [], 0

    def _hand_over(self, items: list[Item]) -> None:
        assert self.workers.pool is not None
        self.chunks.append(self.workers.pool.submit(_map_chunk, self.function, items))


def _cuts(sizes: list[int], parts: int) -> list[int]:
    """Where to cut a run of items of these sizes into at most `parts` runs of about equal
    size, none empty: the end of each run but the last."""
    total = sum(sizes)
    cuts: list[int] = []
    running = 0
    for end, size in enumerate(sizes[:-1], start=1):
        running += size
        # A cut after this item when it reaches the next boundary, or when it lies nearer the
        # boundary than the next item would.
        boundary = total * (len(cuts) + 1) / parts
        if running >= boundary or boundary - running < running + sizes[end] - boundary:
            cuts.append(end)
            if len(cuts) == parts - 1:
                break
    return cuts


def _map_chunk(function: Callable[[Item], Result], items: list[Item]) -> list[Result]:
    return [function(item) for item in items]

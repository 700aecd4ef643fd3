"""Run a function over many inputs in worker processes, when there is enough work to pay for them.

Results come back in input order, whatever order the workers finish in, so output never depends
on scheduling.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this much source text (bytes) one process is done before a pool is up and fed: on two
# idle cores, 2 processes break even at 110 to 220 KB (bench/run.py, "Pool threshold").
POOL_THRESHOLD_BYTES = 200_000
# Forked workers start in about a millisecond with everything already imported; spawned ones
# (macOS, Windows) import the analysis again, which costs as much as parsing a lot of files.
_SPAWN_FACTOR = 8


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


def map_ordered(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    sizes: Sequence[int],
    jobs: int | None,
) -> list[Result]:
    """`[function(item) for item in items]`, in `jobs` processes when the total of `sizes` (the
    work each item represents) is worth it. `function` must be a module-level function."""
    jobs = min(default_jobs() if jobs is None else jobs, len(items))
    threshold = POOL_THRESHOLD_BYTES
    if sys.platform != "linux":
        threshold *= _SPAWN_FACTOR
    if jobs <= 1 or sum(sizes) < threshold:
        return [function(item) for item in items]
    # Largest first, so that no worker is left with one big file while the others sit idle.
    order = sorted(range(len(items)), key=lambda index: -sizes[index])
    # Small chunks balance the load; not single items, whose round trips add up over thousands.
    chunksize = max(1, len(items) // (jobs * 16))
    results: list = [None] * len(items)
    with _pool(jobs) as pool:
        ordered = pool.map(function, [items[i] for i in order], chunksize=chunksize)
        for index, result in zip(order, ordered, strict=True):
            results[index] = result
    return results

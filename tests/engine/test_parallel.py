"""The worker processes: every item's result exactly once, in order, whatever the workers do;
errors reach the caller; no process outlives its run."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from conftest import modules_added_by

from mcp_codemod.engine import parallel

forked_only = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux")


def _fail_on_seven(item: int) -> int:
    if item == 7:
        raise ValueError(f"no {item}")
    return item


def _die_on_seven(item: int) -> int:
    if item == 7:
        os._exit(3)
    return item


def _large(item: int) -> bytes:
    return bytes([item % 256]) * 3_000_000  # three times the pipe: many reads, and writes wait


# Set before the workers fork: the first item waits until the last one is done, however slow the
# machine, so which worker took what does not depend on timing.
_LAST_DONE: Path | None = None


def _first_waits_for_last(item: int) -> tuple[int, int]:
    assert _LAST_DONE is not None
    if item == 0:
        deadline = time.monotonic() + 60
        while not _LAST_DONE.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    elif item == 39:
        _LAST_DONE.touch()
    return item, os.getpid()


def _map(function, items: list[int], workers: parallel.Workers) -> list:
    mapped = parallel.OrderedMap(function, workers)
    for item in items:
        mapped.put(item, 1)
    return mapped.results()


@pytest.fixture
def small_chunks(monkeypatch):
    # No option sets the pool's threshold or chunks: tested at sizes a test can afford.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    monkeypatch.setattr(parallel, "_CHUNK_BYTES", 1)  # one item a chunk


@forked_only
def test_an_error_in_a_worker_is_raised_where_the_results_are_asked(small_chunks):
    with parallel.Workers(2) as workers, pytest.raises(ValueError, match="no 7"):
        _map(_fail_on_seven, list(range(20)), workers)


@forked_only
def test_a_worker_that_dies_is_an_error_not_a_wait(small_chunks):
    with parallel.Workers(2) as workers, pytest.raises(RuntimeError, match="stopped"):
        _map(_die_on_seven, list(range(20)), workers)


@forked_only
def test_results_larger_than_the_pipes_arrive_whole_and_in_order(small_chunks):
    with parallel.Workers(2) as workers:
        results = _map(_large, list(range(12)), workers)
    assert [(len(result), result[0]) for result in results] == [(3_000_000, i) for i in range(12)]


@forked_only
def test_chunks_go_to_whichever_worker_is_free(small_chunks, tmp_path, monkeypatch):
    # One worker is held up by its first chunk: the other takes what waits, instead of half.
    monkeypatch.setattr(sys.modules[__name__], "_LAST_DONE", tmp_path / "last-done")
    with parallel.Workers(2) as workers:
        results = _map(_first_waits_for_last, list(range(40)), workers)
        pids = {worker.pid for worker in workers.pool.workers}
    assert [item for item, _ in results] == list(range(40))
    slow = results[0][1]
    assert slow in pids
    assert sum(pid == slow for _, pid in results) <= parallel._HELD_PER_WORKER + 1


@forked_only
def test_no_worker_outlives_its_run(small_chunks):
    with parallel.Workers(2) as workers:
        assert _map(abs, [-1, -2, -3], workers) == [1, 2, 3]
        pids = [worker.pid for worker in workers.pool.workers]
    for pid in pids:
        with pytest.raises(ChildProcessError):  # reaped: not even a zombie is left
            os.waitpid(pid, os.WNOHANG)


@forked_only
def test_an_interrupted_run_stops_its_workers_at_once(small_chunks):
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(time.sleep, workers)
        for _ in range(4):
            mapped.put(30, 1)  # each worker now sleeps for half a minute
        pids = [worker.pid for worker in workers.pool.workers]
        raise KeyboardInterrupt
    assert time.monotonic() - started < 10
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@forked_only
def test_a_result_of_stopped_workers_is_an_error_not_a_wait():
    pool = parallel.ForkedPool(2)
    job = pool.submit(time.sleep, [30], 1)
    pool.shutdown(abandon=True)
    with pytest.raises(RuntimeError, match="no worker holds"):
        job.result()


@forked_only
def test_starting_the_workers_imports_no_process_pool_machinery():
    # The reason the workers are forked by hand: these imports took a fiftieth of a cold run.
    added = modules_added_by(
        "from mcp_codemod.engine import parallel\n"
        "parallel.POOL_THRESHOLD_BYTES = 0\n"
        "with parallel.Workers(2) as workers:\n"
        "    mapped = parallel.OrderedMap(abs, workers)\n"
        "    for item in (-1, -2, -3):\n"
        "        mapped.put(item, 1)\n"
        "    assert mapped.results() == [1, 2, 3] and workers.pool is not None\n"
    )
    assert not {
        name for name in added if name.startswith(("multiprocessing", "concurrent", "tempfile"))
    }


def test_the_spawned_pool_maps_in_order(monkeypatch):
    # What macOS and Windows use; here it runs with this platform's default start method.
    pool = parallel.SpawnedPool(2)
    try:
        jobs = [pool.submit(abs, [-item, -item - 1], 2) for item in range(0, 10, 2)]
        pool.pump(wait=True)
        assert [result for job in jobs for result in job.result()] == list(range(10))
    finally:
        pool.shutdown()


def test_the_default_job_count_is_one_on_overloaded_cores(monkeypatch):
    from mcp_codemod.engine import parallel

    # The machine, made up: two cores and a load, which default_jobs reads from the system.
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(parallel, "_load", lambda: 1.5)
    assert parallel.default_jobs() == 2
    monkeypatch.setattr(parallel, "_load", lambda: 4.0)
    assert parallel.default_jobs() == 1

"""The worker processes (engine/parallel.py) as check uses them: processes find what one
process finds, results keep the input order, work is shared out by size between the workers and
this process, one job or few items stay here, and a run is freed when it returns.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path

import pytest

from mcp_codemod.engine import file_facts as module_facts
from mcp_codemod.engine import parallel
from mcp_codemod.engine import project as project_modules
from mcp_codemod.engine.checker import check_files

from .check_runs import ALL, files_of, same


def test_processes_find_what_one_process_finds(fixtures_copy: Path, tricky: Path, monkeypatch):
    # No option asks for a pool below its threshold: so few bytes are parsed here otherwise.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)  # a pool even for a few files
    files = files_of(fixtures_copy, tricky)
    serial = check_files(files, ALL, jobs=1)
    pooled = check_files(files, ALL, jobs=2)
    same(serial, pooled)
    same(pooled, check_files(files, ALL, jobs=2))


def test_results_keep_the_input_order(monkeypatch):
    # No option sets the pool's threshold or chunks: tested at sizes a test can afford.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    monkeypatch.setattr(parallel, "_CHUNK_BYTES", 3)  # many chunks, finishing in any order
    items = [-item for item in range(40)]
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in items:
            mapped.put(item, 1 + abs(item) % 2)
        assert workers.pool is not None
        assert mapped.results() == [abs(item) for item in items]


def test_what_is_handed_over_whole_goes_to_the_workers_in_shares():
    with parallel.Workers(2) as workers:
        workers.start()
        mapped = parallel.OrderedMap(abs, workers)
        for item in range(-9, 0):
            mapped.put(item, 10)
        mapped.hand_over_all()
        assert len(mapped.chunks) == 2 and not mapped.waiting
        assert mapped.results() == list(range(9, 0, -1))
    with parallel.Workers(1) as workers:  # no workers: they wait for the results
        mapped = parallel.OrderedMap(abs, workers)
        mapped.put(-1, 10)
        mapped.hand_over_all()
        assert not mapped.chunks and mapped.results() == [1]


def test_modules_parsed_ahead_by_the_workers_are_those_parsed_here(fixtures_copy: Path):
    paths = [path.resolve() for path in files_of(fixtures_copy)]
    here = module_facts.FileFacts(None).facts_of(paths)
    with parallel.Workers(2) as workers:
        workers.start()
        ahead = module_facts.FileFacts(None, workers=workers).facts_ahead(paths)
        assert ahead() == here


def test_what_was_given_before_the_workers_start_is_shared_out(monkeypatch):
    # No option sets the pool's threshold or chunks: tested at sizes a test can afford.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 10)
    monkeypatch.setattr(parallel, "_CHUNK_BYTES", 2)
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in range(10):  # the tenth starts the workers
            mapped.put(-item, 1)
        assert len(mapped.chunks) == 5, "all went to one worker"
        assert mapped.results() == list(range(10))


def test_one_job_runs_everything_in_this_process(monkeypatch):
    # No option asks for a pool below its threshold: without this, no pool either way.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    with parallel.Workers(1) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in range(-10, 0):
            mapped.put(item, 100_000)
        assert mapped.results() == list(range(10, 0, -1))
        assert workers.pool is None


def test_few_items_run_in_this_process():
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in (-1, -2):
            mapped.put(item, 10)
        assert mapped.results() == [1, 2]
        assert workers.pool is None


def test_one_large_item_runs_in_this_process():
    # A worker would only add the round trip of one big module's facts.
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        mapped.put(-3, parallel.POOL_THRESHOLD_BYTES * 10)
        assert mapped.results() == [3]
        assert workers.pool is None


@pytest.mark.parametrize("count", [2, 3, 5, 7, 12])
def test_a_later_batch_is_shared_by_the_running_workers_and_this_process(count, monkeypatch):
    # The workers started by a run's first large batch take a share of every later one, however
    # small: each item exactly once, in order.
    # No option asks for a pool below its threshold: so few bytes are parsed here otherwise.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    with parallel.Workers(2) as workers:
        first = parallel.OrderedMap(abs, workers)
        for item in (-1, -2):
            first.put(item, 1)
        assert first.results() == [1, 2] and workers.pool is not None
        later = parallel.OrderedMap(_pid_of, workers)
        for item in range(count):
            later.put(item, 1)
        results = later.results()
    assert [item for item, _ in results] == list(range(count))
    assert {pid for _, pid in results} - {os.getpid()}, "no worker took a share"
    assert results[-1][1] == os.getpid(), "this process took no share"


def _pid_of(item: int) -> tuple[int, int]:
    return item, os.getpid()


@pytest.mark.parametrize(
    ("sizes", "parts", "runs"),
    [
        # A large module among small ones is a share of its own; by count this process took
        # the large one and two more.
        ([10, 10, 10, 10, 60, 10, 10], 3, [[10, 10, 10, 10], [60], [10, 10]]),
        ([5, 1, 1, 1, 1, 1], 3, [[5], [1, 1], [1, 1, 1]]),
        ([1] * 9, 3, [[1, 1, 1]] * 3),
        ([1, 1], 3, [[1], [1]]),  # never an empty share
        ([1, 1, 100], 3, [[1, 1], [100]]),
        ([7], 3, [[7]]),
    ],
)
def test_a_batch_is_shared_out_by_size(sizes, parts, runs):
    start, shares = 0, []
    for end in [*parallel._cuts(sizes, parts), len(sizes)]:
        shares.append(sizes[start:end])
        start = end
    assert shares == runs


def test_a_run_is_freed_when_it_returns(fixtures_copy: Path, monkeypatch):
    # A library caller, a long-lived process, gets its memory back when the run returns.
    projects = []
    made = project_modules.Project.__init__

    def init(self, *arguments, **keywords):
        projects.append(weakref.ref(self))
        made(self, *arguments, **keywords)

    # A weak reference to the run's project: nothing public hands it out.
    monkeypatch.setattr(project_modules.Project, "__init__", init)
    files = files_of(fixtures_copy)
    check_files(files, ALL, jobs=1)
    assert projects[0]() is None, "the run's objects outlived it"

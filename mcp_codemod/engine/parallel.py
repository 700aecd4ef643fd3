"""Run a function over many inputs in worker processes, when there is enough work to pay for them.

Results come back in input order, whatever order the workers finish in, so output never depends
on scheduling.

On Linux the workers are forked from this process and fed through pipes (`ForkedPool`): they
inherit the imported analysis, and starting them costs two `fork` calls. `ProcessPoolExecutor`
did the same job, but importing it and what it needs (`multiprocessing`, `tempfile`, `socket`,
`logging`...) costs more than the start of a cold run can spare, spent while the other cores
wait for the first work (bench/HISTORY.md, "Forked by hand"). Elsewhere (macOS, Windows) a process cannot be forked
safely, and the executor's spawned processes do the work (`SpawnedPool`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this much source text (bytes) one process is done before a pool is up and fed: the
# crossover bench/run.py's "Pool threshold" measures (bench/HISTORY.md, "Forked by hand").
POOL_THRESHOLD_BYTES = 250_000
# Spawned workers (macOS, Windows) import the analysis again, which costs as much as parsing a
# lot of files.
_SPAWN_THRESHOLD_BYTES = 8_000_000
# Work handed to a worker at a time: enough that round trips do not add up over thousands of
# small files, little enough that the workers finish together.
_CHUNK_BYTES = 50_000
# Chunks a forked worker holds at a time: one it works on and one waiting in its pipe, so that
# it never waits for this process to notice that it finished; the rest wait here and go to
# whichever worker finishes first (a busy machine slows one core more than another).
_HELD_PER_WORKER = 2
# Pipes this large take a whole chunk or result at once: neither side waits for the other to
# read. (The system's default is 64 KB; 1 MB is the most an unprivileged process may ask.)
_PIPE_BYTES = 1 << 20
_HEADER_BYTES = 8


def default_jobs() -> int:
    """One job per core this process may use, or one job when those cores are overloaded: with
    a 1-minute load average of twice as many runnable processes as cores, a worker only takes
    turns with the others, and handing work over costs more than it saves (docs/speed.md,
    "Jobs under load"). Twice: the load a run of ours leaves behind (its workers, a linter
    beside it) stays below that on a machine that is otherwise quiet."""
    if hasattr(os, "sched_getaffinity"):
        cores = max(1, len(os.sched_getaffinity(0)))
    else:
        cores = os.cpu_count() or 1
    if cores > 1 and _load() >= OVERLOADED * cores:
        return 1
    return cores


OVERLOADED = 2  # runnable processes per core, on average over the last minute


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not on Windows
        return 0.0


class Workers:
    """The worker processes of one run. They start the first time enough work is given at once
    (the candidates' parse) and are kept for the run's later batches (the modules the linker
    loads together), which could not pay for a start but pay for a hand-over. Use it as a
    context manager, so that the workers stop on any way out."""

    def __init__(self, jobs: int | None) -> None:
        self.jobs = default_jobs() if jobs is None else jobs
        self.threshold = POOL_THRESHOLD_BYTES if sys.platform == "linux" else _SPAWN_THRESHOLD_BYTES
        self.pool: ForkedPool | SpawnedPool | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: object, *exception: object) -> None:
        if self.pool is not None:
            # On an error (Ctrl-C included) the workers' work is of no use: they are stopped.
            self.pool.shutdown(abandon=kind is not None)
            self.pool = None

    def start(self) -> None:
        if self.pool is None and self.jobs > 1:
            self.pool = ForkedPool(self.jobs) if sys.platform == "linux" else SpawnedPool(self.jobs)


class Job:
    """The result of one chunk of items, once a worker sends it."""

    def __init__(self, pool: ForkedPool) -> None:
        self.pool = pool
        self.done = False
        self.value: Any = None
        self.error: BaseException | None = None

    def result(self) -> Any:
        while not self.done:
            self.pool.pump(wait=True)
        if self.error is not None:
            raise self.error
        return self.value


class _Worker:
    """One forked worker as this process sees it: its pipes and the chunks it holds."""

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid = pid
        self.tasks = tasks  # this process writes chunks here (not blocking)
        self.results = results  # and reads results here
        self.outbox = bytearray()  # what is not written yet
        self.inbox = bytearray()  # what is read, not yet a whole result
        self.held: deque[tuple[Job, int]] = deque()  # in the order sent, with their sizes
        self.load = 0  # bytes of source held


class ForkedPool:
    """Worker processes forked from this one, each fed through a pipe of its own."""

    def __init__(self, jobs: int) -> None:
        import select

        self.readable, self.writable = select.POLLIN, select.POLLOUT
        self.poll = select.poll
        self.workers: list[_Worker] = []
        self.waiting: deque[tuple[Job, bytes, int]] = deque()  # chunks no worker holds yet
        try:
            for _ in range(jobs):
                self.workers.append(self._fork())
        except BaseException:
            self.shutdown(abandon=True)
            raise

    def _fork(self) -> _Worker:
        import fcntl

        tasks_read, tasks_write = os.pipe()
        results_read, results_write = os.pipe()
        for end in (tasks_write, results_write):
            # Over a system limit the default size stays, which only costs more waits.
            with contextlib.suppress(OSError):
                fcntl.fcntl(end, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        try:
            pid = os.fork()
        except OSError:
            for end in (tasks_read, tasks_write, results_read, results_write):
                os.close(end)
            raise
        if pid == 0:  # the worker: it never returns into the caller's code
            code = 1
            try:
                # The other workers' pipes: held open here, they would never see their end.
                for worker in self.workers:
                    os.close(worker.tasks)
                    os.close(worker.results)
                os.close(tasks_write)
                os.close(results_read)
                code = _serve(tasks_read, results_write)
            finally:
                os._exit(code)
        os.close(tasks_read)
        os.close(results_write)
        os.set_blocking(tasks_write, False)
        return _Worker(pid, tasks_write, results_read)

    def submit(self, function: Callable[[Item], Result], items: list[Item], size: int) -> Job:
        job = Job(self)
        chunk = pickle.dumps((function, items), pickle.HIGHEST_PROTOCOL)
        self.waiting.append((job, chunk, size))
        self.pump()
        return job

    def pump(self, wait: bool = False) -> None:
        """Move what can be moved: chunks out to the workers that have room for them, results
        in. With `wait`, until at least one of them moved."""
        self._hand_out()
        poller = self.poll()
        by_end: dict[int, _Worker] = {}
        for worker in self.workers:
            if worker.held:
                poller.register(worker.results, self.readable)
                by_end[worker.results] = worker
            if worker.outbox:
                poller.register(worker.tasks, self.writable)
                by_end[worker.tasks] = worker
        if not by_end:
            if wait:  # a job neither held nor waiting would be waited for forever
                raise RuntimeError("waiting for a result no worker holds")
            return
        for end, _event in poller.poll(None if wait else 0):
            worker = by_end[end]
            if end == worker.tasks:
                self._send(worker)
            else:
                self._receive(worker)
        self._hand_out()

    def _hand_out(self) -> None:
        """The waiting chunks, in order, each to the worker with room that holds the least."""
        while self.waiting:
            free = [worker for worker in self.workers if len(worker.held) < _HELD_PER_WORKER]
            if not free:
                return
            worker = min(free, key=lambda free_worker: free_worker.load)
            job, chunk, size = self.waiting.popleft()
            idle = not worker.outbox
            worker.outbox += len(chunk).to_bytes(_HEADER_BYTES, "little")
            worker.outbox += chunk
            worker.held.append((job, size))
            worker.load += size
            if idle:
                self._send(worker)

    def _send(self, worker: _Worker) -> None:
        try:
            written = os.write(worker.tasks, worker.outbox)
        except BlockingIOError:  # the pipe is full: `pump` writes the rest when it drains
            return
        except BrokenPipeError:
            raise _stopped(worker) from None
        del worker.outbox[:written]

    def _receive(self, worker: _Worker) -> None:
        data = os.read(worker.results, _PIPE_BYTES)
        if not data:
            raise _stopped(worker)
        inbox = worker.inbox
        inbox += data
        while len(inbox) >= _HEADER_BYTES:
            end = _HEADER_BYTES + int.from_bytes(inbox[:_HEADER_BYTES], "little")
            if len(inbox) < end:
                return
            ok, value = pickle.loads(inbox[_HEADER_BYTES:end])
            del inbox[:end]
            job, size = worker.held.popleft()
            worker.load -= size
            job.done = True
            if ok:
                job.value = value
            else:
                job.error = value

    def shutdown(self, abandon: bool = False) -> None:
        """Stop the workers: each exits when its pipe closes, having sent what it held; killed
        at once when the work is abandoned."""
        import signal

        for worker in self.workers:
            os.close(worker.tasks)
            if abandon:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGKILL)
        for worker in self.workers:
            os.close(worker.results)
            os.waitpid(worker.pid, 0)
        self.workers = []


def _stopped(worker: _Worker) -> RuntimeError:
    return RuntimeError(f"a worker process (pid {worker.pid}) stopped unexpectedly")


def _serve(tasks: int, results: int) -> int:
    """A forked worker's life: chunks in, results out, until this process closes the pipe."""
    import signal

    # Ctrl-C reaches the whole process group: the main process stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    incoming = os.fdopen(tasks, "rb")
    while True:
        header = incoming.read(_HEADER_BYTES)
        if len(header) < _HEADER_BYTES:
            return 0
        function, items = pickle.loads(incoming.read(int.from_bytes(header, "little")))
        try:
            outcome = pickle.dumps((True, _map_chunk(function, items)), pickle.HIGHEST_PROTOCOL)
        except BaseException as error:  # raised in the main process, where the result is asked
            try:
                outcome = pickle.dumps((False, error), pickle.HIGHEST_PROTOCOL)
            except Exception:
                failure = RuntimeError(f"{type(error).__name__}: {error}")
                outcome = pickle.dumps((False, failure), pickle.HIGHEST_PROTOCOL)
        message = memoryview(len(outcome).to_bytes(_HEADER_BYTES, "little") + outcome)
        while message:
            message = message[os.write(results, message) :]


class SpawnedPool:
    """The standard library's process pool, where processes are spawned (macOS, Windows)."""

    def __init__(self, jobs: int) -> None:
        # Imported here: most runs are small or cached and never start a pool, and these
        # modules take longer to import than such a run takes.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.executor = ProcessPoolExecutor(
            max_workers=jobs, mp_context=multiprocessing.get_context()
        )

    def submit(self, function: Callable[[Item], Result], items: list[Item], size: int):
        return self.executor.submit(_map_chunk, function, items)

    def pump(self, wait: bool = False) -> None:
        """Nothing to do: the executor's own threads move the work."""

    def shutdown(self, abandon: bool = False) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class OrderedMap(Generic[Item, Result]):
    """`function` over items given one at a time, results in the order given. The items are
    handed to the workers as soon as those given add up to enough work, while the caller goes
    on finding more (reading and prefiltering files overlaps parsing); below that, they run in
    this process when the results are asked for. `function` must be a module-level function;
    `here`, what this process runs instead for the items it keeps (the same result; it may keep
    what a worker could not hand back)."""

    def __init__(
        self,
        function: Callable[[Item], Result],
        workers: Workers,
        here: Callable[[Item], Result] | None = None,
    ) -> None:
        self.function = function
        self.here = here or function
        self.workers = workers
        self.waiting: list[Item] = []  # given, not yet handed to a worker
        self.sizes: list[int] = []  # theirs
        self.waiting_size = 0
        self.given_size = 0
        self.chunks: list[Any] = []  # `Job`s or futures, in the order of their items

    def put(self, item: Item, size: int) -> None:
        """Give one item; `size` is the work it represents (bytes of source)."""
        self.waiting.append(item)
        self.sizes.append(size)
        self.waiting_size += size
        self.given_size += size
        workers = self.workers
        # One item alone, however large, is parsed here: a worker would only add the round
        # trip of its facts (a large module's are larger than its source).
        if workers.pool is None and len(self.waiting) > 1 and self.given_size >= workers.threshold:
            workers.start()
            if workers.pool is None:  # one job: everything runs here
                return
            # What was given before the start goes out in chunks too, not all to one worker.
            start, size = 0, 0
            for end, item_size in enumerate(self.sizes, start=1):
                size += item_size
                if size >= _CHUNK_BYTES:
                    self._hand_over(self.waiting[start:end], size)
                    start, size = end, 0
            del self.waiting[:start], self.sizes[:start]
            self.waiting_size = size
        elif (
            workers.pool is not None and len(self.waiting) > 1 and self.waiting_size >= _CHUNK_BYTES
        ):
            self._hand_over(self.waiting, self.waiting_size)
            self.waiting, self.sizes, self.waiting_size = [], [], 0
        elif workers.pool is not None:
            # Between hand-overs a worker may finish: it gets its next chunk now, not when this
            # process next has one to give.
            workers.pool.pump()

    def results(self) -> list[Result]:
        """Every item's result, in the order the items were given."""
        pool = self.workers.pool
        if pool is not None and len(self.waiting) > 1:
            # What is left is shared out between the workers and this process, which would
            # otherwise only wait: a small batch keeps every core busy.
            left = self._share_out(self.workers.jobs + 1, keep_last=True)
        else:
            left, self.waiting, self.sizes = self.waiting, [], []
        here = []
        for item in left:
            here.append(self.here(item))
            if pool is not None:
                pool.pump()  # the workers' next chunks go out while this process works
        return [result for chunk in self.chunks for result in chunk.result()] + here

    def hand_over_all(self) -> None:
        """Hand every item given so far to the workers, in shares of about equal size, none
        kept for this process: it has other work to do meanwhile. Without workers they wait
        for `results`."""
        if self.workers.pool is not None and self.waiting:
            self._share_out(self.workers.jobs, keep_last=False)

    def _share_out(self, parts: int, keep_last: bool) -> list[Item]:
        """Cut what waits into `parts` shares of about equal size (not of equal count: one large
        module among small ones is a share of its own) and hand them to the workers, the last
        one too unless it is kept; returns what is kept."""
        left, sizes = self.waiting, self.sizes
        self.waiting, self.sizes, self.waiting_size = [], [], 0
        start = 0
        for end in _cuts(sizes, parts):
            self._hand_over(left[start:end], sum(sizes[start:end]))
            start = end
        if keep_last:
            return left[start:]
        self._hand_over(left[start:], sum(sizes[start:]))
        return []

    def _hand_over(self, items: list[Item], size: int) -> None:
        assert self.workers.pool is not None
        self.chunks.append(self.workers.pool.submit(self.function, items, size))


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

"""A process pool that survives its tasks: one that runs past the time limit or kills its worker
(a stack overflow in a native parser, say) is reported as lost, and the other tasks go on.

`concurrent.futures` cannot do this: a dead worker breaks the whole pool, and a task cannot be
stopped once started. Here every worker runs one task at a time, so the task that was running when
a worker died or overran is known, and that worker alone is killed and replaced.

With one job there is no pool: the tasks run here, one after another, so that a debugger can step
through them. The time limit then holds through SIGALRM (on the main thread), which stops Python
code but not a native call until it returns; a task that crashes the interpreter ends the scan.
"""

from __future__ import annotations

import gc
import multiprocessing
import signal
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Callable, Generic, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class TaskLost:
    """Why a task has no result: it overran the time limit, its worker died, or it raised."""

    reason: str


class _Worker(Generic[T, R]):
    def __init__(self, function: Callable[[T], R]):
        self.conn, child_end = multiprocessing.Pipe()
        self.process = multiprocessing.Process(target=_serve, args=(function, child_end), daemon=True)
        self.process.start()
        child_end.close()
        self.task: int | None = None
        self.deadline = 0.0

    def start(self, index: int, item: T, time_limit: float) -> None:
        self.task = index
        self.deadline = time.monotonic() + time_limit
        self.conn.send(item)

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _serve(function: Callable[[T], R], conn: Connection) -> None:
    # Ctrl-C reaches the whole process group; the parent alone reports it and stops the workers.
    # A SIGTERM to the group ends a worker at once, without the parent's "terminated" line.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # What the worker inherited from its parent stays as it is: the collector need not scan it.
    gc.freeze()
    while True:
        try:
            item = conn.recv()
        except EOFError:
            return
        try:
            result: R | TaskLost = function(item)
        except Exception as exc:  # a bug in one task must not cost the others their results
            result = TaskLost(f"{type(exc).__name__}: {exc}")
        conn.send(result)


def run_all(
    function: Callable[[T], R], items: Sequence[T], jobs: int, time_limit: float,
    on_done: Callable[[int], None] | None = None,
) -> list[R | TaskLost]:
    """`function` over `items` in up to `jobs` processes; results in the order of `items`.

    `function` must be a module-level function, and items and results picklable. `on_done` is
    told the position of each item as it finishes (or is lost), for progress. With `jobs` 1 the
    items are run in this process (see above).
    """
    if jobs <= 1:
        return _run_here(function, items, time_limit, on_done)
    results: list[R | TaskLost | None] = [None] * len(items)
    queue = deque(range(len(items)))
    workers: list[_Worker[T, R]] = []

    def feed(worker: _Worker[T, R]) -> None:
        if queue:
            index = queue.popleft()
            worker.start(index, items[index], time_limit)

    try:
        workers = [_Worker(function) for _ in range(min(jobs, len(items)))]
        for worker in workers:
            feed(worker)
        while busy := [w for w in workers if w.task is not None]:
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
            for position, worker in enumerate(workers):
                if worker.task is None:
                    continue
                task = worker.task
                lost = _collect(worker, results, time_limit)
                if lost:
                    results[worker.task] = lost
                    worker.stop()
                    worker = workers[position] = _Worker(function)
                if worker.task is None:
                    feed(worker)  # at once: the other workers' results can be read meanwhile
                    if on_done is not None:
                        on_done(task)
    finally:
        for worker in workers:
            worker.stop()
    return results  # type: ignore[return-value]  # every slot was filled


def _collect(worker: _Worker, results: list, time_limit: float) -> TaskLost | None:
    """Store the worker's result if it has one; say why the task is lost if it never will."""
    if worker.conn.poll():
        try:
            results[worker.task] = worker.conn.recv()
        except EOFError:
            return _death(worker)
        worker.task = None
        return None
    if not worker.process.is_alive():
        return _death(worker)
    if time.monotonic() >= worker.deadline:
        return TaskLost(f"took longer than the {time_limit:g}s limit")
    return None


def _death(worker: _Worker) -> TaskLost:
    worker.process.join()
    code = worker.process.exitcode
    if code is not None and code < 0:
        try:
            how = f"signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"signal {-code}"
    else:
        how = f"exit status {code}"
    return TaskLost(f"the worker process died ({how})")


def _run_here(
    function: Callable[[T], R], items: Sequence[T], time_limit: float, on_done: Callable[[int], None] | None
) -> list[R | TaskLost]:
    results: list[R | TaskLost] = []
    for position, item in enumerate(items):
        try:
            with _time_limit(time_limit):
                results.append(function(item))
        except _Overran:
            results.append(TaskLost(f"took longer than the {time_limit:g}s limit"))
        except Exception as exc:  # as in a worker: a bug in one task must not cost the others
            results.append(TaskLost(f"{type(exc).__name__}: {exc}"))
        if on_done is not None:
            on_done(position)
    return results


class _Overran(BaseException):
    """Raised by SIGALRM into a task run here; a BaseException, so no `except Exception` takes it."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals: no limit
        return

    def overran(number: int, frame: object) -> None:
        raise _Overran

    previous = signal.signal(signal.SIGALRM, overran)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

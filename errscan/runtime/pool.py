"""A process pool that survives its tasks: one that runs past the time limit or kills its worker
(a stack overflow in a native parser, say) is reported as lost, and the other tasks go on.

`concurrent.futures` cannot do this: a dead worker breaks the whole pool, and a task cannot be
stopped once started. Here every worker runs its tasks one at a time, in the order sent, so the
task that was running when a worker died or overran is known (the oldest it has not finished),
and that worker alone is killed and replaced; a task it held but had not started goes to another.
Each worker holds two tasks, so it starts the next without waiting for the parent; a task is its
position in the items, which the worker forked with.

A worker ends with the process that started it, even one killed by SIGKILL (which can neither
stop its workers nor close their pipes, and each later worker holds copies of those pipes): on
Linux the kernel sends it SIGKILL when its parent ends (PR_SET_PDEATHSIG); elsewhere a thread of
the worker sees that it was given another parent and ends it.

With one job there is no pool: the tasks run here, one after another, so that a debugger can step
through them. The time limit then holds through SIGALRM (on the main thread), which stops Python
code but not a native call until it returns; a task that crashes the interpreter ends the scan.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
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


IN_FLIGHT = 2  # tasks a worker holds: it starts the next one without waiting for the parent


class _Worker(Generic[T, R]):
    """A process that runs `function` on the items whose positions it is sent, in the order sent."""

    def __init__(self, function: Callable[[T], R], items: Sequence[T]):
        # One pipe each way: positions the worker has not read yet never get in the way of
        # reading the results it sent before it died.
        tasks, self.tasks = multiprocessing.Pipe(duplex=False)
        try:
            self.results, results = multiprocessing.Pipe(duplex=False)
        except OSError:
            tasks.close()
            self.tasks.close()
            raise
        # Forked, the worker has the items in its copy of memory: only their positions are sent.
        self.process = multiprocessing.Process(
            target=_serve, args=(function, items, tasks, results, os.getpid()), daemon=True
        )
        try:
            self.process.start()
        finally:
            tasks.close()
            results.close()
            if self.process.pid is None:  # not started: the parent's ends go too
                self.tasks.close()
                self.results.close()
        self.sent: deque[int] = deque()  # positions sent and not done, oldest first: the first runs
        self.deadline = 0.0  # of the first

    def send(self, index: int, time_limit: float) -> None:
        if not self.sent:
            self.deadline = time.monotonic() + time_limit
        self.sent.append(index)
        try:
            self.tasks.send(index)
        except OSError:
            pass  # the worker died: its sentinel tells, and the task is lost or sent again

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.tasks.close()
        self.results.close()


def _serve(function: Callable[[T], R], items: Sequence[T], tasks: Connection, results: Connection, parent: int) -> None:
    _end_with(parent)
    # Ctrl-C reaches the whole process group; the parent alone reports it and stops the workers.
    # A SIGTERM to the group ends a worker at once, without the parent's "terminated" line.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # What the worker inherited from its parent stays as it is: the collector need not scan it.
    gc.freeze()
    while True:
        try:
            index = tasks.recv()
        except EOFError:
            return
        try:
            result: R | TaskLost = function(items[index])
        except Exception as exc:  # a bug in one task must not cost the others their results
            result = TaskLost(f"{type(exc).__name__}: {exc}")
        results.send(result)


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
PARENT_CHECK_SECONDS = 1.0  # how often a worker without a death signal looks at its parent


def _end_with(parent: int) -> None:
    """End this worker when `parent`, the process that started it, ends (see the module's doc)."""
    if not _ask_for_a_death_signal(parent):
        threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # it ended before the worker could ask
        os._exit(1)


def _ask_for_a_death_signal(parent: int) -> bool:
    """Linux: have the kernel send SIGKILL the moment the parent (its thread that forked) ends."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def run_all(
    function: Callable[[T], R], items: Sequence[T], jobs: int, time_limit: float,
    on_done: Callable[[int], None] | None = None,
) -> list[R | TaskLost]:
    """`function` over `items` in up to `jobs` processes; results in the order of `items`.

    `function` must be a module-level function and results picklable (items too where processes
    are spawned rather than forked). `on_done` is told the position of each item as it finishes
    (or is lost), for progress. With `jobs` 1 the items are run in this process (see above).
    """
    if jobs <= 1:
        return _run_here(function, items, time_limit, on_done)
    results: list[R | TaskLost | None] = [None] * len(items)
    queue = deque(range(len(items)))
    workers: list[_Worker[T, R]] = []

    def feed(worker: _Worker[T, R]) -> None:
        while queue and len(worker.sent) < IN_FLIGHT:
            worker.send(queue.popleft(), time_limit)

    try:
        for _ in range(min(jobs, len(items))):
            if (started := _start(function, items, jobs)) is None:
                break
            workers.append(started)
        for worker in workers:
            feed(worker)
        while busy := [w for w in workers if w.sent]:
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            wait([w.results for w in busy] + [w.process.sentinel for w in busy], timeout)
            for worker in busy:
                task = worker.sent[0]
                outcome = _collect(worker, results, time_limit)
                if outcome is _RUNNING:
                    continue
                if isinstance(outcome, TaskLost):
                    results[task] = outcome
                    queue.extendleft(reversed(list(worker.sent)[1:]))  # not started: to another worker
                    worker.stop()
                    position = workers.index(worker)
                    if (replacement := _start(function, items, jobs)) is None:
                        del workers[position]  # the others take its tasks
                    else:
                        worker = workers[position] = replacement
                if worker in workers:
                    feed(worker)  # at once: the other workers' results can be read meanwhile
                if on_done is not None:
                    on_done(task)
    finally:
        for worker in workers:
            worker.stop()
    if queue:  # no process could be started: the rest run here
        rest = list(queue)
        for index, result in zip(rest, _run_here(function, [items[i] for i in rest], time_limit, None)):
            results[index] = result
            if on_done is not None:
                on_done(index)
    return results  # type: ignore[return-value]  # every slot was filled


_told_short = False  # whether the note that fewer processes run than asked for was printed


def _start(function: Callable[[T], R], items: Sequence[T], jobs: int) -> "_Worker[T, R] | None":
    """A new worker; None when the system allows no more processes or pipes (a process or
    open-file limit, memory), said once on stderr: the scan goes on with the workers it has."""
    global _told_short
    try:
        return _Worker(function, items)
    except OSError as exc:
        if not _told_short:
            _told_short = True
            reason = exc.strerror or str(exc)
            print(f"errscan: note: not all of the {jobs} processes asked for could be started ({reason}); "
                  "going on with fewer", file=sys.stderr)
        return None


_RUNNING = object()


def _collect(worker: _Worker, results: list, time_limit: float) -> TaskLost | object | None:
    """Store the result of the worker's running task if it has one (None); say why the task is
    lost if it never will have one; `_RUNNING` while it may still."""
    if worker.results.poll():
        try:
            results[worker.sent[0]] = worker.results.recv()
        except EOFError:
            return _death(worker)
        worker.sent.popleft()
        worker.deadline = time.monotonic() + time_limit  # the next one has just started
        return None
    if not worker.process.is_alive():
        return _death(worker)
    if time.monotonic() >= worker.deadline:
        return TaskLost(f"took longer than the {time_limit:g}s limit")
    return _RUNNING


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

"""The worker pool: results in input order, and a task that hangs, crashes or raises is lost alone;
with one job, no process at all."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import children_of, wait_until_gone
from errscan.runtime.pool import TaskLost, run_all


def behave(item: str) -> str:
    if item == "hang":
        time.sleep(3600)
    if item == "crash":
        os.kill(os.getpid(), signal.SIGKILL)  # as a native crash would end it
    if item == "raise":
        raise ValueError("bad item")
    return item.upper()


def test_results_come_back_in_input_order_whatever_the_number_of_workers():
    items = [f"item{i}" for i in range(40)]
    for jobs in (1, 3):
        assert run_all(behave, items, jobs, time_limit=60) == [i.upper() for i in items]


def test_each_task_is_reported_done_once_lost_or_not():
    done = []
    run_all(behave, ["a", "crash", "b", "raise"], 2, time_limit=60, on_done=done.append)
    assert sorted(done) == [0, 1, 2, 3]


@pytest.mark.parametrize("jobs", [1, 2], ids=["here", "pool"])
def test_a_task_that_overruns_is_lost_and_the_others_finish(jobs):
    results = run_all(behave, ["a", "hang", "b", "c"], jobs, time_limit=1)
    assert results[0] == "A" and results[2:] == ["B", "C"]
    assert results[1] == TaskLost("took longer than the 1s limit")


def test_a_task_that_kills_its_worker_is_lost_and_the_worker_replaced():
    results = run_all(behave, ["crash", "a", "crash", "b", "c"], 2, time_limit=60)
    assert results[1::2] == ["A", "B"] and results[4] == "C"
    assert results[0] == results[2] == TaskLost("the worker process died (signal SIGKILL)")


@pytest.mark.parametrize("jobs", [1, 2], ids=["here", "pool"])
def test_a_task_that_raises_is_lost_with_the_exception(jobs):
    assert run_all(behave, ["raise", "a"], jobs, time_limit=60) == [TaskLost("ValueError: bad item"), "A"]


def test_one_job_runs_here_and_leaves_no_alarm_behind(monkeypatch):
    def no_process(*args, **kwargs):
        raise AssertionError("a process was started")

    monkeypatch.setattr(os, "fork", no_process)
    monkeypatch.setattr(multiprocessing.Process, "start", no_process)
    assert run_all(behave, ["a", "hang", "b"], 1, time_limit=0.5) == ["A", TaskLost("took longer than the 0.5s limit"), "B"]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_no_items_start_no_workers():
    assert run_all(behave, [], 4, time_limit=60) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("death_signal", [True, False], ids=["death-signal", "watching-the-parent"])
def test_workers_end_when_their_parent_is_killed(death_signal):
    # The parent is killed with SIGKILL: it can neither stop its workers nor close their pipes.
    script = (
        "import time\n"
        "from errscan.runtime import pool\n"
        f"if not {death_signal}:\n"
        "    pool._ask_for_a_death_signal = lambda parent: False\n"
        "pool.run_all(time.sleep, [3600.0] * 3, 3, 7200)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        workers = children_of(parent.pid, 3)
        assert len(workers) == 3, "the pool started no workers"
    finally:
        parent.kill()
        parent.wait()
    left = wait_until_gone(workers, 10)
    for pid in left:  # so that a failure leaves nothing running
        os.kill(pid, signal.SIGKILL)
    assert left == []

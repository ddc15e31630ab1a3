"""The runner: output independent of the number of processes, one process with one job, and a
file that hangs costs only itself."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import errscan.analysis
import errscan.runtime.runner
from conftest import FIXTURES, run_cli, source_file
from errscan.cli import cli
from errscan.extract import extract_file
from errscan.runtime.runner import extract_all
from errscan.scope import Scope

PATTERNS = FIXTURES / "patterns"


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_output_is_byte_identical_whatever_the_number_of_processes(tmp_path):
    sites = {}
    for jobs in ("1", "2", "5"):
        out = tmp_path / f"site-{jobs}"
        done = run_cli("scan", str(PATTERNS), "--include", "**", "--jobs", jobs, "--out", str(out), "-q")
        assert done.returncode == 0, done.stderr
        sites[jobs] = tree_bytes(out)
    assert sites["1"] and sites["1"] == sites["2"] == sites["5"]


def test_one_job_scans_and_writes_the_site_without_a_child_process(tmp_path, monkeypatch):
    """So that `errscan scan -j 1` can be stepped through in a debugger. Git, which a folder's
    commit is asked of, fails here too: the folder reads as one outside any repository."""
    started = []

    def no_process(*args, **kwargs):
        started.append(args)
        raise OSError("no child process in this test")

    monkeypatch.setattr(os, "fork", no_process)
    monkeypatch.setattr(multiprocessing.Process, "start", no_process)
    monkeypatch.setattr(subprocess, "Popen", no_process)
    out = tmp_path / "site"
    done = CliRunner().invoke(cli, ["scan", str(PATTERNS), "--include", "**", "-j", "1", "--no-cache", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert (out / "api" / "index.json").is_file() and "raises" in done.output
    assert [args for args in started if "git" not in str(args)] == []


real_extract_task = errscan.runtime.runner._extract_task


def extract_or_hang(task):
    """Stands in for the real per-file task: with libcst, never returns for one file, as a
    pathological one might."""
    if task.sources[0].path == "pkg/hangs.py" and task.libcst_failure is None:
        time.sleep(3600)
    return real_extract_task(task)


@pytest.mark.parametrize("jobs", [1, 2], ids=["here", "pool"])
def test_a_file_that_overruns_the_time_limit_is_catalogued_from_ast(monkeypatch, jobs):
    monkeypatch.setattr(errscan.runtime.runner, "_extract_task", extract_or_hang)
    files = [source_file(PATTERNS / "errors.py", "pkg/hangs.py"), source_file(PATTERNS / "literals.py", "pkg/ok.py")]
    hangs, ok = extract_all(files, Scope(("pkg/**",)), jobs=jobs, time_limit=1)
    assert ok.failure is None and ok.sites
    assert hangs.failure.reason == "took longer than the 1s limit; raise sites taken from ast"
    assert [s.line for s in hangs.sites] == [s.line for s in extract_file(files[0], True).sites]


def test_the_analysis_runs_its_chunks_in_the_pool_and_writes_the_same_api(tmp_path, monkeypatch):
    """With two jobs the sites' analysis runs in forked workers, and the documents are those of
    one job, analysed here."""
    real_chunk = errscan.analysis._Analysis.chunk
    ran = tmp_path / "ran"

    def recorded(self, positions):
        with ran.open("a") as log:
            log.write(f"{os.getpid()} {len(positions)}\n")
        return real_chunk(self, positions)

    monkeypatch.setattr(errscan.analysis._Analysis, "chunk", recorded)
    package = FIXTURES / "analysis_pkg"
    apis, pids = {}, {}
    for jobs in ("1", "2"):
        out = tmp_path / f"site-{jobs}"
        done = CliRunner().invoke(cli, ["scan", str(package), "--include", "vllm/**", "-j", jobs, "--no-cache", "--out", str(out)])
        assert done.exit_code == 0, done.output
        apis[jobs] = tree_bytes(out / "api")
        pids[jobs] = [int(line.split()[0]) for line in ran.read_text().splitlines()]
        ran.unlink()
    assert len(apis["1"]) > 5 and apis["1"] == apis["2"]
    assert set(pids["1"]) == {os.getpid()}
    assert os.getpid() not in pids["2"] and len(pids["2"]) > 1

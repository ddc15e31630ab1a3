"""The scan: ids, bases, and output independent of the number of processes; a file that hangs
costs only itself."""

from __future__ import annotations

import time
from pathlib import Path

import errscan.scan
from conftest import FIXTURES, run_cli, source_file
from errscan.extract import extract_file
from errscan.profiles.vllm import VLLM
from errscan.scan import ScanOptions, extract_all, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

PATTERNS = FIXTURES / "patterns"


def scan_patterns(jobs=1):
    source = FolderSource(FIXTURES / "patterns", VLLM)
    return scan(source, ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=jobs))


def test_identical_twins_get_distinct_ids_and_ids_are_unique():
    catalog = scan_patterns()
    twins = [e for e in catalog.errors if e.function == "twins"]
    assert len(twins) == 2 and twins[0].id != twins[1].id
    assert len({e.id for e in catalog.errors}) == len(catalog.errors)


def test_ids_survive_a_move(tmp_path):
    source = (FIXTURES / "patterns" / "literals.py").read_text()
    (tmp_path / "literals.py").write_text(source)
    before = {e.message: e.id for e in scan(FolderSource(tmp_path, VLLM), ScanOptions("o/r", Scope(("**",)))).errors}
    (tmp_path / "literals.py").write_text("\n\n# moved down\n" + source)
    after = scan(FolderSource(tmp_path, VLLM), ScanOptions("o/r", Scope(("**",)))).errors
    assert {e.message: e.id for e in after} == before
    assert all(e.line > 3 for e in after)


def test_exception_bases_follow_classes_in_the_tree():
    catalog = scan_patterns()
    (timeout,) = [e for e in catalog.errors if e.message == "timed out"]
    assert timeout.exception_qualname == "errors.KVTimeoutError"
    assert timeout.exception_bases == ("errors.KVTransferError", "builtins.RuntimeError")


def test_enclosing_function_docstring_is_kept(tmp_path):
    (tmp_path / "d.py").write_text(
        'def f():\n    """Pick the group.\n\n    Exactly one must match.\n    """\n    raise ValueError("m")\n'
        "raise KeyError('top')\n"
    )
    inner, top = scan(FolderSource(tmp_path, VLLM), ScanOptions("o/r", Scope(("**",)))).errors
    assert inner.docstring == "Pick the group.\n\nExactly one must match."
    assert top.docstring is None


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


real_extract_task = errscan.scan._extract_task


def extract_or_hang(task):
    """Stands in for the real per-file task: with libcst, never returns for one file, as a
    pathological one might."""
    if task.sources[0].path == "pkg/hangs.py" and task.libcst_failure is None:
        time.sleep(3600)
    return real_extract_task(task)


def test_a_file_that_overruns_the_time_limit_is_catalogued_from_ast(monkeypatch):
    monkeypatch.setattr(errscan.scan, "_extract_task", extract_or_hang)
    files = [source_file(PATTERNS / "errors.py", "pkg/hangs.py"), source_file(PATTERNS / "literals.py", "pkg/ok.py")]
    hangs, ok = extract_all(files, Scope(("pkg/**",)), jobs=2, time_limit=1)
    assert ok.failure is None and ok.sites
    assert hangs.failure.reason == "took longer than the 1s limit; raise sites taken from ast"
    assert [s.line for s in hangs.sites] == [s.line for s in extract_file(files[0], True).sites]

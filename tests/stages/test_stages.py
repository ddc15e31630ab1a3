"""The stages called one after another, with no runner: ids, bases, docstrings, and the very
catalog the runner makes over processes."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from errscan.analysis import analyze
from errscan.extract import LogCalls
from errscan.model import Catalog
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource
from errscan.stages import assemble_catalog, call_graph, error_sites, extract_versions, package_index

EVERY_FILE = Scope(("**",))


def catalog_of(folder: Path) -> Catalog:
    """As a reader steps through a scan: each stage in turn, in this process."""
    source = FolderSource(folder, VLLM)
    logs = LogCalls(VLLM.log_helpers)
    results = sorted(
        (result for f in source.files() for result in extract_versions([f], EVERY_FILE.catalogues(f.path), logs=logs)),
        key=lambda r: r.path,
    )
    index = package_index(results)
    sites = error_sites(results, index, "o/r", source.commit)
    graph = call_graph(index, results, VLLM)
    return assemble_catalog(
        results, graph, analyze(sites, graph, VLLM), repo="o/r", commit=source.commit, version=source.version,
        scope=EVERY_FILE, stage_seconds={},
    )


def test_the_stages_in_turn_make_the_catalog_the_runner_makes_over_processes():
    alone = catalog_of(FIXTURES / "patterns")
    assert alone.errors
    assert alone == scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions("o/r", EVERY_FILE, jobs=2))


def test_identical_twins_get_distinct_ids_and_ids_are_unique():
    catalog = catalog_of(FIXTURES / "patterns")
    twins = [e for e in catalog.errors if e.function == "twins"]
    assert len(twins) == 2 and twins[0].id != twins[1].id
    assert len({e.id for e in catalog.errors}) == len(catalog.errors)


def test_ids_survive_a_move(tmp_path):
    source = (FIXTURES / "patterns" / "literals.py").read_text()
    (tmp_path / "literals.py").write_text(source)
    before = {e.message: e.id for e in catalog_of(tmp_path).errors}
    (tmp_path / "literals.py").write_text("\n\n# moved down\n" + source)
    after = catalog_of(tmp_path).errors
    assert {e.message: e.id for e in after} == before
    assert all(e.line > 3 for e in after)


def test_exception_bases_follow_classes_in_the_tree():
    (timeout,) = [e for e in catalog_of(FIXTURES / "patterns").errors if e.message == "timed out"]
    assert timeout.exception_qualname == "errors.KVTimeoutError"
    assert timeout.exception_bases == ("errors.KVTransferError", "builtins.RuntimeError")


def test_enclosing_function_docstring_is_kept(tmp_path):
    (tmp_path / "d.py").write_text(
        'def f():\n    """Pick the group.\n\n    Exactly one must match.\n    """\n    raise ValueError("m")\n'
        "raise KeyError('top')\n"
    )
    inner, top = catalog_of(tmp_path).errors
    assert inner.docstring == "Pick the group.\n\nExactly one must match."
    assert top.docstring is None

"""Several sources scanned together: shared files parsed once, each catalog as if scanned alone."""

from __future__ import annotations

import shutil

import pytest

from conftest import FIXTURES

from errscan.profiles.vllm import VLLM
from errscan.runtime.cache import ScanCache
from errscan.runtime.runner import ScanOptions, scan, scan_together
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

FILES = len(list((FIXTURES / "patterns").glob("*.py")))


@pytest.fixture
def releases(tmp_path):
    """Three versions of the fixture package: the first as it is, the second with one file
    edited, the third with a function added to another file."""
    trees = [tmp_path / name for name in ("one", "two", "three")]
    for tree in trees:
        shutil.copytree(FIXTURES / "patterns", tree)
    for tree in trees[1:]:
        edited = tree / "errors.py"
        edited.write_text("import os\n" + edited.read_text())
    added = trees[2] / "literals.py"
    added.write_text(added.read_text() + '\n\ndef late():\n    raise KeyError("only in three")\n')
    return [FolderSource(tree, VLLM) for tree in trees]


@pytest.mark.parametrize("jobs", [1, 2], ids=["in-process", "forked"])
def test_each_catalog_is_the_one_its_source_gives_alone(releases, tmp_path, jobs):
    options = ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=jobs, cache=ScanCache(tmp_path / "cache"))
    together = scan_together(releases, options)
    alone = [scan(source, ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1)) for source in releases]
    assert [s.catalog for s in together] == alone
    assert [s.parsed for s in together] == [FILES, 1, 1]  # only what changed since the source before
    assert "only in three" in {e.message for e in together[2].catalog.errors}
    assert "only in three" not in {e.message for e in together[1].catalog.errors}


def test_without_a_cache_shared_files_are_still_parsed_once(releases):
    together = scan_together(releases, ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=2))
    assert [s.parsed for s in together] == [FILES, 1, 1]


def test_a_source_scanned_before_takes_its_catalog_from_the_cache(releases, tmp_path):
    options = ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=2, cache=ScanCache(tmp_path / "cache"))
    first = scan_together(releases[:2], options)
    again = ScanCache(tmp_path / "cache")
    second = scan_together(releases, ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=2, cache=again))
    assert [s.catalog for s in second[:2]] == [s.catalog for s in first]
    assert [s.parsed for s in second] == [0, 0, 1]
    assert second[0].catalog.summary.stage_seconds.keys() == {"total"}  # not analysed again

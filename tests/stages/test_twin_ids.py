"""Ids stay unique when two messages differ only inside their placeholders."""

from __future__ import annotations

from conftest import FIXTURES

from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def test_placeholder_twins_get_distinct_ids():
    catalog = scan(FolderSource(FIXTURES / "twins", VLLM), ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1))
    assert [e.line for e in catalog.errors] == [3, 5]
    assert len({e.id for e in catalog.errors}) == 2

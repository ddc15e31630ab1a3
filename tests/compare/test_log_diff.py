"""`errscan diff` reports log sites as it reports raises: added, removed and changed (#15)."""

from __future__ import annotations

from conftest import FIXTURES
from errscan.compare.changes import diff_catalogs
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def catalog(version: str):
    import dataclasses

    profile = dataclasses.replace(VLLM, name="app", package="app", plugin_package="app.none")
    source = FolderSource(FIXTURES / "logdiff" / version, profile)
    return scan(source, ScanOptions(repo="o/r", scope=Scope(("app/**",)), jobs=1, profile=profile))


def test_log_sites_are_added_removed_and_changed():
    diff = diff_catalogs(catalog("v1"), catalog("v2"), "1", "2")
    assert [(a.level, a.message) for a in diff.added] == [("warning", "Push of {size} blocks split in batches")]
    assert [(r.level, r.message) for r in diff.removed] == [("error", "No peer given for the push")]
    changed = {c.new.message: {f.field: (f.old, f.new) for f in c.changes} for c in diff.changed}
    assert changed["Pushing {size} blocks to peer {peer} may take a while"]["message"] == (
        "Pushing {size} blocks to {peer} may be slow", "Pushing {size} blocks to peer {peer} may take a while")
    assert changed["Negative size {size} ignored"]["level"] == ("warning", "error")
    assert diff.unchanged == 1  # the raise

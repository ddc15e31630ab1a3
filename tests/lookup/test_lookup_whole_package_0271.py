"""Lookup on all of vLLM 0.27.1: real messages from every subsystem find their raise site first.

The messages (tests/fixtures/lookup/whole_package_messages.json) come from vLLM users' issues and
from `pytest.raises(..., match=...)` in vLLM's own tests; benchmarks/lookup_messages.py prints the
same count per subsystem with every miss.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import FIXTURES
from errscan.lookup import CatalogMatcher
from errscan.lookup.logs import find_errors
from errscan.profiles.vllm import VLLM
from errscan.runtime.cache import open_cache
from errscan.runtime.cachedir import default_cache_dir
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

DATA = json.loads((FIXTURES / "lookup" / "whole_package_messages.json").read_text())
CASES = DATA["from_issues"] + DATA["from_tests"]


def subsystem(path: str) -> str:
    return path.split("/")[1].removesuffix(".py")


def test_the_messages_span_the_package_and_say_where_they_were_read():
    assert len(CASES) >= 60
    assert len({subsystem(case["path"]) for case in CASES}) >= 10
    assert len(DATA["from_issues"]) >= 30 and len(DATA["from_tests"]) >= 20
    for case in CASES:
        assert case["text"].strip() and case["source"].startswith("https://"), case
        assert case["path"].startswith("vllm/") and case["line"] > 0, case


@pytest.fixture(scope="module")
def catalog(release_0271):
    """All of vllm/, through the user's cache (a cold scan of 2,360 files takes minutes)."""
    options = ScanOptions(repo=VLLM.repo, scope=Scope(("vllm/**",)), cache=open_cache(default_cache_dir()))
    return scan(FolderSource(release_0271, VLLM), options)


def first_site(matcher: CatalogMatcher, text: str) -> tuple[str, int] | None:
    """What `errscan lookup` prints first: the best candidate of the first error that has one."""
    for logged in find_errors(text):
        finding = matcher.find(logged)
        if finding.candidates:
            return finding.candidates[0].error["path"], finding.candidates[0].error["line"]
    return None


@pytest.mark.integration
@pytest.mark.releases
def test_every_expected_site_is_a_catalogued_error(catalog):
    sites = {(error.path, error.line) for error in catalog.errors}
    assert [(c["path"], c["line"]) for c in CASES if (c["path"], c["line"]) not in sites] == []


@pytest.mark.integration
@pytest.mark.releases
def test_real_messages_from_across_vllm_find_their_site_first_95_percent(catalog):
    matcher = CatalogMatcher.of_catalog(catalog)
    misses, hits = [], Counter()
    for case in CASES:
        found = first_site(matcher, case["text"])
        if found == (case["path"], case["line"]):
            hits[subsystem(case["path"])] += 1
        else:
            misses.append((case["path"], case["line"], found, case["source"]))
    assert sum(hits.values()) / len(CASES) >= 0.95, misses
    assert len(hits) >= 10

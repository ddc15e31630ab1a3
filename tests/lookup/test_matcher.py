"""The site's compact matcher (api/matcher.json) ranks as compiling every template would."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from errscan.api.documents import matcher_document
from errscan.api.read import error_reader, read_matcher
from errscan.lookup import CatalogMatcher, lookup
from errscan.match import compile_template, score_message, split_template
from errscan.profiles.vllm import VLLM
from errscan.render.site import write_site
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    catalog = scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions(VLLM.repo, Scope(("**",)), jobs=1))
    out = tmp_path_factory.mktemp("matcher") / "site"
    write_site(catalog, out, jobs=1)
    return out, catalog


def messages(catalog):
    """Instances of every template (values filled in), each cut short at several points, and reworded."""
    for error in catalog.errors:
        pieces = split_template(error.message)
        instance = "".join("x42 y" if p.is_field else p.text for p in pieces).strip()
        if not instance:
            continue
        yield instance
        yield from (instance[:end] for end in range(8, len(instance), 7))
        yield " ".join(reversed(instance.split()))


def test_the_document_reads_back(site):
    root, catalog = site
    assert read_matcher(root) == matcher_document(catalog)


def test_the_site_matcher_finds_what_compiling_every_template_finds(site):
    root, catalog = site
    matcher = CatalogMatcher(read_matcher(root), error_reader(root))
    compiled = {e.id: compile_template(e.message) for e in catalog.errors}
    checked = 0
    for message in sorted(set(messages(catalog))):
        found = {matcher.matcher.ids[i]: (m.rule, m.score, m.bindings) for i, m in matcher.matches(message)}
        expected = {}
        for error in catalog.errors:
            match = score_message(compiled[error.id], message) if compiled[error.id].literal_chars else None
            if match is not None:
                expected[error.id] = (match.rule, match.score, match.bindings)
        assert found == expected, message
        checked += bool(expected)
    assert checked > 100


def test_a_site_and_its_catalog_rank_alike(site):
    root, catalog = site
    from_site = CatalogMatcher(read_matcher(root), error_reader(root))
    for message in sorted(set(messages(catalog)))[::5]:
        text = f"ValueError: {message}"
        assert lookup(text, from_site) == lookup(text, catalog), text

"""The site's matcher, split by key (api/matcher/), ranks as compiling every template would."""

from __future__ import annotations

import msgspec
import pytest

from errscan.api.documents import matcher_documents
from errscan.lookup import CatalogMatcher, lookup
from errscan.lookup.output import as_json
from errscan.lookup.shards import SiteMatcher, key_word
from errscan.match import compile_template, score_message, split_template


@pytest.fixture(scope="module")
def site(patterns_site):
    return patterns_site


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
        yield f"ab3{instance}cd"  # glued to letters: its first and last words are cut (key_word)


def test_the_documents_read_back(site):
    root, catalog = site
    files = SiteMatcher(str(root))
    assert {path: files(path) for path in matcher_documents(catalog)} == msgspec.json.decode(msgspec.json.encode(matcher_documents(catalog)))


@pytest.mark.parametrize(
    "run, opens, text",
    [
        ("not initialized", False, "Rank 3cannot initializedx"),  # both ends inside words of the text
        ("is not divisible by", False, "7 is not divisible by 2"),
        ("3abc def", False, "x3abc defy"),  # after a digit a word may begin earlier
        ("Rank", True, "Ranking"),
    ],
)
def test_a_runs_key_is_among_the_keys_of_any_text_showing_it(run, opens, text):
    from errscan.match import words

    key = key_word(run, opens)
    assert run in text and any(key == "=" + word or key == "<" + word[:3] for word in words(text))


def test_the_site_matcher_finds_what_compiling_every_template_finds(site):
    root, catalog = site
    files = SiteMatcher(str(root))
    matcher = CatalogMatcher(files, files.error)
    compiled = {e.id: compile_template(e.message) for e in catalog.errors}
    checked = 0
    for message in sorted(set(messages(catalog))):
        found = {matcher.entry(i).id: (m.rule, m.score, m.bindings) for i, m in matcher.matches(message)}
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
    files = SiteMatcher(str(root))
    from_site = CatalogMatcher(files, files.error)
    for message in sorted(set(messages(catalog)))[::5]:
        text = f"ValueError: {message}"
        assert as_json(lookup(text, from_site)) == as_json(lookup(text, catalog)), text

"""Pages and the site's search lead with what the user sees of a wrapped, logged or answered error."""

from __future__ import annotations

import html
import re

import pytest

from browser import browser, page, search_results  # noqa: F401 (fixtures)
from errscan.render.site import write_site


@pytest.fixture(scope="module")
def surfaces_site(surfaces_catalog, tmp_path_factory):
    out = tmp_path_factory.mktemp("surfaces") / "site"
    write_site(surfaces_catalog, out, jobs=1)
    return out


def error_at(catalog, name, line):
    return next(e for e in catalog.errors if e.path.endswith(name) and e.line == line)


def seen_text(site, error) -> str:
    page_html = (site / "errors" / error.id / "index.html").read_text()
    found = re.search(r'<section id="seen".*?</section>', page_html, re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", found.group(0))).split()) if found else ""


def test_the_page_of_a_wrapped_assert_leads_with_the_wrapper(surfaces_site, surfaces_catalog):
    error = error_at(surfaces_catalog, "rewrapped.py", 11)
    page_html = (surfaces_site / "errors" / error.id / "index.html").read_text()
    assert page_html.index('id="seen"') < page_html.index('id="message"')
    text = seen_text(surfaces_site, error)
    assert "You will see EngineError: Failed to register local memory: register returned None in the log, not this AssertionError" in text
    wrapper = error_at(surfaces_catalog, "rewrapped.py", 13)
    assert f"errors/{wrapper.id}/index.html" in page_html
    assert "On the way out it is logged as an ERROR log record Registration failed for {tensor}" in text


@pytest.mark.parametrize("name, line, words", [
    ("response.py", 13, "sends an error response (ErrorReply, line 27)"),
    ("http_status.py", 10, "A client sees HTTP 500 with HTTPException: Allocation failed: Rank {rank} not initialized"),
    ("logged.py", 8, "You will see a WARNING log record Check failed: negative size {n}"),
    ("future_callback.py", 14, "On 1 of its 2 ways in, nothing shows it"),
])
def test_each_way_out_is_said_in_words(surfaces_site, surfaces_catalog, name, line, words):
    assert words in seen_text(surfaces_site, error_at(surfaces_catalog, name, line))


def test_an_error_raised_as_itself_has_no_such_section(surfaces_site, surfaces_catalog):
    assert seen_text(surfaces_site, error_at(surfaces_catalog, "unrelated.py", 7)) == ""


def test_the_search_page_finds_the_origin_of_a_wrapper_message(page, surfaces_site, surfaces_catalog):
    error = error_at(surfaces_catalog, "rewrapped.py", 11)
    page.goto((surfaces_site / "search" / "index.html").as_uri())
    page.fill("#q", "app.errors.EngineError: Failed to register local memory: register returned None")
    assert search_results(page)[0] == f"../errors/{error.id}/index.html"
    first = page.locator("#search-results li").first.inner_text()
    assert "seen as EngineError written at rewrapped.py:13" in first and "AssertionError: register returned None" in first
    assert search_results(page).count(f"../errors/{error.id}/index.html") == 1


def test_a_log_before_the_re_raise_is_named(surfaces_site, surfaces_catalog):
    text = seen_text(surfaces_site, error_at(surfaces_catalog, "logged_then_wrapped.py", 10))
    assert "catches it, logs an ERROR log record Bad frame: empty frame from peer {frame!r} and raises PeerError in its place" in text

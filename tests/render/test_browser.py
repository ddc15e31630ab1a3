"""The fixture site in headless chromium: browse, filters, search by pasted message, hostile text."""

from __future__ import annotations

import pytest

from browser import browser, page, screenshot, search_results, search_url, served  # noqa: F401 (fixtures)
from sitebuild import catalog, error_named, site  # noqa: F401 (fixtures)

FIND_GROUP_MESSAGE = (
    "Could not uniquely identify the hidden-states group among 3 groups; "
    "the layer must be isolated in its own group."
)


def test_index_lists_every_error(page, site, catalog):
    page.goto((site / "index.html").as_uri())
    links = page.locator("#results tbody tr a")
    assert sorted(a.get_attribute("href") for a in links.all()) == sorted(
        f"errors/{e.id}/index.html" for e in catalog.errors
    )


@pytest.mark.parametrize(
    "choice, expected",
    [
        ({"connector": "GroupLookupConnector"}, {("GroupLookupConnector._find_group", "ValueError"), ("GroupLookupConnector.start_load", "NotImplementedError")}),
        ({"kind": "assert"}, {("GroupLookupConnector.start_load", "AssertionError")}),
        ({"exception": "RuntimeError"}, {("StoreConnector.get", "RuntimeError")}),
        ({"exception": "ValueError", "connector": "StoreConnector"}, {("StoreConnector._validate", "ValueError")}),
    ],
)
def test_filters_narrow_the_list(page, site, catalog, choice, expected):
    page.goto((site / "index.html").as_uri())
    for name, value in choice.items():
        page.select_option(f"select[name={name}]", value)
    page.wait_for_function(f"document.getElementById('result-count').textContent.startsWith('{len(expected)} error')")
    shown = {a.get_attribute("href") for a in page.locator("#results tbody tr a").all()}
    assert shown == {f"errors/{error_named(catalog, f, x).id}/index.html" for f, x in expected}
    for name in choice:
        page.select_option(f"select[name={name}]", "")
    assert page.locator("#results tbody tr").count() == len(catalog.errors)


def test_typed_message_with_log_prefix_finds_its_error_first(page, site, catalog):
    expected = error_named(catalog, "GroupLookupConnector._find_group")
    page.goto((site / "search" / "index.html").as_uri())
    page.fill("#q", f"(EngineCore_DP0 pid=1234) ERROR 08-14 12:00:01 [core.py:123] ValueError: {FIND_GROUP_MESSAGE}")
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"
    assert "exact match" in page.locator("#search-results li").first.inner_text()
    screenshot(page, "search-results.png")
    page.locator("#search-results li a").first.click()
    page.wait_for_url(f"**/errors/{expected.id}/index.html")
    assert page.locator("h1").inner_text().startswith("Could not uniquely identify")
    screenshot(page, "error-page.png")


def assert_first_result(page, site, text, expected, how):
    """`text` typed into the search page finds `expected` first, for the reason `how` says."""
    page.goto((site / "search" / "index.html").as_uri())
    page.fill("#q", text)
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"
    assert how in page.locator("#search-results li").first.inner_text()


def test_pasted_traceback_finds_the_root_error_first(page, site, catalog):
    expected = error_named(catalog, "GroupLookupConnector._find_group")
    log = "\n".join([
        "(EngineCore_DP0 pid=88) ERROR 08-14 12:00:01 [core.py:708] EngineCore failed to start.",
        "(EngineCore_DP0 pid=88) Traceback (most recent call last):",
        '(EngineCore_DP0 pid=88)   File "/usr/lib/vllm/distributed/kv_transfer/group_lookup.py", line 12, in __init__',
        "(EngineCore_DP0 pid=88)     self._find_group(kv_cache_config)",
        "(EngineCore_DP0 pid=88)     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f"(EngineCore_DP0 pid=88) ValueError: {FIND_GROUP_MESSAGE}",
        "(EngineCore_DP0 pid=88) ERROR 08-14 12:00:02 [core.py:720] shutting down",
        "RuntimeError: Engine core initialization failed. See root cause above.",
    ])
    assert_first_result(page, site, log, expected, "exact match")


@pytest.mark.parametrize("pasted", [
    "#   ValueError: {message}",
    "> ValueError: {message}",
    "the decode side then fails with `ValueError: {message}` at start-up",
])
def test_log_quoted_in_comments_or_prose_finds_its_error_first(page, site, catalog, pasted):
    expected = error_named(catalog, "GroupLookupConnector._find_group")
    assert_first_result(page, site, pasted.format(message=FIND_GROUP_MESSAGE), expected, "exact match")


def test_traceback_frame_pins_an_error_raised_without_a_message(page, site, catalog):
    expected = error_named(catalog, "GroupLookupConnector._find_group")
    log = "\n".join([
        "Traceback (most recent call last):",
        f'  File "/usr/lib/python3.12/site-packages/{expected.path}", line {expected.line}, in _find_group',
        "    raise ValueError(",
        "ValueError",
    ])
    assert_first_result(page, site, log, expected, "innermost frame")


def test_query_in_the_url_runs_the_search(page, site, catalog, served):
    expected = error_named(catalog, "StoreConnector._validate")
    page.goto(search_url(served(site), "StoreConnector does not support: cross attention; PCP > 1 (pcp=2)"))
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"
    assert page.input_value("#q").startswith("StoreConnector does not support")


def test_reworded_message_is_found_by_the_fuzzy_score(page, site, catalog):
    expected = error_named(catalog, "GroupLookupConnector._find_group")
    page.goto((site / "search" / "index.html").as_uri() + "?q=could not identify hidden-states group among 3 groups")
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"
    assert "similar words, score" in page.locator("#search-results li").first.inner_text()


def test_message_cut_short_is_found_by_its_beginning(page, site, catalog):
    expected = error_named(catalog, "GroupLookupConnector._find_group")
    page.goto((site / "search" / "index.html").as_uri() + "?q=Could not uniquely identify the hidden-states group among 3 gro")
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"
    assert "matches the beginning (message cut short)" in page.locator("#search-results li").first.inner_text()


def test_hostile_text_renders_as_text_and_runs_nothing(page, site, catalog):
    hostile = error_named(catalog, "render_banner")
    page.goto((site / "errors" / hostile.id / "index.html").as_uri())
    assert "</script><script>alert(1)</script>" in page.locator("h1.message, #message pre").first.inner_text()
    assert page.locator("img").count() == 0  # the only script is the site's own page.js
    assert [s.get_attribute("src") for s in page.locator("script").all()] == ["../../assets/page.js"]
    page.locator("#developers summary").click()  # the comment above the raise is for vLLM developers
    assert "onerror=\"alert('comment')\"" in page.locator("#developers").inner_text()
    page.goto((site / "search" / "index.html").as_uri())
    page.fill("#q", "</script><script>alert(1)</script> and <img src=x onerror=alert(2)> for x")
    page.wait_for_selector("#search-results[data-done] li a")
    first = page.locator("#search-results li a").first
    assert "<img src=x onerror=alert(2)>" in first.inner_text()
    assert page.locator("#search-results img").count() == 0
    page.goto((site / "index.html").as_uri())
    page.select_option("select[name=exception]", "ValueError")
    page.wait_for_function("document.getElementById('result-count').textContent.startsWith('4 error')")
    assert page.locator("#results img").count() == 0
    # the `page` fixture fails the test if any dialog opened or any script error happened


def test_browse_index_leads_to_each_group(page, site):
    page.goto((site / "browse" / "index.html").as_uri())
    connectors = page.locator("#by-connector a")
    assert connectors.count() >= 2 and page.locator("#by-file a").count() >= 2
    name = connectors.first.inner_text()
    connectors.first.click()
    page.wait_for_url("**/browse/connector-*.html")
    assert page.locator("h1").inner_text() == name


@pytest.mark.parametrize("typed", ["nixl", "HandshakeError", "handshake", "nixl_connector.py"])
def test_a_keyword_finds_its_error(page, site, catalog, typed):
    expected = error_named(catalog, "NixlConnector.handshake")
    page.goto((site / "search" / "index.html").as_uri())
    page.fill("#q", typed)
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"
    assert page.locator("#search-results li .score").first.inner_text().startswith("keyword match: ")


def test_an_error_id_finds_its_page(page, site, catalog):
    expected = error_named(catalog, "StoreConnector.get")
    page.goto((site / "search" / "index.html").as_uri() + f"?q={expected.id}")
    assert search_results(page)[0] == f"../errors/{expected.id}/index.html"


def test_slash_goes_to_the_search_box(page, site, catalog):
    page.goto((site / "errors" / catalog.errors[0].id / "index.html").as_uri())
    page.keyboard.press("/")
    page.wait_for_url("**/search/index.html")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("/")  # in the box, `/` is a character
    assert page.input_value("#q") == "/"


def test_headings_link_to_themselves_and_code_blocks_copy(page, site, catalog):
    error = error_named(catalog, "GroupLookupConnector._find_group")
    page.goto((site / "errors" / error.id / "index.html").as_uri())
    anchors = page.locator("main h2 a.anchor")
    assert anchors.count() == page.locator("main h2").count() > 3
    hrefs = [a.get_attribute("href") for a in anchors.all()]
    assert len(set(hrefs)) == len(hrefs) and all(page.locator(h).count() == 1 for h in hrefs)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    button = page.locator(".source .copyable button.copy").first
    button.click()
    page.wait_for_function("Array.from(document.querySelectorAll('.source button.copy')).some(b => b.textContent !== 'Copy')")
    assert button.inner_text() == "Copied"
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "raise ValueError(" in copied and not copied.lstrip().startswith(str(error.excerpt.start_line))


@pytest.mark.parametrize("where", ["index.html", "search/index.html?q=nixl", "browse/index.html", "error"])
def test_nothing_overflows_a_390_pixel_screen(page, site, catalog, where):
    if where == "error":
        where = f"errors/{error_named(catalog, 'render_banner').id}/index.html"
    page.set_viewport_size({"width": 390, "height": 844})
    path, _, query = where.partition("?")
    page.goto((site / path).as_uri() + (f"?{query}" if query else ""))
    if query:
        search_results(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, where
    screenshot(page, f"narrow-{path.replace('/', '-')}.png")


def test_catch_all_errors_are_one_closed_line_after_the_results(page, site, catalog):
    from errscan.match import compile_template

    catch_alls = {e.id for e in catalog.errors if e.message.strip() and not compile_template(e.message).literal_chars}
    assert len(catch_alls) >= 2  # passthrough.py's
    page.goto((site / "search" / "index.html").as_uri())
    page.fill("#q", f"ValueError: {FIND_GROUP_MESSAGE}")
    search_results(page)
    items = page.locator("#search-results > li")
    last = items.nth(items.count() - 1)
    assert last.get_attribute("class") == "catch-all"
    assert f"or any of {len(catch_alls)} catch-all errors" in last.inner_text()
    assert last.locator("details").get_attribute("open") is None  # closed until asked
    inside = {a.get_attribute("href").split("/")[-2] for a in last.locator("a").all()}
    assert inside == catch_alls
    outside = {a.get_attribute("href").split("/")[-2] for a in items.locator(":scope > a").all()}
    assert not outside & catch_alls and page.locator("#search-results li.catch-all").count() == 1


def test_the_page_makes_each_cut_pattern_as_python_does(page, site, catalog):
    from errscan.match import compile_template

    templates = [e.message for e in catalog.errors] + ["tab\there {{braces}} $^.|?*+()[]{{}}/ end", "emoji \U0001F600 {x}", " {x} foo", "a\\\\b {c}"]
    page.goto((site / "search" / "index.html").as_uri())
    made = page.evaluate("(patterns) => patterns.map(cutPattern)", [compile_template(t).pattern for t in templates])
    assert made == [compile_template(t).prefix_pattern for t in templates]

"""The site's search and `errscan lookup` agree on real vLLM messages from every subsystem.

A whole-package site is too slow to build in a test, so the site here is vLLM 0.27.1 scanned for
the files that raise the messages of tests/fixtures/lookup/whole_package_messages.json, plus the
files whose templates competed with them in the whole-package measurement (catch-all-like
`{log_msg}: {e}`, short `Failed to load {filename}`, twins raised in two files): both sides read
the same catalog, so any difference is one of ranking or of reading the pasted text.
"""

from __future__ import annotations

import json

import pytest

from browser import browser, page, search_url, served  # noqa: F401 (fixtures)
from conftest import FIXTURES, run_cli
from errscan.api.read import read_site
from errscan.lookup import CatalogMatcher
from errscan.lookup.logs import find_errors

pytestmark = [pytest.mark.integration, pytest.mark.releases]

DATA = json.loads((FIXTURES / "lookup" / "whole_package_messages.json").read_text())
CASES = DATA["from_issues"] + DATA["from_tests"]
COMPETITORS = [
    "vllm/transformers_utils/repo_utils.py",
    "vllm/model_executor/models/adapters.py",
    "vllm/distributed/utils.py",
    "vllm/platforms/rocm.py",
    "vllm/model_executor/model_loader/default_loader.py",
    "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors_moe/compressed_tensors_moe_w8a8_fp8.py",
    "vllm/model_executor/layers/quantization/moe_wna16.py",
    "vllm/v1/worker/cpu_worker.py",
    "vllm/v1/sample/logits_processor/__init__.py",
]


@pytest.fixture(scope="module")
def messages_site(release_0271, tmp_path_factory):
    out = tmp_path_factory.mktemp("messages") / "site"
    files = sorted({case["path"] for case in CASES} | set(COMPETITORS))
    includes = [arg for path in files for arg in ("--include", path)]
    result = run_cli("scan", str(release_0271), *includes, "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    return out


def lookup_first(matcher: CatalogMatcher, text: str) -> str | None:
    for logged in find_errors(text):
        finding = matcher.find(logged)
        if finding.candidates:
            return finding.candidates[0].error["id"]
    return None


UNSURE = ("not certain", "any text matches", "similar words")  # how the page describes a weak first result


def search_first(page, base: str, text: str) -> tuple[str | None, str]:
    """The first result's error id and how the page describes the match."""
    page.goto(search_url(base, text))
    page.wait_for_function("!/^(Loading|Type)/.test(document.getElementById('search-status').textContent)")
    first = page.locator("#search-results li").first
    if not first.count():
        return None, ""
    return first.locator("a").get_attribute("href").split("/")[-2], first.locator(".score").inner_text()


def test_search_page_puts_first_what_lookup_puts_first(page, messages_site, served):
    """Where lookup finds nothing, the page may list guesses, but none it calls certain."""
    catalog = read_site(messages_site)
    matcher = CatalogMatcher.of_catalog(catalog)
    base = served(messages_site)
    where = {error.id: (error.path, error.line) for error in catalog.errors}
    disagree, right = [], 0
    for case in CASES:
        expected = lookup_first(matcher, case["text"])
        shown, how = search_first(page, base, case["text"])
        right += where.get(shown) == (case["path"], case["line"])
        if shown != expected and not (expected is None and any(word in how for word in UNSURE)):
            disagree.append((case["source"], where.get(expected), where.get(shown)))
    assert disagree == [], "\n".join(map(str, disagree))
    assert right / len(CASES) >= 0.95

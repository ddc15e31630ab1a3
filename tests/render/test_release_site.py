"""The site of real vLLM 0.27.1: complete pages, valid JSON, and search finding pasted messages first."""

from __future__ import annotations

import json

import jsonschema
import pytest

from browser import browser, page, screenshot, search_results, search_url, served  # noqa: F401 (fixtures)
from conftest import run_cli
from sitebuild import SECTIONS, Page

pytestmark = pytest.mark.integration

QUERIES = [
    (
        "MooncakeStoreConnector._validate_kv_cache_config",
        "MooncakeStoreConnector does not support: group 1: CrossAttentionSpec; PCP/DCP > 1 (pcp=2, dcp=1) with hybrid attention",
    ),
    (
        "ExampleHiddenStatesConnector._find_cache_kv_group_id",
        "Could not uniquely identify the extract-hidden-states KV cache group among 3 groups; the hidden-states "
        "layer must be isolated in its own group (MLA verifiers are unsupported).",
    ),
]


@pytest.fixture(scope="module")
def release_site(release_0271, tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "site"
    result = run_cli("scan", str(release_0271), "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    return out


def test_every_page_has_all_sections(release_site):
    index = json.loads((release_site / "api" / "index.json").read_text())
    assert len(index["errors"]) > 200
    for entry in index["errors"]:
        page_html = (release_site / "errors" / entry["id"] / "index.html").read_text()
        assert Page(page_html).sections == SECTIONS, entry["id"]


def test_every_json_file_validates(release_site):
    validator = jsonschema.Draft202012Validator(json.loads((release_site / "api" / "schema.json").read_text()))
    for path in sorted((release_site / "api").rglob("*.json")):
        if path.name != "schema.json":
            validator.validate(json.loads(path.read_text()))


@pytest.mark.parametrize("function, message", QUERIES)
def test_search_url_shows_the_error_first(page, release_site, served, function, message):
    index = json.loads((release_site / "api" / "index.json").read_text())
    (expected,) = [e["id"] for e in index["errors"] if e["function"] == function and e["exception"] == "ValueError"]
    page.goto(search_url(served(release_site), message))
    assert search_results(page)[0] == f"../errors/{expected}/index.html"
    screenshot(page, f"release-search-{function.rsplit('.', 1)[-1]}.png")

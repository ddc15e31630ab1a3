"""A site built from tests/fixtures/site, with triggers filled in as the analysis stage would.

Test modules import the `catalog` and `site` fixtures from here."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import FIXTURES
from errscan.model import Catalog, Chain, ChainStep, Condition, Contribution, Knob, Trigger
from errscan.profiles.vllm import VLLM
from errscan.render import write_site
from errscan.scan import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

SITE_SOURCES = FIXTURES / "site"
KV = "vllm/distributed/kv_transfer"


def condition(code: str, plain: str | None = None) -> Condition:
    """A condition as the analysis writes it when it has no words of its own (plain == code)."""
    return Condition(code=code, raw=code, plain=plain or code)


TRIGGERS = {  # (function, exception) -> trigger
    ("GroupLookupConnector._find_group", "ValueError"): Trigger(
        condition=condition("len(group_ids) != 1"),
        chains=(
            Chain(
                "KVConnectorFactory.create_connector",
                "connector-init",
                (
                    ChainStep("GroupLookupConnector.__init__", f"{KV}/group_lookup.py", 12, condition("kv_cache_config is not None")),
                    ChainStep("GroupLookupConnector._find_group", f"{KV}/group_lookup.py", 13, None),
                ),
            ),
        ),
        connectors=("GroupLookupConnector",),
        knobs=(Knob("cli-flag", "--kv-transfer-config", "selects the connector"),),
    ),
    ("GroupLookupConnector.start_load", "NotImplementedError"): Trigger(
        condition=condition("self.use_layerwise"), connectors=("GroupLookupConnector",),
        knobs=(Knob("extra-config", "use_layerwise", "kv_connector_extra_config"),),
    ),
    ("StoreConnector._validate", "ValueError"): Trigger(
        condition=condition("unsupported"),
        contributions=(
            Contribution(condition("config.cross_attention"), "cross attention"),
            Contribution(condition("config.pcp > 1"), "PCP > 1 (pcp={config.pcp})"),
        ),
        connectors=("StoreConnector",),
    ),
}


def fixture_catalog() -> Catalog:
    catalog = scan(FolderSource(SITE_SOURCES, VLLM), ScanOptions(repo="example/kv", scope=Scope((f"{KV}/**",)), jobs=1))
    errors = tuple(
        dataclasses.replace(e, trigger=TRIGGERS.get((e.function, e.exception))) for e in catalog.errors
    )
    return dataclasses.replace(catalog, errors=errors)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return fixture_catalog()


@pytest.fixture(scope="session")
def site(catalog, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    write_site(catalog, out)
    return out


def error_named(catalog: Catalog, function: str, exception: str | None = None):
    (found,) = [e for e in catalog.errors if e.function == function and exception in (None, e.exception)]
    return found


SECTIONS = ["message", "meaning", "source", "when", "solutions", "check", "related", "data"]


class Page(HTMLParser):
    """What the tests look at in a page: section ids in order, links, scripts, and text."""

    def __init__(self, html: str):
        super().__init__()
        self.sections: list[str] = []
        self.links: list[str] = []
        self.scripts: list[str] = []  # src of external scripts, "inline:<code>" for inline ones
        self.text: list[str] = []
        self._in_script = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs.get("id"))
        if tag in ("a", "link") and "href" in attrs:
            self.links.append(attrs["href"])
        if tag == "script":
            self._in_script = "src" not in attrs
            if "src" in attrs:
                self.scripts.append(attrs["src"])
        for name in attrs:
            assert not name.startswith("on"), f"event handler attribute in page: {name}"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append("inline:" + data)
        else:
            self.text.append(data)


def words(html: str) -> str:
    """The page's text as a reader sees it, whitespace folded."""
    return " ".join("".join(Page(html).text).split())

"""A site built from tests/fixtures/site, with triggers filled in as the analysis stage would.

Test modules import the `catalog` and `site` fixtures from here."""

from __future__ import annotations

import msgspec
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import FIXTURES
from errscan.analysis.related import related_errors
from errscan.model import Catalog, Chain, ChainStep, Contribution, Knob, Related, Trigger
from errscan.profiles.vllm import VLLM
from errscan.render.site import write_site
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

SITE_SOURCES = FIXTURES / "site"
KV = "vllm/distributed/kv_transfer"


TRIGGERS = {  # (function, exception) -> trigger, as the analysis would write them
    ("GroupLookupConnector._find_group", "ValueError"): Trigger(
        condition="len(group_ids) != 1",
        conjuncts=("len(group_ids) != 1",),
        raw_condition="len(group_ids) != 1",
        chains=(
            Chain(
                entry_kind="connector-init",
                path=("KVConnectorFactory.create_connector", "GroupLookupConnector.__init__", "GroupLookupConnector._find_group"),
                steps=(
                    ChainStep("KVConnectorFactory.create_connector", "GroupLookupConnector.__init__", f"{KV}/group_lookup.py", 9, None),
                    ChainStep("GroupLookupConnector.__init__", "GroupLookupConnector._find_group", f"{KV}/group_lookup.py", 12, "kv_cache_config is not None"),
                ),
                condition="kv_cache_config is not None",
                trigger="kv_cache_config is not None and len(group_ids) != 1",
            ),
        ),
        connectors=("GroupLookupConnector",),
        knobs=(Knob("cli_flag", "--kv-transfer-config", "selects the connector"),),
        related=(Related("0" * 16, "an id the catalog does not hold is left out"),),
    ),
    ("GroupLookupConnector.start_load", "NotImplementedError"): Trigger(
        condition="self.use_layerwise", conjuncts=("self.use_layerwise",), raw_condition="self.use_layerwise",
        connectors=("GroupLookupConnector",), knobs=(Knob("extra_config", "use_layerwise", "kv_connector_extra_config"),),
        solutions=("Turn `use_layerwise` off in kv_connector_extra_config.",),
    ),
    ("StoreConnector._validate", "ValueError"): Trigger(
        condition="unsupported", conjuncts=("unsupported",), raw_condition="unsupported",
        contributions=(
            Contribution("config.cross_attention", "cross attention"),
            Contribution("config.pcp > 1", "PCP > 1 (pcp={config.pcp})"),
        ),
        connectors=("StoreConnector",),
    ),
}


def fixture_catalog() -> Catalog:
    catalog = scan(FolderSource(SITE_SOURCES, VLLM), ScanOptions(repo="example/kv", scope=Scope((f"{KV}/**",)), jobs=1))
    # The fixtures' own triggers replace the analysis's, so the pages show known data; related
    # errors are then ranked again from those triggers, as the analysis stage does.
    errors = [msgspec.structs.replace(e, trigger=TRIGGERS.get((e.function, e.exception))) for e in catalog.errors]
    ranked = related_errors(errors)
    errors = [
        msgspec.structs.replace(e, trigger=msgspec.structs.replace(e.trigger, related=e.trigger.related + ranked[e.id]))
        if e.trigger else e
        for e in errors
    ]
    return msgspec.structs.replace(catalog, errors=tuple(errors))


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


SECTIONS = ["message", "summary", "fix", "source", "when", "developers", "related", "data"]


class Page(HTMLParser):
    """What the tests look at in a page: section ids in order, links, scripts, and text."""

    def __init__(self, html: str):
        super().__init__()
        self.sections: list[str] = []
        self.links: list[str] = []
        self.scripts: list[str] = []  # src of external scripts, "inline:<code>" for inline ones
        self.text: list[str] = []
        self.placed: list[tuple[str | None, bool, str]] = []  # (section, shown before a click, text)
        self._in_script = False
        self._closed = 0  # depth inside <details> not yet opened, outside their <summary>
        self._summary = 0
        self.feed(html)

    def reader_words(self) -> list[str]:
        """Words a reader sees without clicking, outside the source excerpt and the data line."""
        return " ".join(t for section, shown, t in self.placed if shown and section not in ("source", "data")).split()

    def outside_source(self) -> str:
        return " ".join(t for section, _, t in self.placed if section != "source")

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "details" and "open" not in attrs:
            self._closed += 1
        if tag == "summary":
            self._summary += 1
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
        if tag == "details" and self._closed:
            self._closed -= 1
        if tag == "summary":
            self._summary -= 1

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append("inline:" + data)
        else:
            self.text.append(data)
            section = self.sections[-1] if self.sections else None
            self.placed.append((section, not self._closed or bool(self._summary), data))


def words(html: str) -> str:
    """The page's text as a reader sees it, whitespace folded."""
    return " ".join("".join(Page(html).text).split())

"""A site built from tests/fixtures/site, with triggers filled in as the analysis stage would.

Test modules import the `catalog` and `site` fixtures from here."""

from __future__ import annotations

import dataclasses
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

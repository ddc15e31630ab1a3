"""A connector interface that is an abstract base: the core's call on the base type reaches only
the overrides, and each is still the connector's interface entry point."""

import dataclasses

from conftest import FIXTURES
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def test_an_override_of_an_abstract_interface_method_the_core_calls_is_an_interface_entry():
    profile = dataclasses.replace(VLLM, plugin_package="vllm.kv")
    catalog = scan(FolderSource(FIXTURES / "abstract_interface", profile),
                   ScanOptions(repo="o/r", scope=Scope(("vllm/**",)), jobs=1, profile=profile))
    by_function = {e.function: e for e in catalog.errors}
    assert by_function["KVConnectorBase_V1.update_state"].trigger.chains == ()  # no object of the base exists
    error = by_function["FastConnector.update_state"]
    assert error.trigger.connectors == ("FastConnector",)
    assert [(c.entry_kind, c.path[0].rsplit(".", 2)[-2]) for c in error.trigger.chains] == [("connector-interface", "FastConnector")]

"""Chains from a function the core calls, read under each call's arguments; a connector's `__init__`
entered with the parameters its interface declares."""

import dataclasses

from conftest import FIXTURES
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def errors():
    profile = dataclasses.replace(VLLM, plugin_package="vllm.kv")
    catalog = scan(FolderSource(FIXTURES / "typed_callers", profile),
                   ScanOptions(repo="o/r", scope=Scope(("vllm/**",)), jobs=1, profile=profile))
    return {e.message: e.trigger for e in catalog.errors}


def test_a_core_call_that_every_caller_rules_out_cannot_fire():
    trigger = errors()["a scheduler plans with a layout"]
    assert trigger.reachable is False and not trigger.chains
    (chain,) = trigger.infeasible_chains
    assert chain.entry_kind == "core-call" and chain.infeasible.startswith("every call of `planning.plan_blocks` rules it out: ")
    assert "from `Scheduler.__init__` (scheduler.py:8), " in chain.infeasible
    assert "`self.layout`, set at scheduler.py:7 from the parameter `layout: Layout` of `Scheduler.__init__`" in chain.infeasible
    assert "from `scheduler.start_worker` (scheduler.py:13), " in chain.infeasible and "`role` is `'worker'`" in chain.infeasible


def test_a_core_call_that_one_caller_may_make_with_none_stays_feasible():
    trigger = errors()["no layout to check"]
    assert trigger.reachable is True and [c.entry_kind for c in trigger.chains] == ["core-call"]


def test_an_entry_points_own_parameter_types_are_not_taken_for_what_its_callers_pass():
    trigger = errors()["nothing to verify"]  # `verify(layout: Layout)`, called with an untyped value
    assert trigger.reachable is True and [c.entry_kind for c in trigger.chains] == ["core-call"]


def test_a_connector_is_entered_with_the_arguments_its_interface_declares():
    trigger = errors()["a scheduler connector needs a layout"]
    assert trigger.reachable is False
    (chain,) = trigger.infeasible_chains
    assert chain.entry_kind == "connector-init"
    assert "the interface `KVConnectorBase_V1.__init__` declares `layout: Layout`" in chain.infeasible

"""Errors that can never fire (tests/fixtures/analysis_pkg/vllm/kv/connectors/gated.py): the
solver proves the site's condition, or every chain from every entry point, cannot hold."""

import pytest


@pytest.mark.parametrize("message", ["blocks vanished", "blocks must be given"])
def test_a_dead_branch_and_a_contradicted_check_are_unreachable(analysis_catalog, message):
    (error,) = [e for e in analysis_catalog.errors if e.message == message]
    assert error.trigger.satisfiable is False and error.trigger.reachable is False
    assert "contradicts" in error.trigger.unreachable
    assert error.explanation.kind == "unreachable" and "cannot fire at this commit" in error.explanation.summary


def test_a_flag_no_caller_passes_makes_every_chain_infeasible(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message.startswith("notification-only peers")]
    trigger = error.trigger
    assert trigger.satisfiable is True and not trigger.chains and trigger.connectors == ()
    assert trigger.reachable is False and "every chain from the 1 entry point that reaches its function is infeasible" in trigger.unreachable
    (chain,) = trigger.infeasible_chains
    assert chain.satisfiable is False and "`notify_only` is `False` (the default of `_load`, not passed at gated.py:18)" in chain.infeasible
    assert error.explanation.kind == "unreachable" and "cannot fire at this commit" in error.explanation.summary


def test_a_flag_an_unresolved_call_may_pass_leaves_reachability_unknown(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "replacing stored blocks"]
    assert not error.trigger.chains and error.trigger.infeasible_chains  # no entry point passes it
    assert error.trigger.reachable is None and error.explanation.kind != "unreachable"  # `restore` may


def test_a_classmethod_nothing_calls_is_no_entry_point(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "a classmethod nothing calls"]
    assert error.trigger.chains == () and error.trigger.reachable is None


def test_a_reachable_error_says_so(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.function == "PlainConnector._validate"]
    assert error.trigger.reachable is True and error.trigger.satisfiable is True
    assert all(chain.satisfiable is not False for chain in error.trigger.chains)


def test_a_check_the_factory_made_by_a_helper_with_arguments_rules_out_the_plugins_assert(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "strict mode needs every child to support it"]
    trigger = error.trigger
    assert trigger.satisfiable is True and not trigger.chains and trigger.reachable is False
    assert {chain.path[0].rsplit(".", 2)[-2] for chain in trigger.infeasible_chains} >= {"CheckedConnector"}
    assert all("checked_factory.py:19" in chain.infeasible for chain in trigger.infeasible_chains)
    assert error.explanation.kind == "unreachable"


def test_an_attribute_set_at_once_after_every_construction_is_never_none_later(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/two_phase.py: `EngineWrapper` is given its
    engine right after its only construction; a `LooseWrapper` is once made without it."""
    (settled,) = [e for e in analysis_catalog.errors if e.message == "engine must be set first"]
    assert settled.trigger.satisfiable is True and settled.trigger.reachable is False
    assert settled.trigger.unreachable == (
        "`self.engine is None` cannot hold, as `self.engine` is never None in `write`: every `EngineWrapper` is "
        "given a `Engine` object by `set_engine` right after it is made (made at two_phase.py:44, given at "
        "two_phase.py:45), and nothing else assigns it")
    assert settled.explanation.kind == "unreachable" and "cannot fire at this commit" in settled.explanation.summary
    (loose,) = [e for e in analysis_catalog.errors if e.message == "loose engine must be set first"]
    assert loose.trigger.reachable is not False and loose.explanation.kind != "unreachable"


def test_a_contradiction_the_chain_makes_itself_says_nothing_of_how_the_class_is_built(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/asserted_again.py: the constructor's assert
    rules the helper's out; the reason rests on it, not on the registry being the only builder."""
    (error,) = [e for e in analysis_catalog.errors if e.message == "transfer must be set for the defaults"]
    assert error.trigger.reachable is False
    assert "the call of `_defaults` at asserted_again.py:13, made only if `vllm_config.transfer is not None`" in error.trigger.unreachable
    assert "built only by" not in error.trigger.unreachable


def test_a_local_checked_then_passed_on_rules_out_the_callees_check_of_its_parameter(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/config_passed.py: the constructor asserts the
    type of the config a helper made (an outside class), then passes that local on: the callee's
    assert of its parameter is the same test (vLLM's LMCache adapter, `_init_lmcache_engine`)."""
    (error,) = [e for e in analysis_catalog.errors if e.message == "cache config must be passed"]
    trigger = error.trigger
    assert trigger.satisfiable is True and not trigger.chains and trigger.reachable is False
    (chain,) = trigger.infeasible_chains
    assert "the call of `_init_engine` at config_passed.py:41, made only if `isinstance(get_or_create_config(), CacheConfig)" in chain.infeasible
    assert error.explanation.kind == "unreachable" and "cannot fire at this commit" in error.explanation.summary


def test_a_buffer_the_package_only_ever_resets_is_never_filled(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/never_filled.py: `pending_meta` is only ever
    assigned `[]` (vLLM's MoRIIO `local_kv_cache_metadata`): the warning that it holds something
    cannot be logged. Its twins, appended to, handed to a helper or aliased, say nothing."""
    by_message = {e.message.split(":")[0]: e for e in analysis_catalog.errors if "metadata left" in e.message}
    pending = by_message["pending metadata left"]
    assert pending.trigger.reachable is False
    assert pending.trigger.unreachable == (
        "`len(self.pending_meta) > 0` cannot hold, as `self.pending_meta` is never filled: every assignment of it in the "
        "package is an empty collection (`[]` at never_filled.py:18, `[]` at never_filled.py:26) and nothing adds to it "
        "or hands it on")
    assert pending.explanation.kind == "unreachable"
    for twin in ("sent metadata left", "handed metadata left", "aliased metadata left"):
        assert by_message[twin].trigger.reachable is not False and by_message[twin].explanation.kind != "unreachable"


def test_a_raise_checked_again_after_a_call_that_returned_is_not_reached_that_way(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/returned.py: `self._width(name)` returned (its
    value is compared), so `layer_width`'s raise did not fire for that layer; reached again through
    `_regions` with the same values, it cannot fire there. The way through `_width` stays."""
    (error,) = [e for e in analysis_catalog.errors if e.message == "unsupported cache shape for the layer"]
    assert [c.path[-2].rsplit(".", 1)[-1] for c in error.trigger.chains] == ["_width"]
    (ruled,) = [c for c in error.trigger.infeasible_chains if any(n.endswith("ReturnedConnector._regions") for n in c.path)]
    assert ruled.satisfiable is False
    assert "the same check already passed at returned.py:15, run by the call at returned.py:26" in ruled.infeasible


def test_a_check_that_reads_what_may_change_between_two_calls_proves_nothing(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "the probed path is gone"]
    assert any(n.endswith("ProbedConnector._again") for c in error.trigger.chains for n in c.path)
    assert not any("already passed" in (c.infeasible or "") for c in error.trigger.infeasible_chains)


def test_a_helper_read_off_the_environment_asserted_by_the_caller_rules_out_the_callees_assert(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/layout_checked.py: `layout_is_dim_first()` reads
    an environment setting alone, so the constructor's assert of it holds when `split_sizes` asserts
    it again; `fast_mode()` reads a module object the constructor changes in between."""
    (error,) = [e for e in analysis_catalog.errors if e.message == "splitting needs the dim-first layout"]
    trigger = error.trigger
    assert trigger.satisfiable is True and not trigger.chains and trigger.reachable is False
    assert "the call of `split_sizes` at layout_checked.py:18, made only if `layout_is_dim_first()`" in trigger.unreachable
    assert error.explanation.kind == "unreachable"
    (changed,) = [e for e in analysis_catalog.errors if e.message == "slow sizes need the slow mode"]
    assert changed.trigger.reachable is True and changed.trigger.chains


def test_a_field_of_an_object_built_once_from_the_callers_attribute_is_that_attribute(analysis_catalog):
    """tests/fixtures/analysis_pkg/vllm/kv/connectors/topology_held.py: `targets` returned (its value
    tested, or the call made first under no condition), so the topology's `ratio` assert passed on
    `self.topology.size`, which is the worker's `self.size` (built once from it, never assigned
    again): `plan_ratio`'s same assert cannot fail there. The worker that doubles its size later
    keeps its chain."""
    (error,) = [e for e in analysis_catalog.errors if e.message == "planned remote size must be a multiple of the local size"]
    infeasible = {chain.path[0].rsplit(".", 2)[-2]: chain.infeasible for chain in error.trigger.infeasible_chains}
    assert sorted(infeasible) == ["PlannedConnector", "TopologyHeldConnector"]
    assert infeasible["TopologyHeldConnector"].endswith(
        "the same check already passed at topology.py:12, run by the call at topology_held.py:19, `self.topology.size` "
        "being `self.size` (the object built from it at topology_held.py:16; neither is assigned again)")
    assert "run by the call at topology_held.py:32" in infeasible["PlannedConnector"]
    assert [chain.path[0].rsplit(".", 2)[-2] for chain in error.trigger.chains] == ["ResizedConnector"]

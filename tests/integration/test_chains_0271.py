"""Chains on real vLLM 0.27.1 (issue #13, items 4-6): arguments carried along a chain rule ways
out, every call site of a caller/callee pair is a way, and each entry point gets its chain."""

import pytest

pytestmark = pytest.mark.integration

KV = "vllm/distributed/kv_transfer/kv_connector/"


@pytest.fixture(scope="module")
def at(catalog_0271):
    errors = {(e.path, e.line): e for e in catalog_0271.errors}
    return lambda path, line: errors[(KV + path, line)]


def names(chain):
    return [node.rsplit(".", 1)[-1] for node in chain.path]


def test_the_notification_only_agent_is_not_reached_from_the_pull_connector(at):
    """`_add_notif_only_remote_agent` runs only when `notif_agents_only=True`, which the pull
    worker's handshake leaves at the default of `_ensure_handshake` (base_worker.py:916)."""
    trigger = at("utils.py", 481).trigger
    pull = [c for c in trigger.chains if c.path[0].endswith("NixlPullConnector.start_load_kv")]
    assert pull and all("_add_notif_only_remote_agent" not in names(c) for c in pull)
    assert all("add_remote_agent" in names(c) for c in pull)  # the full handshake does register the engine
    refused = [c for c in trigger.infeasible_chains if c.path[0].endswith("NixlPullConnector.start_load_kv")]
    assert refused and "_add_notif_only_remote_agent" in names(refused[0]) and refused[0].satisfiable is False
    assert "`notif_agents_only` is `False` (the default of `_ensure_handshake`, not passed at base_worker.py:916)" in refused[0].infeasible
    # the push worker's heartbeat passes a flag that may be true: that way stays
    assert any("_send_heartbeats" in names(c) and "_add_notif_only_remote_agent" in names(c) for c in trigger.chains)


def test_the_tp_ratio_is_reached_through_both_ways_of_send_kv_to_decode(at):
    """`_get_tp_ratio` is called from `_validate_asymmetric_region_lengths` when the producer cache
    is not replicated, and through the transfer plan built at :1326 when it is; on both ways the
    handshake already asserted the same (utils.py:531), so neither can be taken."""
    error = at("v1/mooncake/mooncake_connector.py", 106)
    chains = error.trigger.chains + error.trigger.infeasible_chains
    assert error.trigger.reachable is False and "utils.py:531" in error.trigger.unreachable
    into = {(c.steps[-1].caller.rsplit(".", 1)[-1], c.steps[-1].line) for c in chains}
    assert {("_validate_asymmetric_region_lengths", 273), ("_compute_sender_transfer_plan", 208)} <= into
    assert any(step.line == 1326 for c in chains for step in c.steps)


def test_the_moriio_worker_property_gets_one_chain_per_entry_point_first(at):
    chains = at("v1/moriio/moriio_engine.py", 114).trigger.chains
    entries = [c.path[0] for c in chains]
    distinct = list(dict.fromkeys(entries))
    assert entries[: len(distinct)] == distinct  # each entry point's shortest chain before further ways
    assert {e.rsplit(".", 1)[-1] for e in distinct} == {"wait_for_save", "save_kv_layer"}
    assert len(chains) <= 8 + 4 and all(c.satisfiable is not False for c in chains)


def test_errors_that_cannot_fire_say_so(at):
    for line in (580, 854):  # re-checks of what the code tested just before
        error = at("v1/moriio/moriio_connector.py", line)
        assert error.trigger.satisfiable is False and error.trigger.reachable is False
        assert error.explanation.kind == "unreachable"


def test_the_else_of_a_test_of_every_enum_member_cannot_fire(at):
    """`NixlPushConnector.__init__(..., role: KVConnectorRole)` tests SCHEDULER, then WORKER, and
    raises in the `else`: `KVConnectorRole` has no other member. `LMCacheMPConnectorUpstream`
    tests its property `self.role` alike."""
    trigger = at("v1/nixl/connector.py", 371).trigger
    assert trigger.reachable is False and not trigger.chains and not trigger.connectors
    assert "`role` is a `KVConnectorRole`, an Enum whose only members are `SCHEDULER` and `WORKER`" in trigger.unreachable
    # `self.role`, the property `LMCacheMPConnectorUpstream.role -> KVConnectorRole`, tested alike
    trigger = at("v1/lmcache_mp_connector.py", 522).trigger
    assert trigger.reachable is False and not trigger.chains
    assert "`self.role` is a `KVConnectorRole` (what the property `LMCacheMPConnectorUpstream.role` returns)" in trigger.unreachable


def test_a_tensor_shared_with_an_earlier_layer_is_skipped(at):
    """`if base_addr in seen_base_addresses: ... continue` and then `seen_base_addresses.append(base_addr)`:
    the number of blocks is checked only for a tensor no earlier layer registered."""
    trigger = at("v1/nixl/base_worker.py", 1183).trigger
    assert "cache.data_ptr() not in seen_base_addresses" in trigger.condition
    assert all("cache.data_ptr() not in seen_base_addresses" in c.trigger for c in trigger.chains)


def test_a_worker_method_names_only_the_connectors_whose_worker_runs_it(at):
    """Only NixlPushConnector constructs NixlPushConnectorWorker (nixl/connector.py:367), and the
    push worker overrides `_get_new_notifs` (push_worker.py:690), hiding the pull worker's."""
    assert at("v1/nixl/push_worker.py", 278).trigger.connectors == ("NixlPushConnector",)
    assert at("v1/nixl/pull_worker.py", 371).trigger.connectors == ("NixlConnector", "NixlPullConnector")
    # a base stub both workers and both schedulers override is run by no connector's object
    assert at("v1/nixl/base_worker.py", 2187).trigger.connectors == ()
    assert at("v1/nixl/base_scheduler.py", 493).trigger.connectors == ()


def test_a_plugins_assert_the_factory_checked_first_cannot_fire(at):
    """KVConnectorFactory.create_connector refuses HMA first unless `supports_hma_config(config)`,
    which for MultiConnector is `all_children_support_hma(config)` (factory.py:55-60, 131-145): the
    same test MultiConnector.__init__ asserts (multi_connector.py:191)."""
    error = at("v1/multi_connector.py", 191)
    assert not error.trigger.chains and error.trigger.reachable is False and error.trigger.infeasible_chains
    assert all("factory.py:75" in chain.infeasible for chain in error.trigger.infeasible_chains)
    assert error.explanation.kind == "unreachable" and error.explanation.example is None
    # the factory refuses a None kv_transfer_config first too (factory.py:50-51)
    assert at("v1/base.py", 211).trigger.reachable is False


def test_a_loop_over_peer_ranks_whose_test_reads_no_rank_does_not_name_the_tp_size(at):
    summary = at("v1/nixl/base_worker.py", 667).explanation.summary
    assert "enforce_handshake_compat" in summary and "tensor-parallel-size" not in summary


def test_what_engine_core_init_reaches_happens_at_start_up(at):
    assert at("v1/base.py", 685).explanation.when.startswith("at engine start-up")


def test_audit_2718_statements_that_could_not_happen(at):
    """Audit seed 2718: the LMCache engine's assert re-checks the config its only caller asserted
    and passes on (vllm_v1_adapter.py:583, :616); MoRIIO's metadata buffers are only ever reset to
    `[]`; the writer's seal loop skips sealed transfers before it reads `self.worker` (:163, :168)."""
    lmcache = at("v1/lmcache_integration/vllm_v1_adapter.py", 456).trigger
    assert lmcache.reachable is False and not lmcache.chains and len(lmcache.infeasible_chains) == 3
    assert all("vllm_v1_adapter.py:616" in chain.infeasible for chain in lmcache.infeasible_chains)
    for line in (1323, 1330):
        error = at("v1/moriio/moriio_connector.py", line)
        assert error.trigger.reachable is False and "is never filled" in error.trigger.unreachable
        assert error.explanation.kind == "unreachable"
    steps = [s for c in at("v1/moriio/moriio_engine.py", 114).trigger.chains for s in c.steps
             if s.path.endswith("moriio_engine.py") and s.line == 168]
    assert steps and all("transfer_id not in self._sealed_writes" in s.condition for s in steps)

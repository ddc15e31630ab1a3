"""Which parts of a condition a summary must not pass over (`wording.substantive`)."""

import pytest

from errscan.analysis.wording import substantive


@pytest.mark.parametrize("part", [
    "min(local_tp_size, remote_tp_size) < total_num_kv_heads", "local_tp_size <= 0 or total_num_kv_heads <= 0",
    "not supports_hma(connector_cls)", "len(parts) == 2",
])
def test_a_comparison_or_a_predicate_of_the_package_is_substantive(part):
    assert substantive(part)


@pytest.mark.parametrize("part", [
    "self.transfer_topo is not None", "self.enforce_compat_hash", "not use_layerwise", "isinstance(config, EngineConfig)",
    "not (mla_enabled(model_config) and remote_serde != 'naive')", "all(g.size % unit == 0 for g in groups)",
])
def test_a_precondition_an_earlier_check_or_a_builtins_test_is_not(part):
    assert not substantive(part)

"""When errors fire, on a small package shaped like vLLM (registry, interface, config, engine args)."""


def knobs(error):
    return {(k.kind, k.name) for k in error.trigger.knobs}


def test_condition_is_substituted_and_raw_kept(by_function):
    trigger = by_function["build_engine"].trigger
    assert trigger.condition == "mla_enabled(vllm_config.model_config) and vllm_config.layerwise"
    assert trigger.raw_condition == "use_mla and vllm_config.layerwise"
    assert trigger.conjuncts == ("mla_enabled(vllm_config.model_config)", "vllm_config.layerwise")


def test_chain_through_alias_carries_extra_config_condition(by_function):
    trigger = by_function["build_engine"].trigger
    (chain,) = trigger.chains
    assert chain.entry_kind == "connector-init"
    assert [p.rsplit(".", 2)[-2:] for p in chain.path] == [
        ["PlainConnector", "__init__"], ["NativeImpl", "__init__"], ["impl", "build_engine"]]
    assert chain.condition == "vllm_config.kv_transfer_config.get_from_extra_config('use_native', False) and role != 'scheduler'"
    assert chain.steps[0].line == 26 and chain.steps[0].path == "vllm/kv/connectors/plain.py"
    assert trigger.connectors == ("PlainConnector",)
    assert ("extra_config", "use_native") in knobs(by_function["build_engine"])


def test_accumulate_then_raise_is_the_disjunction_of_append_guards(by_function):
    error = by_function["PlainConnector._validate"]
    assert error.trigger.condition == "(dcp > 1) or (envs.VLLM_STRICT)"
    assert [(c.condition, c.text) for c in error.trigger.contributions] == [("dcp > 1", "dcp={dcp}"), ("envs.VLLM_STRICT", "strict")]
    assert {("cli_flag", "--decode-context-parallel-size"), ("config_field", "ParallelConfig.decode_context_parallel_size"),
            ("env", "VLLM_STRICT")} <= knobs(error)


def test_registry_through_a_resolver_function_names_the_connector_and_env(by_function):
    error = by_function["ChosenUpstream.update_state"]
    assert error.trigger.connectors == ("ChosenConnector",)
    assert ("env", "USE_UPSTREAM") in knobs(error)
    (chain,) = error.trigger.chains
    assert chain.entry_kind == "connector-interface"
    assert "raises(ImportError, 'from external.chosen import Chosen')" in chain.condition


def test_interface_method_reached_through_override(by_function):
    (chain,) = by_function["reformat"].trigger.chains
    assert chain.path[0].endswith("PlainConnector.update_state")


def test_config_validation_is_an_entry(by_function):
    (chain,) = by_function["ParallelConfig.__post_init__"].trigger.chains
    assert chain.entry_kind == "config-validation" and by_function["ParallelConfig.__post_init__"].trigger.connectors == ()


def test_flags_in_the_message_are_checked(by_function):
    flags = {k.name: k.detail for k in by_function["reformat"].trigger.knobs if k.kind == "cli_flag"}
    assert "stale" in flags["--no-such-flag"]
    solutions = " ".join(by_function["reformat"].trigger.solutions)
    assert "--no-such-flag" in solutions and "not a flag at this commit" in solutions


def test_solutions_are_phrased_on_settings(by_function):
    solutions = by_function["PlainConnector._validate"].trigger.solutions
    assert any("`--decode-context-parallel-size`" in s for s in solutions)
    assert any("Only `PlainConnector` reaches" in s for s in solutions)


def test_related_errors_give_reasons(by_function):
    related = {r.id: r.reason for r in by_function["reformat"].trigger.related}
    assert related == {
        by_function["PlainConnector._validate"].id: "reached through the same connector `PlainConnector`",
        by_function["build_engine"].id: "reached through the same connector `PlainConnector`",
    }


def test_guards_of_earlier_errors_stay_in_the_condition_but_decide_nothing(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "layerwise is off"]
    assert error.trigger.condition == "vllm_config.parallel_config.decode_context_parallel_size <= 8 and vllm_config.layerwise"
    assert not any(k.kind == "cli_flag" for k in error.trigger.knobs)
    assert not any("decode_context_parallel_size" in s for s in error.trigger.solutions)


def test_a_guard_on_self_attribute_names_the_setting_the_constructor_read(by_function):
    assert ("extra_config", "strict_layout") in knobs(by_function["StrictConnector.check"])


def test_a_config_field_its_validation_fills_is_no_knob_for_a_none_test(by_function):
    found = knobs(by_function["StrictConnector.identify"])
    assert ("config_field", "KVTransferConfig.kv_role") in found
    assert ("config_field", "KVTransferConfig.engine_id") not in found


def test_settings_read_in_helper_functions_the_condition_calls(by_function):
    assert ("env", "VLLM_CONV_LAYOUT") in knobs(by_function["StrictConnector.transfer_mamba"])
    found = knobs(by_function["StrictConnector.check_children"])
    assert ("extra_config", "connectors") in found
    assert ("config_field", "KVTransferConfig.engine_id") not in found  # only passed on


def test_a_guard_on_self_attribute_set_from_a_helper_names_the_helpers_setting(by_function):
    assert ("env", "VLLM_CONV_LAYOUT") in knobs(by_function["StrictConnector.transfer_conv"])


def test_a_looked_up_plugin_class_is_the_entry_plugins_own(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "ChosenUpstream needs the HND layout"]
    assert error.trigger.connectors == ("ChosenConnector",)
    assert not any("PlainConnector" in c.path[0] for c in error.trigger.chains)


def test_a_helper_that_reads_a_setting_is_inlined_so_the_fix_names_the_value(analysis_catalog):
    # `layout_is_dim_first()` returns `conv_state_layout() == "DS"`, which returns the variable or "SD"
    (error,) = [e for e in analysis_catalog.errors if e.message == "conv state must be stored dim first"]
    assert [(f.setting, f.value) for f in error.explanation.fixes] == [("VLLM_CONV_LAYOUT", "DS")]


def test_assert_after_a_local_rebuilt_from_itself_names_each_value_once(analysis_catalog):
    (error,) = [e for e in analysis_catalog.errors if e.message == "too many converted groups"]
    assert error.trigger.condition == "groups and len(convert(groups)) >= 3"


def test_the_lookups_of_one_chain_name_one_plugin_or_its_group(analysis_catalog):
    def through_part(chain):
        return any(p.endswith("PartConnector.__init__") for p in chain.path)

    (other,) = [e for e in analysis_catalog.errors if e.message == "OtherConnector needs the HND layout"]
    assert not any(through_part(c) for c in other.trigger.chains)  # GroupedFactory.create built PartConnector
    (refused,) = [c for c in other.trigger.infeasible_chains if through_part(c)]
    assert "no connector runs both, nor does a group of them" in refused.infeasible
    # PartConnector may be a part of MultiConnector, which the setting then names
    (grouped,) = [e for e in analysis_catalog.errors if e.message == "MultiConnector needs the layout of its parts"]
    assert any(through_part(c) and c.path[0].endswith("GroupedFactory.create") for c in grouped.trigger.chains)

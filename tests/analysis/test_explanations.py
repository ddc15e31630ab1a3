"""Explanations on a small package shaped like vLLM: summaries in user terms, fixes the solver proves."""

import dataclasses
import re

import pytest

from errscan.profiles.vllm import HYBRID_MODEL as VLLM_HYBRID, MLA_MODEL as VLLM_MLA, VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def explained():
    profile = dataclasses.replace(VLLM, plugin_package="vllm.kv")
    source = FolderSource(FIXTURES / "explain_pkg", profile)
    catalog = scan(source, ScanOptions(repo="o/r", scope=Scope(("vllm/**",)), jobs=1, profile=profile))
    return {e.message.split(":")[0]: e.explanation for e in catalog.errors}


def fixes(explanation):
    return [(f.setting, f.value) for f in explanation.fixes]


def test_each_way_in_gets_its_own_fix(explained):
    store = explained["StoreConnector does not support"]
    assert store.kind == "configuration"
    assert ("--mamba-cache-mode", "align") in fixes(store)  # the message names the cause
    (both,) = [f for f in store.fixes if f.setting == "--prefill-context-parallel-size"]  # one alone cannot do it
    assert both.value == "1" and both.others == (("--decode-context-parallel-size", "1"),)
    assert both.text.startswith("For “PCP/DCP > 1 (pcp=…, dcp=…) with hybrid attention”: Pass")
    assert any("without cross-attention layers" in f.text for f in store.fixes)
    assert ("--block-size", "1") not in fixes(store)  # it cannot rule the Mamba clause out


def test_summary_speaks_of_settings_and_the_model_not_locals(explained):
    summary = explained["StoreConnector does not support"].summary
    assert "the model has cross-attention layers" in summary
    assert "`--prefill-context-parallel-size * --decode-context-parallel-size` is greater than `1`" in summary
    assert "at engine start-up (when the KV connector is created)" in summary
    assert "pcp" not in summary and "g_idx" not in summary and "unsupported" not in summary


def test_example_reaches_the_error_then_applies_the_fix(explained):
    example = explained["StoreConnector does not support"].example
    # the default (none) already fails: the first command leaves the flag out, as a user would
    assert "--mamba-cache-mode" not in example.before and "--mamba-cache-mode align" in example.after
    assert '"kv_connector": "StoreConnector"' in example.before and '"kv_role": "kv_both"' in example.before


def test_plugin_package_settings_name_every_place_to_set_them(explained):
    layerwise = explained["layerwise MLA connector is not supported yet"]
    (fix,) = layerwise.fixes
    assert (fix.setting, fix.value, fix.carrier) == ("kv_connector_extra_config.lmcache.use_layerwise", "false", "--kv-transfer-config")
    assert "LMCACHE_USE_LAYERWISE" in fix.text and "LMCACHE_CONFIG_FILE" in fix.text
    assert "the model uses MLA attention" in layerwise.summary


def test_a_fix_never_fails_an_earlier_check_on_the_path(explained):
    fast = explained["the fast path cannot load KV"]
    assert fixes(fast) == [("VLLM_FAST_PATH", "0")]  # mode=slow would avoid it, but raises "slow mode is gone"
    assert fast.when == "while KV is loaded for a request" and fast.where == "each worker"


def test_advice_in_the_message_is_a_fix(explained):
    assert fixes(explained["CacheConnector needs --disable-hybrid-kv-cache-manager"]) == [("--disable-hybrid-kv-cache-manager", "true")]


def test_an_impossible_condition_is_unreachable(explained):
    assert explained["step out of range"].kind == "unreachable"


def test_an_invariant_is_internal_and_says_what_to_report(explained):
    internal = explained["Forward context must carry its layers"]
    assert internal.kind == "internal" and "Report it" in internal.fixes[0].text


def test_no_example_when_the_solver_cannot_name_a_value():
    from errscan.analysis.commands import Setting, failing_values
    from errscan.model import Knob

    inside_a_call = Setting("cfg.attention.sparse", Knob("config_field", "AttentionConfig.sparse"), "sparse", None)
    size = Setting("cfg.size", Knob("config_field", "Config.size"), "size", None)
    assert failing_values("check(cfg.attention.sparse) and cfg.size > limit", [inside_a_call, size]) is None


def test_a_setting_the_program_resets_comes_with_the_one_it_needs(explained):
    store = explained["StoreConnector does not support"]
    (mamba,) = [f for f in store.fixes if f.setting == "--mamba-cache-mode"]
    assert ("--enable-prefix-caching", "true") in mamba.others and "prefix caching" in mamba.text
    assert "--mamba-cache-mode align --enable-prefix-caching" in store.example.after


def test_examples_name_a_real_model_when_a_model_property_decides(explained):
    assert explained["StoreConnector does not support"].example.before.startswith(f"vllm serve {VLLM_HYBRID}")
    assert explained["layerwise MLA connector is not supported yet"].example.before.startswith(f"vllm serve {VLLM_MLA}")
    assert "MODEL" in explained["the fast path cannot load KV"].example.before  # no model property there


def test_a_setting_the_program_decides_is_never_said_to_be_unset(explained):
    summary = explained["HMA should not be enabled for GroupsConnector"].summary
    assert "`--disable-hybrid-kv-cache-manager` is off" in summary and "unset" not in summary


def test_advice_to_pass_a_flag_the_program_decides_says_when_it_helps(explained):
    groups = explained["GroupsConnector only works without hybrid kv cache manager. Please pass --disable-hybrid-kv-cache-manager"]
    assert "number of KV cache groups" in groups.summary
    assert "share one KV cache group" in groups.fixes[0].text  # the model decides: first
    assert groups.fixes[1].setting == "--disable-hybrid-kv-cache-manager" and "--no-disable-hybrid-kv-cache-manager" in groups.fixes[1].text


def test_advice_to_set_a_key_of_a_json_flag_is_a_fix(explained):
    (fix,) = explained["Layouts differ. Or set 'enable_permute_local_kv'=True in --kv-transfer-config."].fixes
    assert (fix.setting, fix.value, fix.carrier) == ("enable_permute_local_kv", "true", "--kv-transfer-config")


def test_internal_errors_say_it_is_likely_a_bug_and_what_to_report(explained):
    internal = explained["Forward context must carry its layers"]
    assert "most likely a bug" in internal.summary and "vllm collect-env" in internal.fixes[0].text


def test_a_raise_with_no_traced_setting_is_not_called_a_bug(explained):
    # a peer's rank, a reply, a missing package: finding no setting does not make it vLLM's fault
    unknown = explained["Unknown rank {rank}"]
    assert unknown.kind == "internal" and "most likely a bug" not in unknown.summary
    assert "errscan traced no setting of yours" in unknown.summary
    assert unknown.fixes[0].text.startswith("If the message points to nothing in your setup or environment, report it")


def test_a_background_thread_is_when_it_runs(explained):
    saver = explained["save loop needs a ready engine"]
    assert saver.when.startswith("in the background thread `GroupsConnector._save_loop`, started at engine start-up")
    assert "at engine start-up" not in saver.summary  # an internal error is not timed by its entry


def test_environment_errors_say_what_failed_and_what_to_check(explained):
    peer = explained["handshake with the remote failed"]
    assert peer.kind == "environment" and "talking to another process" in peer.summary
    assert "reachable" in peer.fixes[0].text and "underlying error" in peer.fixes[0].text


def test_an_interface_method_nobody_reaches_is_a_custom_plugins_missing_method(explained):
    custom = explained[""]
    assert custom.kind == "usage" and "kv_connector_module_path" in custom.summary
    assert "Implement `request_finished_all_groups`" in custom.fixes[0].text


def test_a_peers_setting_is_configuration_with_the_rule_and_the_instance_to_change(explained):
    tp = explained["Local tensor parallel size {self.tp_size} is not divisible by remote tensor parallel size {remote_tp_size}."]
    assert tp.kind == "configuration"
    assert ("this instance's `--tensor-parallel-size` is not a multiple of the other instance's "
            "`--tensor-parallel-size`") in tp.summary
    (fix,) = tp.fixes
    assert (fix.setting, fix.value) == ("--tensor-parallel-size", "1") and fix.text.endswith("on the other instance.")
    assert tp.example is None  # one command cannot show two instances


def test_an_unsupported_setup_is_quoted_from_the_message_once(explained):
    refused = explained["Could not find the hidden-states group; the layer must be alone (MLA verifiers are unsupported)."]
    assert refused.kind == "internal" and "“MLA verifiers are unsupported”" in refused.summary
    assert "most likely a bug" not in refused.summary
    assert "not supported" in refused.fixes[0].text and "MLA verifiers" not in refused.fixes[0].text  # said once


def test_a_message_that_carries_a_caught_error_reports_a_failure_outside(explained):
    written = explained["hidden states write failed"]
    assert written.kind == "environment" and "a file operation failed" in written.summary
    assert "underlying error" in written.fixes[0].text


def test_a_setting_read_in_a_part_without_words_is_still_named(explained):
    layout = explained["Layouts differ. Or set 'enable_permute_local_kv'=True in --kv-transfer-config."]
    # VLLM_LAYOUT: read by the helper that gave `self.layout` its value, through its local variable
    assert "if the model does not use MLA attention" in layout.summary  # `not cfg.use_mla`: negated
    assert "It also depends on `VLLM_LAYOUT`" in layout.summary
    assert "It also depends" not in explained["StoreConnector does not support"].summary


def test_an_optional_import_that_failed_is_a_package_to_install(explained):
    missing = explained["Mooncake is not available"]
    assert missing.kind == "environment"
    assert "the package providing `mooncake` is not installed" in missing.summary
    (fix,) = missing.fixes
    assert "`pip install mooncake-transfer-engine`" in fix.text  # the profile's name for the `mooncake` import


def test_a_failure_the_peer_reports_is_environment_with_what_to_check_there(explained):
    pulled = explained["pulling kv_caches for {response.err_reqs} failed"]
    assert pulled.kind == "environment"
    assert "other instance's log" in pulled.fixes[0].text and "message carries the underlying error" in pulled.fixes[0].text
    # the class reads a port, but the peer's answer is not sent to it by this code: no setting to check
    assert [f.setting for f in pulled.fixes[1:]] == []


def test_a_class_from_the_users_own_module_is_to_change_as_the_message_asks(explained):
    own = explained["Connector {connector_cls.__name__} uses deprecated 2-argument constructor signature. External v1 KV connectors must accept kv_cache_config as the third constructor argument."]
    assert own.kind == "usage"
    assert "class of your own" in own.summary and "`kv_connector_module_path` in `--kv-transfer-config`" in own.summary
    (fix,) = own.fixes
    assert fix.setting == "kv_connector_module_path"
    assert "must accept kv_cache_config as the third constructor argument" in fix.text
    assert "No setting" not in own.summary and "StoreConnector" not in own.summary


def test_a_field_the_config_fills_itself_is_no_fix_nor_clause(explained):
    """`engine_id is not None` always holds once the config filled it: neither the error's own
    condition nor the path's (`this code runs only if ...`) is said to depend on it."""
    split = explained["FilledConnector cannot split the decode context"]
    assert fixes(split) == [("--decode-context-parallel-size", "1")]
    assert "engine_id" not in split.summary and "`--decode-context-parallel-size` is greater than `1`" in split.summary
    load = explained["FilledConnector cannot load in slow mode"]
    assert "engine_id" not in load.summary and "runs only if" not in load.summary


def test_an_extra_config_key_read_by_subscript_into_self_is_the_setting(explained):
    strict = explained["SubscriptConnector needs the NHD layout, not {forward_context.layout}"]
    assert fixes(strict) == [("kv_connector_extra_config.strict_layout", "false")]
    assert "`kv_connector_extra_config.strict_layout` in `--kv-transfer-config` is on" in strict.summary


def test_an_internal_error_gives_the_configuration_that_reaches_it_and_what_to_attach(explained):
    tracker = explained["Request tracker not found"]
    assert tracker.kind == "internal" and tracker.check == "vllm collect-env"  # the profile's report command
    assert tracker.summary.startswith("An internal consistency check of DiskConnector fails while KV is loaded for a request:")
    assert tracker.reproduce == (
        """vllm serve MODEL --kv-transfer-config '{"kv_connector": "DiskConnector", "kv_role": "kv_both"}'""")


def test_a_failed_file_operation_names_the_path_setting_and_how_to_check_it(explained):
    written = explained["disk write failed"]
    assert written.kind == "environment"
    # `allow_custom_save_path` ends like a path but is an on/off flag (its default is False); `file_size` is no path
    assert [(f.setting, f.carrier) for f in written.fixes[1:]] == [("kv_connector_extra_config.storage_path", "--kv-transfer-config")]
    assert "(default `/tmp/kv`)" in written.fixes[1].text
    assert written.check == "ls -ld <storage_path> && df -h <storage_path>"
    assert "no setting of yours" not in written.summary and "what you give in `kv_connector_extra_config.storage_path`" in written.summary


def test_a_helper_classs_failed_file_operation_names_the_connectors_path_setting(explained):
    flushed = explained["disk flush failed"]
    assert flushed.fixes[1].setting == "kv_connector_extra_config.storage_path"
    assert flushed.check == "ls -ld <storage_path> && df -h <storage_path>"


def test_a_value_of_the_wrong_form_points_at_the_file_it_was_read_from(explained):
    size = explained["Unsupported type for size"]
    assert size.kind == "environment"
    assert "`VLLM_DISK_CONFIG_PATH` is set" in size.summary and "is on" not in size.summary  # a path, not a switch
    assert size.check == 'cat "$VLLM_DISK_CONFIG_PATH"'
    assert "(its key `segment_size`)" in size.fixes[-1].text  # what the value is called in that file
    assert "no setting of yours" not in size.summary  # the file it names is the user's
    assert size.reproduce.startswith("VLLM_DISK_CONFIG_PATH='<vllm_disk_config_path>' vllm serve MODEL")


def test_a_peers_failure_gives_a_command_that_checks_the_port(explained):
    pulled = explained["pulling kv_caches for {response.err_reqs} failed"]
    assert pulled.check == "nc -vz <peer-host> <peer-port>"  # `side_port` may be this instance's own


def test_an_environment_variable_looked_up_by_a_table_name_is_the_users_not_a_bug(explained):
    renamed = explained["renamed environment variable set"]
    assert renamed.kind == "environment" and "environment variable" in renamed.summary
    assert "no setting of yours" not in renamed.summary and "most likely a bug" not in renamed.summary
    assert renamed.fixes[0].text.startswith("Set or unset the environment variable the message names")


def test_a_field_the_client_sends_decides_it_and_is_named(explained):
    tracker = explained["Request tracker missing"]
    assert tracker.kind == "usage" and "a request whose `kv_transfer_params` (the keys read on the way: `extra_tokens`) leads here" in tracker.summary
    assert "no setting of yours" not in tracker.summary and tracker.fixes[0].setting == "kv_transfer_params"


def test_values_from_outside_are_not_called_a_bug(explained):
    """Internal-looking checks on what a request, a store, the clock or a client of a server gives."""
    released = explained["Cannot release blocks for request {request_id}"]
    assert released.kind == "usage" and "`kv_transfer_params`" in released.summary  # passed down as `params`
    notify = explained["Cannot notify the remote instance of request {request_id}"]  # the peer the request names
    assert notify.kind == "environment" and [f.setting for f in notify.fixes if f.setting] == ["kv_transfer_params"]
    pressure = explained["Store is under pressure; skipping this batch"]
    assert pressure.kind == "environment" and "`NO_AVAILABLE_HANDLE`" in pressure.summary
    assert "most likely a bug" not in pressure.summary
    started = explained["Transfer engine initialization failed."]
    assert started.kind == "environment" and "`TransferEngine.initialize` answers other than `0`" in started.summary
    assert "answers" not in explained["Boundaries left over"].summary  # a local's method: no reply from outside
    expired = explained["Releasing expired blocks for request {req_id}"]
    assert expired.kind == "environment" and "in time" in expired.summary
    assert [f.setting for f in expired.fixes] == ["kv_connector_extra_config.kv_lease_duration"]  # not `engine_ttl`
    rank = explained["Rank {rank} not initialized"]
    assert rank.kind == "environment" and "restarted" in rank.summary and "most likely a bug" not in rank.summary


def test_a_variable_that_holds_a_path_is_given_a_path(explained):
    unset = explained["The environment variable 'VLLM_STORE_CONFIG_PATH' is not set."]
    (fix,) = unset.fixes
    assert fix.value == "<vllm_store_config_path>" and "existing file" in fix.text and "=1" not in fix.text
    assert unset.example is None or "VLLM_STORE_CONFIG_PATH=0" not in unset.example.before


def test_a_handler_behind_a_method_that_catches_everything_blames_no_file(explained):
    escaped = explained["Save worker error"]
    assert "file operation" not in escaped.summary
    assert "`_handle_save_task` catches every exception itself" in escaped.summary


def test_a_base_method_every_class_of_the_package_overrides_is_reached_from_outside(explained):
    """No `StatsBase` itself is made, so the call on the base type reaches only the overrides."""
    base = explained["Stats classes implement is_empty"]
    assert base.kind == "usage" and "no code in vLLM reaches this base version" in base.summary
    assert "bug" not in base.summary and base.fixes[0].text.startswith("Implement `is_empty`")


def test_an_error_of_a_module_run_as_a_program_reproduces_with_python_m(explained):
    assert explained["Unknown rank {rank}"].reproduce == "python -m vllm.kv.run_as_main"


def test_an_error_of_a_module_run_as_a_program_happens_while_that_program_runs(explained):
    unknown = explained["Unknown rank {rank}"]
    assert unknown.when == "while the program `python -m vllm.kv.run_as_main` runs"
    assert unknown.where == "the `python -m vllm.kv.run_as_main` process"
    assert "raises this while the program `python -m vllm.kv.run_as_main` runs" in unknown.summary
    registered = explained["No pages for rank {rank}"]  # a handler registered by a call: no thread
    assert registered.when == "when `Server.allocate` is called (it is registered while the program `python -m vllm.kv.run_as_main` runs)"


def test_a_peer_failure_names_only_the_address_its_own_code_uses(explained):
    """The class reads its own listening host and the proxy's URL: the worker that fails to send uses
    neither (no setting decides it), the registration uses the proxy's URL only."""
    worker = explained["Error in the sender worker"]
    assert worker.kind == "environment" and "no setting of yours decides it" in worker.summary
    assert [f.setting for f in worker.fixes if f.setting] == []
    registered = explained["Failed to register with the proxy server"]
    assert [f.setting for f in registered.fixes if f.setting] == ["kv_connector_extra_config.proxy_url"]
    assert "listen_host" not in registered.summary


def test_a_peer_address_held_in_a_config_object_built_from_the_extra_config_is_named(explained):
    """`self.proxy_ip = self.cfg.proxy_ip`, the config built by `PingConfig.from_vllm_config()` from
    the extra config: the addresses it connects to are named, not the port it only sends along."""
    ping = explained["Ping to the proxy failed"]
    assert ping.kind == "environment"
    (pointer,) = [f for f in ping.fixes if f.setting]
    assert "`kv_connector_extra_config.proxy_ip`" in pointer.text and "`kv_connector_extra_config.proxy_ping_port`" in pointer.text
    assert "notify_port" not in pointer.text and "no setting of yours" not in ping.summary
    # the proxy's address (the profile's `relays`): this instance connects to it, it is not the peer's
    assert pointer.text.startswith("Check that this instance can reach the proxy at the address and port given in")
    assert "both instances" not in pointer.text
    assert ping.fixes[0].text.startswith("Look at the proxy's log") and "other instance" not in ping.fixes[0].text
    assert ping.check == "nc -vz <proxy_ip> <proxy_ping_port>"


def test_a_message_that_says_it_expired_names_the_lease_the_plugins_scheduler_reads(explained):
    """The worker's own condition is a membership test; the message says the request may have expired:
    the clock decides it, and the lease is read by the scheduler the connector makes, not the worker."""
    expired = explained["Notification for unrecognized request {req_id} (may have expired)."]
    assert expired.kind == "environment" and "in time" in expired.summary and "most likely a bug" not in expired.summary
    assert [f.setting for f in expired.fixes] == ["kv_connector_extra_config.kv_lease_duration"]  # not `engine_ttl`


def test_a_timeout_read_from_a_built_config_object_is_named(explained):
    """`self.cfg.transfer_timeout`, read directly, cfg built by `PingConfig.from_vllm_config()`."""
    timed_out = explained["Timed out waiting for the transfer"]
    assert timed_out.kind == "environment"
    assert [f.setting for f in timed_out.fixes] == ["kv_connector_extra_config.transfer_timeout"]


def test_a_value_read_only_by_a_loop_whose_test_reads_no_item_decides_nothing(explained):
    loop = explained["loop hash mismatch with the remote"]
    assert "enforce_loop_hash" in loop.summary
    assert "tensor-parallel-size" not in loop.summary and "It also depends" not in loop.summary


def test_what_a_library_outside_returned_is_its_answer_not_a_bug(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/library_answer.py: `self.engine` is a `MemEngine`
    of `memlib.io` (a parameter's annotation says so), `self.registry` a class of the package."""
    answered = explained["register_tensor returned None"]
    assert answered.kind == "environment" and "most likely a bug" not in answered.summary
    assert "`engine.register_tensor(tensor)` returns `None`: that value is the answer of `memlib.io`" in answered.summary
    assert answered.fixes[0].text.startswith("Check that `memlib.io` is installed")
    own = explained["registry lookup found nothing"]  # the package's own class: its state
    assert own.kind == "internal" and "memlib" not in own.summary
    parsed = explained["parse found nothing"]  # `parse(str(tensor))`: decided by the value it is given
    assert parsed.kind == "internal" and "memlib" not in parsed.summary


def test_a_setting_that_only_lets_it_happen_is_not_told_as_the_cause(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/setting_and_peer_data.py: the flag is on by
    default; what decides is the peer's hash, or what a check of the request finds."""
    mismatch = explained["peer hash mismatch"]
    assert "when the peer hash of the payload differs from its own local hash, and only if `kv_connector_extra_config.check_peer_hash`" in mismatch.summary
    assert [f.setting for f in mismatch.fixes] == ["kv_connector_extra_config.check_peer_hash"]  # what avoids it
    expired = explained["read of {meta} expired"]
    assert "when the check `_is_read_expired` returns true, and only if `kv_connector_extra_config.keep_reads`" in expired.summary


def test_a_log_site_that_says_what_is_not_supported_does_not_refuse(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/unsupported_log.py: it warns and carries on."""
    warned = explained["cache engine does not support register_kv_caches, please upgrade"]
    assert "refuses" not in warned.summary and " this and carries on: the message says “cache engine does not support" in warned.summary


def test_a_handler_is_about_a_file_only_when_its_guarded_code_touches_one(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/file_words_in_memory.py: both say "write"; only
    the helper that `open`s a file makes a failure a file operation's."""
    in_memory = explained["Confirm write for keys failed"]
    assert in_memory.kind == "environment" and "file" not in in_memory.summary and in_memory.check is None
    on_disk = explained["Flush write for keys failed"]
    assert "a file operation failed" in on_disk.summary and on_disk.check.startswith("ls -ld")
    assert "a file operation failed" in explained["Deregister failed"].summary  # unseen: its name is the guide


def test_a_field_read_from_the_users_file_is_a_setting_not_a_bug(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/file_config_fields.py: `buffer_size` comes from
    the JSON file `FILED_CONFIG_PATH` names."""
    filed = explained["buffer_size must be > 0"]
    assert filed.kind == "configuration" and "bug" not in filed.summary.replace("not a bug", "")
    assert "(when the KV connector is created), if `buffer_size` in the file `FILED_CONFIG_PATH` names is at most `0`" in filed.summary
    assert (filed.fixes[0].setting, filed.fixes[0].value) == ("buffer_size", "1")  # the solver rules `<= 0` out
    assert filed.fixes[0].text.startswith("Set `buffer_size` to `1` in the file `FILED_CONFIG_PATH` names")
    # the rule broken in the chosen case is changed, not the case: `segment`, not `mode`
    case = explained["local mode requires segment > 0"].fixes[0]
    assert (case.setting, case.value) == ("segment", "1")


def test_a_timer_the_message_shows_or_spells_out_is_the_one_that_ran_out(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/shown_timer.py: both timers are read through
    `float(...)`; the message shows or names `reap_timeout`, never `idle_timeout`."""
    reaped = explained["Reaped {len(expired)} sends after {self._reap_timeout}s without a notification"]
    assert reaped.kind == "environment" and "most likely a bug" not in reaped.summary
    assert [f.setting for f in reaped.fixes] == ["kv_connector_extra_config.reap_timeout"]
    waited = explained["Timed out waiting for the peer; adjust with reap_timeout"]
    assert [f.setting for f in waited.fixes] == ["kv_connector_extra_config.reap_timeout"]


def test_a_log_with_no_traced_setting_asks_for_its_lines_and_a_warning_for_nothing_alone(explained):
    warning = explained["Ledger has no attention metadata to load into"]
    assert warning.kind == "internal"
    assert warning.fixes[0].text.startswith("It is a warning: if nothing fails with it, it needs no action. If something does")
    error = explained["Ledger count went negative for request {req_id}"]
    assert error.fixes[0].text.startswith("If the message points to nothing in your setup or environment, report it")
    for log in (warning, error):  # a log record has no traceback to attach
        assert "with the log lines around it" in log.fixes[0].text and "traceback" not in log.fixes[0].text


def test_a_caught_value_error_is_a_value_of_the_wrong_form_not_a_failed_peer(explained):
    parsed = explained["Cannot release blocks for request {request.request_id}"]
    assert "does not have the form it expects" in parsed.summary and "nc -vz" not in (parsed.check or "")
    assert parsed.fixes[0].text.startswith("Check what the request's `kv_transfer_params` carries")
    missing = explained["Remote allocation info missing for transfer {transfer_id}"]  # "remote", but a key is missing
    assert "an entry it looks up (a key or an index) is not there" in missing.summary and missing.check is None
    received = explained["Failed to decode the remote handshake metadata. Error"]
    assert received.kind == "environment" and "data it received from another process" in received.summary
    assert received.check is None and "same vLLM version" in received.fixes[0].text  # it was received: no port to probe



def test_a_name_a_module_imports_on_first_use_is_none_when_its_package_is_missing(explained):
    lazy = explained["The agent library is not available"]
    assert lazy.kind == "environment" and "the package providing `nixl` is not installed" in lazy.summary
    assert lazy.fixes[0].text.startswith("Install it in the same Python environment as vLLM: `pip install nixl`.")
    assert lazy.check == 'python -c "import nixl"'
    # the module name is "nixl_rocm" if current_platform.is_rocm(): the page says so, with no pip name it does not know
    assert lazy.fixes[0].text.endswith(" On ROCm, vLLM imports `nixl_rocm` instead: install the package that provides "
                                       "it (`python -c \"import nixl_rocm\"` checks it).")


def test_a_config_the_user_gives_whole_read_through_an_alias_of_the_root_is_its_flag(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/root_config_alias.py: `speculative_config` is
    `None` unless the user passes `--speculative-config` (JSON); the message names the method it needs."""
    needed = explained["HiddenStatesConnector only works when using 'extract_hidden_states' speculative method"]
    assert needed.kind == "configuration" and "`--speculative-config` is None (not set)" in needed.summary
    assert fixes(needed) == [("--speculative-config", '{"method": "extract_hidden_states"}')]
    assert needed.fixes[0].text.endswith("with the other fields that config needs (vLLM's check of the config names any it lacks).")
    assert needed.example.after.endswith("""--speculative-config '{"method": "extract_hidden_states"}'""")
    ngram = explained["HiddenStatesConnector cannot follow ngram drafts"]  # a field of it is spelled in its flag
    assert "`method` in `--speculative-config` equals `'ngram'`" in ngram.summary
    assert fixes(ngram) == [("--speculative-config", "unset")]  # a whole config is never a small number


def test_a_setting_passed_down_to_the_object_that_compares_it_with_the_peers_is_named(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/passed_to_maker.py: `engine_id` reaches the
    topology through two constructors and `super().__init__`; it is compared with what the peer sent."""
    same = explained["Cannot register local engine {self.engine_id} as remote."]
    assert same.kind == "configuration" and "bug" not in same.summary
    assert "if what the other side sent as `remote_engine_id` equals `engine_id` in `--kv-transfer-config`" in same.summary
    (fix,) = same.fixes
    assert fix.setting == "engine_id" and fix.value is None and fix.carrier == "--kv-transfer-config"
    assert fix.text.startswith("Give each instance its own `engine_id` in `--kv-transfer-config`, or leave it out")
    differ = explained["Peer DCP size {remote_dcp_size} differs from {self.dcp_size}"]  # vLLM does not fill it
    assert [f.text for f in differ.fixes] == ["Give both instances the same `--decode-context-parallel-size`."]


def test_a_server_short_of_room_is_not_told_it_restarted(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/from_outside.py: the warning after the
    "not initialized" check fires when the server has fewer pages left than the request asks for."""
    short = explained["Rank {rank} only got {len(pages)} pages for {len(keys)} keys"]
    assert short.kind == "environment" and "restarted" not in short.summary
    assert "asks for more than the server has left" in short.summary
    assert short.fixes[0].text.startswith("Give the server more room, or free some")
    assert "restarted" in explained["Rank {rank} not initialized"].summary


def test_a_parameter_every_caller_fills_from_a_setting_is_that_setting(explained):
    counter = explained["Round robin size must be positive"]
    assert counter.kind == "configuration"
    assert counter.fixes[0].setting.endswith("client_numjobs") and counter.fixes[0].carrier == "--kv-transfer-config"
    mixed = explained["More tokens than the blocks hold"]  # the setting is one factor among run-time values
    assert mixed.kind == "internal" and "--block-size" not in mixed.summary


def test_an_engine_chosen_by_a_key_runs_only_if_the_key_is_on(explained):
    """tests/fixtures/explain_pkg/vllm/kv/connectors/chosen_engine.py: `use_native` picks the class
    of `self._engine` in `__init__`; its check is no setting's, but whether it runs is the key's."""
    chosen = explained["chosen engine retrieved fewer tokens than expected"]
    assert "errscan traced no setting of yours that decides it other than whether this code runs" in chosen.summary
    assert chosen.summary.endswith("(this code runs only if `kv_connector_extra_config.use_native` in `--kv-transfer-config` is on).")
    assert '"use_native": true' in chosen.reproduce


def test_a_part_that_only_says_some_item_exists_is_no_clause():
    # it read "`True` is true" (canonical_mapping.py:364 on vLLM 0.27.1)
    from errscan.analysis.ways import positive_parts

    assert positive_parts("cfg.on and any(True for r in reqs)") == ["cfg.on"]
    assert positive_parts("any(isinstance(c, list) and any(True for i in c) for r in reqs)") == ["isinstance(c, list)"]


def test_a_method_handing_on_its_own_object_is_followed_back_without_a_value_for_it(explained):
    # `_check_self` passes `self` on; what its callers pass for `self` is nothing (whole vllm/ crashed on it)
    assert explained["An owner is needed"].kind == "internal"


def test_an_example_holds_the_settings_the_way_needs_besides_the_fixed_one(explained):
    split = explained["ConsumerSplitConnector consumer does not split the prefill context"]
    assert fixes(split) == [("--prefill-context-parallel-size", "1")]
    for command in (split.example.before, split.example.after):  # kv_both would not fire at all
        assert '"kv_role": "kv_consumer"' in command
    assert "--prefill-context-parallel-size 2" in split.example.before


def test_no_example_when_the_way_needs_a_config_no_command_can_spell(explained):
    warned = explained["DraftPathConnector lets clients write anywhere"]
    assert fixes(warned) == [("kv_connector_extra_config.allow_any_path", "false")]
    assert warned.example is None  # without --speculative-config the assert before it fails first


def test_a_check_a_setting_switches_off_before_the_error_is_named(explained):
    decoded = explained["Failed to decode the checked handshake body. Error"]
    assert decoded.kind == "environment"
    assert ("no setting of yours decides it, but a check before it on the same path is skipped where you set "
            '`"enforce_match": false` under `kv_connector_extra_config` in `--kv-transfer-config`') in decoded.summary
    assert decoded.fixes[-1].setting == "kv_connector_extra_config.enforce_match"
    assert decoded.fixes[-1].text.startswith('If you changed `enforce_match` so, set `"enforce_match": true`')
    # where no earlier check is switched off, the summary keeps its plain words
    assert "no setting of yours decides it." in explained["Failed to decode the remote handshake metadata. Error"].summary


def test_unknown_as_an_outcome_is_not_a_value_of_the_wrong_form(explained):
    outcome = explained["Failed to get replica descriptors for tier logging (error={e}); marking tiers unknown"]
    assert "does not have the form it expects" not in outcome.summary
    assert "does not have the form it expects" in explained["Unknown backend {name}"].summary


def test_a_check_whose_message_names_both_instances_is_their_setups_disagreeing(explained):
    for message in ("Number of layers must match between prefill and decode", "Block length differs"):
        paired = explained[message]
        assert paired.kind == "configuration" and "a value of the other instance does not agree" in paired.summary
        assert paired.fixes[0].text.startswith("Start the prefill and the decode instance with the same model")
    # only a message with placeholders shows each side's value
    assert "The message shows the values of each side." not in explained["Number of layers must match between prefill and decode"].fixes[0].text
    assert "The message shows the values of each side." in explained["Block length differs"].fixes[0].text
    assert explained["Forward context must carry its layers"].kind == "internal"  # names no side


def test_what_a_try_guards_decides_its_failure_not_what_set_up_the_socket(explained):
    """A socket bound to this instance's own address before the `try`: the bind succeeded, so the
    address is not what a failure to receive says to check."""
    listener = explained["Error in the listener thread"]
    assert listener.kind == "environment" and "no setting of yours decides it" in listener.summary
    assert [f.setting for f in listener.fixes if f.setting] == [] and "side_host" not in listener.summary


def test_a_socket_connected_before_the_try_still_names_the_other_side(explained):
    ping = explained["Ping send failed"]
    assert [f.setting for f in ping.fixes if f.setting] == ["kv_connector_extra_config.relay_proxy_ip"]
    assert ping.fixes[0].text.startswith("Look at the proxy's log")


def test_a_handler_after_one_for_refused_connections_reports_the_answer_not_the_port(explained):
    """`except httpx.ConnectError: retry` before it: the server was reached, so no port probe and no
    "both instances"; this instance's own address only goes along in the payload, the registry's port
    is where the request is sent."""
    registered = explained["Error registering {payload} with the registry server"]
    assert registered.kind == "environment" and registered.check is None
    assert "answered with an error" in registered.summary and "side_host" not in registered.summary
    assert "`httpx.ConnectError`" in registered.fixes[0].text and "message carries its answer" in registered.fixes[0].text
    assert [f.setting for f in registered.fixes if f.setting] == ["kv_connector_extra_config.registry_port"]
    assert not any("both instances" in f.text for f in registered.fixes)


def test_a_set_filled_from_the_entries_a_setting_lists_names_that_list(explained):
    # the set of layouts is filled in a loop over what `_entries` reads from the `members` key
    members = explained["Listed members disagree on the layout"]
    assert members.kind == "configuration"
    assert "the entries listed in `kv_connector_extra_config.members` in `--kv-transfer-config` give different values of " \
           "`layout` (`entry.get('layout')` for each entry; entries that give None do not count)" in members.summary
    assert "bug" not in members.summary
    (fix,) = members.fixes
    assert fix.setting == "kv_connector_extra_config.members" and fix.text.startswith(
        "List in `kv_connector_extra_config.members` in `--kv-transfer-config` only entries that give the same `layout`")


def test_a_summary_brings_in_its_cause_with_if_after_a_phase(explained):
    """"raises this at engine start-up (when ...) when the check below holds" reads as two times;
    after a phase the cause is brought in by "if"."""
    timed = [e.summary for e in explained.values() if e.when and e.kind != "configuration"]
    assert any(", if " in s for s in timed)
    assert not [s for s in timed if re.search(r"\bwhen\b[^;:.]*\bwhen\b", s)]


def test_a_role_test_of_the_site_itself_says_where(explained):
    scheduler_only = explained["kv_cache_config is required for the scheduler role"]
    assert scheduler_only.when == "at engine start-up (when the KV connector is created)"
    assert scheduler_only.where == "the scheduler (engine core)"  # not "the scheduler and each worker"
    assert explained["RoleLocalConnector does not know the role {role}"].where == "the scheduler and each worker"


def test_an_extra_config_key_read_through_an_empty_fallback_is_the_setting(explained):
    pinned = explained["FallbackConnector pins at most 1024 bytes"]
    assert pinned.kind == "configuration"
    assert "kv_connector_extra_config.pinned_bytes" in pinned.summary
    assert [setting for setting, _ in fixes(pinned)] == ["kv_connector_extra_config.pinned_bytes"]


def test_an_installed_packages_version_check_says_which_release_to_install(explained):
    old = explained["VersionedConnector needs fastwriter 0.8.0 or newer"]
    assert old.kind == "environment" and "the installed `fastwriter` is older than 0.8.0" in old.summary
    assert [f.text for f in old.fixes][0].endswith("`pip install 'fastwriter>=0.8.0'`.") and old.check == "pip show fastwriter"
    new = explained["VersionedConnector does not work with fastlib 2.0 and newer"]  # the constant on the left
    assert "the installed `fastlib` is 2.0 or newer" in new.summary and "`pip install 'fastlib<2.0'`" in new.fixes[0].text


def test_a_none_answer_the_callee_documents_is_explained_in_its_words(explained):
    shelf = explained["ShelfConnector cannot reserve {key}"]
    assert shelf.kind == "environment" and "bug" not in shelf.summary
    assert "“None is returned if the shelf has no room left for them.”" in shelf.summary


def test_a_field_the_engine_sets_is_no_setting_of_the_users(explained):
    """explain_pkg/vllm/kv/connectors/engine_set_field.py: `num_gpu_blocks` is `field(init=False)`."""
    registered = explained["EngineSetConnector could not register its buffers"]
    assert "num_gpu_blocks" not in registered.summary
    assert all("num_gpu_blocks" not in f.setting and "num_gpu_blocks" not in f.text for f in registered.fixes)


def test_words_that_leave_a_test_of_the_model_out_say_only_if(explained):
    """explain_pkg/vllm/kv/connectors/partial_words.py: `pcp >= kv_cache_config.num_kv_heads` has no user words."""
    partial = explained["PartialConnector cannot split fewer heads than ranks"]
    assert partial.summary.endswith(
        "only if `--prefill-context-parallel-size` is greater than `1`, among other checks shown in the condition below.")
    whole = explained["StoreConnector does not support"].summary  # every part said: "if"
    assert "among other checks" not in whole and " only if " not in whole


def test_the_way_to_the_code_is_said_before_the_words_on_the_condition_below(explained):
    """explain_pkg/vllm/kv/connectors/partial_words.py: `_split` runs only with `use_native`."""
    assert explained["PartialConnector cannot split the loaded heads"].summary.endswith(
        "is greater than `1` (this code runs only if `kv_connector_extra_config.use_native` in `--kv-transfer-config` is on), "
        "among other checks shown in the condition below.")

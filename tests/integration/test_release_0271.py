"""errscan on real vLLM 0.27.1, fetched with pip into the cache once (about 300 MB, seconds here)."""

import ast
import json
from pathlib import Path

import pytest

from conftest import reraises, run_cli
from errscan.profiles.vllm import VLLM
from errscan.scope import Scope

pytestmark = pytest.mark.integration

SEEDS = {  # (file name, line, function): template, from ../shared/seeds
    ("example_hidden_states_connector.py", 133, "ExampleHiddenStatesConnector._find_cache_kv_group_id"):
        "Could not uniquely identify the extract-hidden-states KV cache group among {len(groups)} groups; "
        "the hidden-states layer must be isolated in its own group (MLA verifiers are unsupported).",
    ("vllm_v1_adapter.py", 508, "_init_lmcache_engine"): "layerwise MLA connector is not supported yet",
    ("connector.py", 124, "MooncakeStoreConnector._validate_kv_cache_config"):
        "MooncakeStoreConnector does not support: {unsupported}",
    ("lmcache_mp_connector.py", 78, "reformat_block_ids"):
        "LMCacheMPConnector only works without hybrid kv cache manager. "
        "Please pass --disable-hybrid-kv-cache-manager when starting vllm",
}


@pytest.fixture(scope="module")
def catalog(catalog_0271):
    return catalog_0271


def ast_sites(root: Path, scope: Scope):
    raises, asserts = set(), set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not scope.catalogues(rel):
            continue
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Raise) and not reraises(node):
                raises.add((rel, node.lineno))
            elif isinstance(node, ast.Assert) and node.msg is not None:
                asserts.add((rel, node.lineno))
    return raises, asserts


def test_catalog_equals_what_ast_finds(catalog, release_0271):
    raises, asserts = ast_sites(release_0271, Scope(VLLM.default_include))
    assert {(e.path, e.line) for e in catalog.errors if e.kind == "raise"} == raises
    assert {(e.path, e.line) for e in catalog.errors if e.kind == "assert"} == asserts
    assert (len(raises), len(asserts)) == (148, 120)  # 150 raise statements, 2 of them `raise e`
    assert catalog.summary.parse_failures == ()
    assert catalog.summary.files_read > 2000 and catalog.summary.files_catalogued == 71


def ast_log_calls(root: Path, scope: Scope) -> dict[tuple[str, int], str]:
    """The oracle's own reading: every `logger.<level>(...)` and `warnings.warn(...)` call whose
    message is a literal or an f-string, with its level."""
    levels = {"warning": "warning", "error": "error", "exception": "exception", "critical": "critical"}
    found = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not scope.catalogues(rel):
            continue
        for node in ast.walk(ast.parse(path.read_bytes())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
                continue
            if not isinstance(node.args[0], (ast.Constant, ast.JoinedStr)):
                continue
            receiver, method = ast.unparse(node.func.value), node.func.attr
            if receiver == "logger" and method in levels:
                found[(rel, node.lineno)] = levels[method]
            elif receiver == "warnings" and method == "warn":
                found[(rel, node.lineno)] = "warning"
    return found


def test_every_log_call_is_catalogued(catalog, release_0271):
    oracle = ast_log_calls(release_0271, Scope(VLLM.default_include))
    logged = {(e.path, e.line): e.level for e in catalog.errors if e.kind == "log"}
    assert {site: logged.get(site) for site in oracle} == oracle
    # Beyond the oracle: 8 `logger.warning_once(` (vLLM's own helper, named by the profile), and 3
    # `logger.error(msg)` whose message is a variable assigned once, read as its template.
    assert (len(oracle), len(logged), catalog.summary.logs) == (135, 146, 146)
    others = [e for e in catalog.errors if e.kind == "log" and (e.path, e.line) not in oracle]
    calls = sorted((release_0271 / e.path).read_text().splitlines()[e.line - 1].strip() for e in others)
    assert calls == ["logger.error(msg)"] * 3 + ["logger.warning_once("] * 8
    assert all("{msg}" not in e.message and e.message for e in others)


def test_seed_errors_have_exact_templates_and_lines(catalog):
    found = {(Path(e.path).name, e.line, e.function): e.message for e in catalog.errors}
    for key, template in SEEDS.items():
        assert found.get(key) == template, key


def test_commit_and_version_come_from_the_wheel(catalog):
    assert (catalog.commit, catalog.version) == ("6e448d0ea", "0.27.1")


def test_ids_are_unique(catalog):
    assert len({e.id for e in catalog.errors}) == len(catalog.errors)


def test_release_and_folder_scans_are_byte_identical(release_0271, tmp_path):
    by_release = run_cli("scan", "--release", "0.27.1", "--out", str(tmp_path / "a"))
    by_folder = run_cli("scan", str(release_0271), "--out", str(tmp_path / "b"))
    assert by_release.returncode == 0 and by_folder.returncode == 0, by_release.stderr + by_folder.stderr
    for rel in ("api/index.json", "index.html"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    index = json.loads((tmp_path / "a" / "api" / "index.json").read_text())
    assert len(index["errors"]) == 414  # 148 raises + 120 asserts + 146 log sites


def test_release_pip_cannot_fetch_is_a_one_line_failure(tmp_path):
    done = run_cli("scan", "--release", "0.0.0.9999", "--out", str(tmp_path / "s"), "--cache-dir", str(tmp_path / "c"))
    assert done.returncode == 1 and done.stderr.startswith("errscan: pip could not fetch vllm==0.0.0.9999")
    assert done.stderr.count("\n") == 1


# When the errors fire (the analysis issue's checks on real vLLM).

def error_at(catalog, name, line):
    (found,) = [e for e in catalog.errors if e.path.endswith("/" + name) and e.line == line]
    return found


def knob_set(error):
    return {(k.kind, k.name) for k in error.trigger.knobs}


def test_reformat_block_ids_trigger(catalog):
    error = error_at(catalog, "lmcache_mp_connector.py", 78)
    assert {"block_ids is not None", "len(block_ids) > 1"} <= set(error.trigger.conjuncts)
    assert any(c.path[0].endswith("LMCacheMPConnectorUpstream.update_state_after_alloc") for c in error.trigger.chains)
    assert error.trigger.connectors == ("LMCacheMPConnector",)
    assert ("env", "LMCACHE_USE_UPSTREAM_MP") in knob_set(error)
    assert all("LMCACHE_USE_UPSTREAM_MP" in c.condition and "ImportError" in c.condition for c in error.trigger.chains)


def test_init_lmcache_engine_trigger(catalog):
    error = error_at(catalog, "vllm_v1_adapter.py", 508)
    assert {"mla_enabled(model_config)", "lmcache_config.use_layerwise"} <= set(error.trigger.conjuncts)
    tails = [[p.rsplit(".", 1)[-1] for p in c.path] for c in error.trigger.chains]
    assert ["__init__", "__init__", "_init_lmcache_engine"] in tails
    (chain,) = [c for c in error.trigger.chains if c.path[0].endswith("LMCacheConnectorV1.__init__")]
    assert chain.path[1].endswith("LMCacheConnectorV1Impl.__init__")
    assert "get_from_extra_config('use_native', False)" in chain.condition
    assert "role != KVConnectorRole.SCHEDULER" in chain.condition
    assert error.trigger.connectors == ("LMCacheConnectorV1",)
    assert ("extra_config", "use_native") in knob_set(error)


def test_mooncake_accumulated_trigger(catalog):
    error = error_at(catalog, "connector.py", 124)
    assert len(error.trigger.contributions) == 3
    texts = [c.text for c in error.trigger.contributions]
    assert texts[0] == "group {g_idx}: CrossAttentionSpec" and texts[2].startswith("PCP/DCP > 1")
    assert "pcp * dcp > 1" in error.trigger.condition and "CrossAttentionSpec" in error.trigger.condition
    assert any(c.path[0].endswith("MooncakeStoreConnector.__init__") and "enable_lookup" in c.condition
               for c in error.trigger.chains)
    assert {("cli_flag", "--prefill-context-parallel-size"), ("cli_flag", "--decode-context-parallel-size"),
            ("extra_config", "enable_lookup")} <= knob_set(error)


def test_hidden_states_trigger(catalog):
    error = error_at(catalog, "example_hidden_states_connector.py", 133)
    assert error.trigger.conjuncts == ("kv_cache_config is not None", "len(group_ids) != 1",
                                       "group_ids or len(groups) != 1")
    assert error.trigger.connectors == ("ExampleHiddenStatesConnector",)


def test_most_errors_have_a_chain_and_the_graph_read_everything(catalog):
    possible = [e for e in catalog.errors if e.trigger.reachable is not False]  # one that cannot fire has no chain
    assert sum(1 for e in possible if e.trigger.chains) / len(possible) >= 0.9
    assert catalog.summary.errors_with_chain == sum(1 for e in catalog.errors if e.trigger.chains)
    assert catalog.summary.graph_files == catalog.summary.files_read
    assert {"extract", "graph", "analysis"} <= set(catalog.summary.stage_seconds)


def test_message_flags_exist_at_this_commit(catalog):
    error = error_at(catalog, "lmcache_mp_connector.py", 78)
    flag = {k.name: k.detail for k in error.trigger.knobs if k.kind == "cli_flag"}
    assert flag["--disable-hybrid-kv-cache-manager"] == "named in the message"


def test_dispatch_beyond_plain_calls_reaches_its_errors(catalog):
    # a Thread subclass started at worker.py:1511 runs `run`, which reaches :558
    error = error_at(catalog, "store/worker.py", 558)
    assert error.trigger.connectors == ("MooncakeStoreConnector",)
    assert any(c.path[-3].endswith("KVTransferThread.run") for c in error.trigger.chains)
    # `self.worker` is a property: its getter raises at :114, and `.moriio_wrapper` is on its return type
    for line in (114, 629):
        error = error_at(catalog, "moriio/moriio_engine.py", line)
        assert error.trigger.connectors == ("MoRIIOConnector",) and error.trigger.chains, line
    steps = {(s.callee.rsplit(".", 1)[1], s.line) for c in error.trigger.chains for s in c.steps}
    assert ("_write_worker_loop", 123) in steps  # threading.Thread(target=self._write_worker_loop)


def test_every_way_into_a_function_gets_a_chain(catalog):
    error = error_at(catalog, "mooncake/mooncake_connector.py", 106)  # cannot fire: its ways are infeasible
    lines = [{s.line for s in c.steps} for c in error.trigger.chains + error.trigger.infeasible_chains]
    assert any(273 in ls for ls in lines) and any(1326 in ls for ls in lines)  # replicated or not


def test_settings_vllm_fills_itself_or_reads_in_helpers(catalog):
    # `engine_id` decides only where it is compared with the peer's (kv_connector/utils.py:481): its
    # `is not None` tests always pass, so they make it no knob, no fix and no clause of a summary
    peer = error_at(catalog, "kv_connector/utils.py", 481)
    others = [e for e in catalog.errors if e.id != peer.id]
    assert not any(k.name == "KVTransferConfig.engine_id" for e in others for k in e.trigger.knobs)
    assert not [e.id for e in others if any(f.setting == "engine_id" for f in e.explanation.fixes)]
    assert not [e.id for e in others if "`engine_id`" in e.explanation.summary]
    assert peer.explanation.kind == "configuration" and "`remote_engine_id` equals `engine_id`" in peer.explanation.summary
    assert peer.explanation.fixes[0].text.startswith("Give each instance its own `engine_id` in `--kv-transfer-config`")
    assert ("env", "VLLM_SSM_CONV_STATE_LAYOUT") in knob_set(error_at(catalog, "nixl/base_worker.py", 316))


def test_a_setting_that_plainly_decides_is_traced(catalog):
    """Issue 13's audit: pages that said no setting decides an error that a setting plainly decides."""
    spec = error_at(catalog, "v1/example_hidden_states_connector.py", 186)  # `self._vllm_config.speculative_config`
    assert spec.explanation.kind == "configuration"
    assert [(f.setting, f.value) for f in spec.explanation.fixes] == [("--speculative-config", '{"method": "extract_hidden_states"}')]
    short = error_at(catalog, "hf3fs/hf3fs_metadata_server.py", 132)  # out of pages, not a restart (that is :126)
    assert "restarted" not in short.explanation.summary and "more than the server has left" in short.explanation.summary
    assert "restarted" in error_at(catalog, "hf3fs/hf3fs_metadata_server.py", 125).explanation.summary


def test_pages_the_seed_2718_audit_found_wrong_say_what_holds(catalog):
    """The audit of this session (seed 2718) and the earlier ones: each page below said something false."""
    added = error_at(catalog, "offloading/scheduler.py", 308)  # Scheduler.add_request calls on_new_request
    assert added.explanation.when == "when a request is added to the scheduler"
    scheduler_only = error_at(catalog, "mooncake/mooncake_connector.py", 483)  # role=WORKER passed on that way
    assert not any(c.path[0].endswith("ensure_kv_transfer_initialized") for c in scheduler_only.trigger.chains)
    layers = error_at(catalog, "nixl/base_worker.py", 1825)  # "must match between prefill and decode"
    assert layers.explanation.kind == "configuration" and "other instance" in layers.explanation.summary
    assert "nixl_rocm" in error_at(catalog, "nixl/base_worker.py", 257).explanation.fixes[0].text
    assert "enforce_handshake_compat" in error_at(catalog, "nixl/base_worker.py", 693).explanation.summary
    assert error_at(catalog, "example_hidden_states_connector.py", 223).explanation.example is None

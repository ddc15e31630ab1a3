"""errscan on real vLLM 0.27.1, fetched with pip into the cache once (about 300 MB, seconds here)."""

import ast
import json
from pathlib import Path

import pytest

from conftest import run_cli
from errscan.profiles.vllm import VLLM
from errscan.scan import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

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
def catalog(release_0271):
    scope = Scope(VLLM.default_include)
    return scan(FolderSource(release_0271, VLLM), ScanOptions(repo=VLLM.repo, scope=scope))


def ast_sites(root: Path, scope: Scope):
    raises, asserts = set(), set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not scope.catalogues(rel):
            continue
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                raises.add((rel, node.lineno))
            elif isinstance(node, ast.Assert) and node.msg is not None:
                asserts.add((rel, node.lineno))
    return raises, asserts


def test_catalog_equals_what_ast_finds(catalog, release_0271):
    raises, asserts = ast_sites(release_0271, Scope(VLLM.default_include))
    assert {(e.path, e.line) for e in catalog.errors if e.kind == "raise"} == raises
    assert {(e.path, e.line) for e in catalog.errors if e.kind == "assert"} == asserts
    assert (len(raises), len(asserts)) == (150, 120)
    assert catalog.summary.parse_failures == ()
    assert catalog.summary.files_read > 2000 and catalog.summary.files_catalogued == 71


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
    assert len(index["errors"]) == 270


def test_release_pip_cannot_fetch_is_a_one_line_failure(tmp_path):
    done = run_cli("scan", "--release", "0.0.0.9999", "--out", str(tmp_path / "s"), "--cache-dir", str(tmp_path / "c"))
    assert done.returncode == 1 and done.stderr.startswith("errscan: pip could not fetch vllm==0.0.0.9999")
    assert done.stderr.count("\n") == 1

"""On real vLLM releases (fetched with pip into the user's cache on first run)."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

pytestmark = pytest.mark.integration

HIDDEN_STATES = "Could not uniquely identify"
MOONCAKE_STORE = "MooncakeStoreConnector does not support"


def errors_in(version, tmp_path):
    out = tmp_path / f"site-{version}"
    done = run_cli("scan", "--release", version, "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    return json.loads((out / "api" / "index.json").read_text())["errors"]


def test_diff_0240_to_0271(tmp_path):
    done = run_cli("diff", "vllm==0.24.0", "vllm==0.27.1", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    added = [e for e in result["added"] if e["message"].startswith(HIDDEN_STATES)]
    assert [e["path"].rsplit("/", 1)[-1] for e in added] == ["example_hidden_states_connector.py"]
    assert not any(MOONCAKE_STORE in e["message"] for e in result["added"] + result["removed"])
    # Same message and exception; 0.27.1's caller skips the check for capacity-only consumers
    # (kv_role, enable_lookup), so the knobs may differ, and the raise may have moved.
    for change in result["changed"]:
        if MOONCAKE_STORE in change["new"]["message"]:
            assert {f["field"] for f in change["changes"]} <= {"location", "knobs", "condition"}
    matched = len(result["changed"]) + result["unchanged"]
    old, new = errors_in("0.24.0", tmp_path), errors_in("0.27.1", tmp_path)
    assert len(result["added"]) + matched == len(new)
    assert len(result["removed"]) + matched == len(old)
    assert not any(e["message"].startswith(HIDDEN_STATES) for e in old)


def test_history_site_shows_when_the_hidden_states_error_appeared(tmp_path):
    out = tmp_path / "site"
    done = run_cli("scan", *[a for v in ("0.24.0", "0.25.1", "0.26.0", "0.27.1") for a in ("--release", v)],
                   "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    index = json.loads((out / "api" / "index.json").read_text())
    assert index["version"] == "0.27.1"
    (entry,) = [e for e in index["errors"] if e["message"].startswith(HIDDEN_STATES)]
    history = json.loads((out / "api" / "errors" / f"{entry['id']}.json").read_text())["history"]
    assert history["first_seen"] == "0.25.1"
    assert [s["present"] for s in history["releases"]] == [False, True, True, True]
    assert "First seen in 0.25.1" in (out / "errors" / entry["id"] / "index.html").read_text()
    assert sorted(p.name for p in (out / "changes").iterdir()) == ["0.24.0..0.25.1", "0.25.1..0.26.0", "0.26.0..0.27.1"]
    # 0.27.1 let a capacity-only consumer skip the Mooncake store's KV-cache checks: two new knobs.
    changes = (out / "changes" / "0.26.0..0.27.1" / "index.html").read_text()
    assert "<ins><code>config_field KVTransferConfig.kv_role</code></ins>" in changes
    assert "<ins><code>extra_config enable_lookup</code></ins>" in changes

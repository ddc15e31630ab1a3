"""What counts as a change of a matched pair, including the analysis' condition and knobs."""

from __future__ import annotations

import msgspec

from conftest import FIXTURES

from errscan.compare.changes import field_changes
from errscan.model import Knob, Trigger
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def site():
    catalog = scan(FolderSource(FIXTURES / "twins", VLLM), ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1))
    return catalog.errors[0]


def with_trigger(error, condition, knobs=()):
    return msgspec.structs.replace(error, trigger=Trigger(condition=condition, conjuncts=(), raw_condition=condition, knobs=knobs))


def test_the_analysed_condition_and_knobs_are_compared():
    error = site()
    old = with_trigger(error, "dst.shape[1] != count", (Knob("cli_flag", "--block-size"),))
    new = with_trigger(error, "dst.shape[1] > count", (Knob("cli_flag", "--block-size"), Knob("env", "VLLM_X")))
    assert [(c.field, c.old, c.new) for c in field_changes(old, new)] == [
        ("condition", "dst.shape[1] != count", "dst.shape[1] > count"),
        ("knobs", "cli_flag --block-size", "cli_flag --block-size, env VLLM_X"),
    ]


def test_a_pair_with_nothing_different_has_no_changes():
    error = site()
    assert field_changes(error, msgspec.structs.replace(error, url="elsewhere", comments=("other",))) == ()


def test_text_and_markdown_show_the_knobs_that_came_and_went():
    from errscan.compare.changes import diff_matched
    from errscan.compare.pairing import Match
    from errscan.compare.formats import format_diff

    error = site()
    old = with_trigger(error, "x", (Knob("cli_flag", "--block-size"), Knob("env", "VLLM_OLD")))
    new = with_trigger(error, "x", (Knob("cli_flag", "--block-size"), Knob("config_field", "KVTransferConfig.kv_role")))
    diff = diff_matched((old,), (new,), [Match(old, new, "id")], "1.0", "2.0")
    assert "knobs: + config_field KVTransferConfig.kv_role, - env VLLM_OLD\n" in format_diff(diff, "text")
    assert "knobs: + `config_field KVTransferConfig.kv_role`, - `env VLLM_OLD`\n" in format_diff(diff, "markdown")


def test_fail_on_changed_ignores_errors_that_only_moved_lines():
    from errscan.compare.changes import diff_matched, kinds_found
    from errscan.compare.pairing import Match

    error = site()
    moved = msgspec.structs.replace(error, line=error.line + 5, end_line=error.end_line + 5)
    reworded = msgspec.structs.replace(error, message=error.message + " now")
    assert kinds_found(diff_matched((error,), (moved,), [Match(error, moved, "id")], "1", "2")) == {"moved"}
    assert kinds_found(diff_matched((error,), (reworded,), [Match(error, reworded, "id")], "1", "2")) == {"changed"}

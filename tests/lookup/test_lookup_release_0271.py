"""Lookup on real vLLM 0.27.1: generated messages for its kv_transfer errors, and real ones."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from errscan.lookup import CatalogMatcher, lookup
from errscan.lookup.logs import LoggedError
from errscan.match import PIN_MIN_CHARS, compile_template, split_template
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

pytestmark = pytest.mark.integration
REAL = json.loads((FIXTURES / "lookup" / "real_messages.json").read_text())


@pytest.fixture(scope="module")
def catalog(release_0271: Path):
    source = FolderSource(release_0271, VLLM)
    return scan(source, ScanOptions(repo=VLLM.repo, scope=Scope(VLLM.default_include), jobs=1))


def plausible_value(expr: str, ordinal: int) -> str:
    """A value such an expression could print: numbers for sizes and counts, shapes, names."""
    name = expr.split("!")[0].split(":")[0].lower()
    if "shape" in name:
        return f"torch.Size([{ordinal + 2}, 16, 8, 128])"
    if name.startswith("type("):
        return "<class 'dict'>"
    if re.search(r"len\(|size|rank|num|count|idx|\bi\b|blocks|tokens|port|padding", name):
        return str(ordinal + 3)
    if expr.endswith("!r"):
        return f"'value_{ordinal}'"
    return f"Value{ordinal}_x"


def concrete(template: str, ordinal: int) -> str:
    return "".join(
        plausible_value(piece.text, ordinal + i) if piece.is_field else piece.text
        for i, piece in enumerate(split_template(template))
    )


def distinct_errors(catalog):
    """Errors whose message pattern no other site shares: a message cannot tell such twins apart
    (same literal text, only placeholder names differ), so for them no answer may be confident."""
    counts: dict[str, int] = {}
    for error in catalog.errors:
        pattern = compile_template(error.message).pattern
        counts[pattern] = counts.get(pattern, 0) + 1
    return [
        e
        for e in catalog.errors
        if counts[compile_template(e.message).pattern] == 1
        and compile_template(e.message).literal_chars >= PIN_MIN_CHARS
    ]


def test_generated_messages_come_back_top1(catalog):
    errors = distinct_errors(catalog)
    assert len(errors) >= 30
    matcher = CatalogMatcher.of_catalog(catalog)
    misses = []
    for ordinal, error in enumerate(errors):
        message = concrete(error.message, ordinal)
        best = matcher.find(LoggedError(error.exception.rsplit(".", 1)[-1], (message,), (), 1)).candidates[0]
        if best.error["id"] != error.id or not best.confident:
            misses.append((error.path, error.line, message, best.error["path"], best.error["line"]))
    assert misses == []


def test_twins_come_back_together_and_unsure(catalog):
    twins = [e for e in catalog.errors if e.message.endswith("is not divisible by remote tensor parallel size {remote_tp_size}.")]
    assert len(twins) == 2
    (finding,) = lookup("AssertionError: Local tensor parallel size 4 is not divisible by remote tensor parallel size 3.", catalog)
    assert {c.error["id"] for c in finding.candidates[:2]} == {e.id for e in twins}
    assert not any(c.confident for c in finding.candidates)


def test_generated_messages_bind_the_filled_values(catalog):
    error = next(e for e in catalog.errors if e.message == "Rank {rank} not initialized")
    (finding,) = lookup("ValueError: Rank 7 not initialized", catalog)
    assert finding.candidates[0].error["message"] == error.message
    assert finding.candidates[0].bindings == {"rank": "7"}


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.xfail(reason=c["known_miss"], strict=True)) if "known_miss" in c else c
     for c in REAL["in_scope"]],
    ids=lambda c: c["source"][:60],
)
def test_real_messages_find_their_site_first(catalog, case):
    findings = lookup(case["text"], catalog)
    assert findings, "nothing found"
    best = findings[0].candidates[0]
    assert (best.error["path"], best.error["line"]) == (case["path"], case["line"])


def test_real_messages_reach_95_percent_top1(catalog):
    hits = 0
    for case in REAL["in_scope"]:
        findings = lookup(case["text"], catalog)
        best = findings[0].candidates[0] if findings else None
        hits += best is not None and (best.error["path"], best.error["line"]) == (case["path"], case["line"])
    assert hits / len(REAL["in_scope"]) >= 0.95


@pytest.mark.parametrize("case", REAL["out_of_scope"], ids=lambda c: c["source"][:60])
def test_messages_from_outside_the_scope_are_never_confident(catalog, case):
    for finding in lookup(case["text"], catalog):
        assert not any(candidate.confident for candidate in finding.candidates)


def test_frame_pins_an_assertion_without_message(catalog):
    site = next(e for e in catalog.errors if e.message.startswith("Expected block_ids to be a tuple of lists"))
    text = (
        "Traceback (most recent call last):\n"
        f'  File "/venv/lib/python3.12/site-packages/{site.path}", line {site.line}, in {site.function.rsplit(".", 1)[-1]}\n'
        "AssertionError\n"
    )
    (finding,) = lookup(text, catalog)
    best = finding.candidates[0]
    assert (best.error["id"], best.rule, best.confident) == (site.id, "frame", True)


PREFIXES = ("(EngineCore_DP0 pid=4121) ", "(APIServer pid=1) ", "")


def log_record(error, ordinal: int) -> str:
    """The lines vLLM's formatter writes for a log site: level, time, `[file.py:line]` on every
    line of the message, behind a process tag; `logger.exception` adds the traceback."""
    level = {"exception": "ERROR"}.get(error.level, error.level.upper())
    prefix = f"{PREFIXES[ordinal % 3]}{level} 11-02 10:01:{ordinal % 60:02d} [{error.path.rsplit('/', 1)[-1]}:{error.line}] "
    lines = [prefix + line for line in concrete(error.message, ordinal).split("\n")]
    if error.level == "exception":
        lines += [prefix + "Traceback (most recent call last):", prefix + '  File "x.py", line 3, in f',
                  prefix + "RuntimeError: boom"]
    return "\n".join(lines)


def test_log_lines_find_their_log_site_first(catalog):
    logged = [e for e in catalog.errors if e.kind == "log"]
    assert len(logged) == 146
    misses = []
    for ordinal, error in enumerate(logged):
        text = log_record(error, ordinal)
        best = next(f for f in lookup(text, catalog) if f.logged.level).candidates[0]
        if best.error["id"] != error.id or not best.confident:
            misses.append((error.path, error.line, text))
    assert misses == []


def test_log_messages_without_their_prefix_find_the_log_site(catalog):
    """Pasted without vLLM's prefix, a log message is matched by its text alone, as an exception's is."""
    distinct = [e for e in distinct_errors(catalog) if e.kind == "log"]
    assert len(distinct) >= 30
    hits = sum(lookup(concrete(e.message, i), catalog)[0].candidates[0].error["id"] == e.id for i, e in enumerate(distinct))
    assert hits == len(distinct)


LOG_LINES = json.loads((FIXTURES / "lookup" / "log_lines_0271.json").read_text())["cases"]


def test_kept_log_lines_find_their_log_site_first(catalog):
    """Real log lines from issues and generated ones, kept with their source: at least 30 log sites."""
    assert len({(c["path"], c["line"]) for c in LOG_LINES}) >= 30
    misses = []
    for case in LOG_LINES:
        finding = next(f for f in lookup(case["text"], catalog) if f.logged.level)
        best = finding.candidates[0]
        if (best.error["path"], best.error["line"]) != (case["path"], case["line"]) or best.error["kind"] != "log":
            misses.append((case["text"][:80], best.error["path"], best.error["line"]))
    assert misses == []

"""`errscan diff` between two commits of a fixture repo: one module per kind of change."""

from __future__ import annotations

import io
import json
import re
import subprocess

import jsonschema
import pytest

from conftest import FIXTURES, build_git_history, run_cli

from errscan.cli import wants_color
from errscan.compare.changes import diff_catalogs
from errscan.compare.formats import format_diff
from errscan.errors import EXIT_DIFFERENCES, EXIT_USAGE
from errscan.model import SCHEMA_VERSION, CatalogDiff
from errscan.profiles.vllm import VLLM
from errscan.request import Revision
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions, scan_each
from errscan.scope import Scope
from errscan.sources.git import GitSource

SARIF_SCHEMA = FIXTURES / "sarif" / "sarif-schema-2.1.0.json"  # see its README

# What 1.0 -> 2.0 must report, ids aside (they are hashes; how each pair was matched is checked).
EXPECTED_REMOVED = [
    ("pkg/deleted_function.py", 7, "dropped", "TypeError", "dropped() needs a value"),
    ("pkg/identical_twins.py", 3, "configure", "ValueError", "unsupported setting"),
]
EXPECTED_CHANGED = [
    ("pkg/changed_condition.py", 2, 2, "id", [("condition", "count <= 0", "count < 1")]),
    # The surviving twin no longer sits behind the deleted one's `if`, so its path condition changed.
    ("pkg/identical_twins.py", 5, 3, "twin",
     [("condition", "mode != 'legacy' and size > 3", "size > 3"),
      ("location", "pkg/identical_twins.py:5 in configure", "pkg/identical_twins.py:3 in configure")]),
    ("pkg/moved_raise.py", 3, 8, "id",
     [("location", "pkg/moved_raise.py:3 in check_size", "pkg/moved_raise.py:8 in check_size")]),
    ("pkg/new_name.py", 4, 4, "renamed-path",
     [("location", "pkg/old_name.py:4 in Loader.load", "pkg/new_name.py:4 in Loader.load")]),
    ("pkg/reworded_message.py", 3, 3, "path",
     [("message", "Could not find the cache group among {len(groups)} groups",
       "Could not uniquely identify the cache group among {len(groups)} groups")]),
]
EXPECTED_WORDS = [
    {"op": "equal", "text": "Could not"},
    {"op": "delete", "text": "find"},
    {"op": "insert", "text": "uniquely identify"},
    {"op": "equal", "text": "the cache group among {len(groups)} groups"},
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return build_git_history(tmp_path_factory.mktemp("history"), "v1", "v2")


def diff(repo, tmp_path, *extra):
    return run_cli("diff", "1.0", "2.0", "--git", str(repo), "--include", "pkg/**",
                   "--cache-dir", str(tmp_path / "cache"), *extra)


def test_json_diff_is_exactly_the_expected_one(repo, tmp_path):
    done = diff(repo, tmp_path, "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["old"], result["new"]) == ("1.0", "2.0")
    assert result["added"] == []
    assert [(e["path"], e["line"], e["function"], e["exception"], e["message"]) for e in result["removed"]] == EXPECTED_REMOVED
    assert [
        (c["new"]["path"], c["old"]["line"], c["new"]["line"], c["matched_by"],
         [(f["field"], f["old"], f["new"]) for f in c["changes"]])
        for c in result["changed"]
    ] == EXPECTED_CHANGED
    reworded = result["changed"][-1]
    assert reworded["message_diff"] == EXPECTED_WORDS
    assert all(not c["message_diff"] for c in result["changed"][:-1])
    assert result["unchanged"] == 1
    for entry in result["removed"] + [c[side] for c in result["changed"] for side in ("old", "new")]:
        assert set(entry) == {"id", "path", "line", "function", "exception", "message", "level"}
        assert entry["level"] is None  # raises, not log sites


def test_ids_survive_a_move_and_change_with_a_rename(repo, tmp_path):
    changed = json.loads(diff(repo, tmp_path, "--format", "json").stdout)["changed"]
    by_path = {c["new"]["path"]: c for c in changed}
    assert by_path["pkg/moved_raise.py"]["old"]["id"] == by_path["pkg/moved_raise.py"]["new"]["id"]
    assert by_path["pkg/new_name.py"]["old"]["id"] != by_path["pkg/new_name.py"]["new"]["id"]


def test_text_is_plain_off_a_terminal(repo, tmp_path):
    done = diff(repo, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\033[" not in done.stdout
    assert done.stdout.startswith(
        "errscan diff 1.0 -> 2.0: 0 added, 2 removed, 5 changed (1 only moved lines), 1 unchanged\n"
    )
    assert "message: Could not [-find-] {+uniquely identify+} the cache group" in done.stdout
    assert "condition: count <= 0 -> count < 1" in done.stdout
    assert "  pkg/moved_raise.py:3 -> 8  ValueError: size must not be negative" in done.stdout


def test_markdown_lists_each_kind(repo, tmp_path):
    done = diff(repo, tmp_path, "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert "#### Removed" in done.stdout and "#### Changed" in done.stdout
    assert "#### Added" not in done.stdout
    assert "message: Could not ~~find~~ **uniquely identify** the cache group" in done.stdout
    commit = subprocess.run(["git", "rev-parse", "1.0"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    url = f"https://github.com/vllm-project/vllm/blob/{commit}/pkg/deleted_function.py#L7"
    assert f"| `TypeError` | dropped() needs a value | [`pkg/deleted_function.py:7`]({url}) in `dropped` |" in done.stdout
    assert "Left out" not in done.stdout


def test_markdown_stops_before_max_chars_with_a_note_of_what_it_left_out(repo, tmp_path):
    whole = diff(repo, tmp_path, "--format", "markdown").stdout
    for limit in (len(whole) - 1, 600):
        done = diff(repo, tmp_path, "--format", "markdown", "--max-chars", str(limit))
        assert done.returncode == 0, done.stderr
        assert len(done.stdout) <= limit
        kept, _, note = done.stdout.rstrip("\n").rpartition("\n")
        left_out = dict(reversed(pair.split(" ")) for pair in re.findall(r"\d+ [a-z]+", note.partition(": ")[2]))
        assert note.startswith(f"> Left out to stay under {limit:,} characters: ") and left_out
        assert kept.count("\n- ") + kept.count("\n| `") + sum(map(int, left_out.values())) == 2 + 5
    assert done.stdout.startswith(whole.partition("#### ")[0])  # the headline is always there
    assert diff(repo, tmp_path, "--format", "markdown", "--max-chars", "0").stdout == whole


def test_github_annotates_the_lines_and_makes_the_gated_kinds_errors(repo, tmp_path):
    done = diff(repo, tmp_path, "--format", "github", "--fail-on", "removed")
    assert done.returncode == EXIT_DIFFERENCES
    lines = done.stdout.splitlines()
    assert len(lines) == 2 + 4  # moves alone are left out unless gated
    assert lines[0] == "::error title=errscan%3A TypeError removed::No longer raised in 2.0: TypeError: dropped() needs a value (1.0: pkg/deleted_function.py:7 in dropped)"
    assert ("::notice file=pkg/changed_condition.py,line=2,title=errscan%3A AssertionError changed::Changed in 2.0: "
            "AssertionError: at least one worker is needed; condition: count <= 0 -> count < 1") in lines
    moved = diff(repo, tmp_path, "--format", "github", "--fail-on", "moved").stdout
    assert "::error file=pkg/moved_raise.py,line=8,title=errscan%3A ValueError moved::" in moved


def test_github_escapes_what_would_end_a_command():
    from errscan.compare.annotations import github_commands
    from errscan.model import ErrorRef

    ref = ErrorRef("0123456789abcdef", "pkg/a,b.py", 3, "f", "ValueError", "100%\nnext line::x")
    text = github_commands(CatalogDiff("1.0", "2\r\n0", (ref,), (), (), 0), gates=())
    assert text == "::notice file=pkg/a%2Cb.py,line=3,title=errscan%3A new ValueError::New in 2%0D%0A0: ValueError: 100%25 next line::x (in f)\n"


def test_sarif_is_valid_against_the_official_schema(repo, tmp_path):
    done = diff(repo, tmp_path, "--format", "sarif", "--fail-on", "added,changed")
    assert done.returncode == EXIT_DIFFERENCES
    log = json.loads(done.stdout)
    schema = jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text()), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    schema.validate(log)  # formats too (uri, date-time) where jsonschema has their checkers installed
    (run,) = log["runs"]
    results = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["level"]) for r in run["results"]}
    assert ("removed", "pkg/deleted_function.py", "note") in results
    assert ("changed", "pkg/reworded_message.py", "error") in results
    assert len(run["results"]) == 6 and all(len(r["partialFingerprints"]["errscanErrorId/v1"]) == 16 for r in run["results"])


def test_the_schema_check_sees_a_broken_log(repo, tmp_path):
    log = json.loads(diff(repo, tmp_path, "--format", "sarif").stdout)
    del log["runs"][0]["tool"]["driver"]["name"]
    with pytest.raises(jsonschema.ValidationError, match="'name' is a required property"):
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)


@pytest.mark.parametrize(
    "kinds, status", [("added", 0), ("removed", EXIT_DIFFERENCES), ("added,changed", EXIT_DIFFERENCES)]
)
def test_fail_on_sets_the_status_only_for_kinds_found(repo, tmp_path, kinds, status):
    assert diff(repo, tmp_path, "--fail-on", kinds).returncode == status


@pytest.mark.parametrize("kinds", ["renamed", "", "added,"])
def test_fail_on_rejects_unknown_or_empty_kinds(repo, tmp_path, kinds):
    done = diff(repo, tmp_path, "--fail-on", kinds)
    assert done.returncode == EXIT_USAGE
    assert done.stderr.startswith("errscan: ") and "unknown kind" in done.stderr


def test_unknown_revision_is_one_usage_line(repo, tmp_path):
    done = run_cli("diff", "1.0", "nope", "--git", str(repo), "--cache-dir", str(tmp_path))
    assert done.returncode == EXIT_USAGE
    assert done.stderr.count("\n") == 1 and "unknown commit 'nope'" in done.stderr


def test_a_side_that_is_nothing_known_is_a_usage_error(tmp_path):
    done = run_cli("diff", str(tmp_path / "missing"), "vllm==0.27.1", "--cache-dir", str(tmp_path))
    assert done.returncode == EXIT_USAGE
    assert "not a site folder, an api/index.json, vllm==X.Y.Z" in done.stderr


def test_sites_diff_like_the_revisions_they_were_built_from(repo, tmp_path):
    sites = []
    for tag in ("1.0", "2.0"):
        out = tmp_path / f"site-{tag}"
        done = run_cli("scan", str(repo), "--commit", tag, "--include", "pkg/**", "--out", str(out),
                       "--cache-dir", str(tmp_path / "cache"), "--quiet")
        assert done.returncode == 0, done.stderr
        sites.append(out)
    from_git = json.loads(diff(repo, tmp_path, "--format", "json").stdout)
    from_sites = run_cli("diff", str(sites[0]), str(sites[1] / "api" / "index.json"), "--format", "json")
    assert from_sites.returncode == 0, from_sites.stderr
    assert json.loads(from_sites.stdout) == from_git
    assert from_sites.stderr == ""


def sites_of(repo, tmp_path, *options: tuple[str, ...]) -> list:
    """One site of the repository at 2.0 for each set of scan options."""
    sites = []
    for extra in options:
        out = tmp_path / f"site-{len(sites)}"
        done = run_cli("scan", str(repo), "--commit", "2.0", *extra, "--out", str(out), "--no-cache", "-q")
        assert done.returncode == 0, done.stderr
        sites.append(out)
    return sites


def test_sites_of_different_scopes_get_a_note_and_a_newer_schema_is_refused(repo, tmp_path):
    sites = sites_of(repo, tmp_path, ("--include", "pkg/**"), ("--include", "pkg/moved_raise.py"))
    done = run_cli("diff", str(sites[0]), str(sites[1]))
    assert done.returncode == 0
    assert done.stderr == (
        "note: the sides catalogue different files (--include pkg/** against --include pkg/moved_raise.py): "
        "errors outside one side's scope show as added or removed\n"
    )
    index = sites[1] / "api" / "index.json"
    index.write_text(index.read_text().replace(f"\"schema_version\": {SCHEMA_VERSION}", "\"schema_version\": 999", 1))
    done = run_cli("diff", str(sites[0]), str(sites[1]))
    assert done.returncode == EXIT_USAGE
    assert done.stderr == f"errscan: cannot read the site at {sites[1]}: its api/ has schema version 999, this errscan reads {SCHEMA_VERSION}; see 'errscan diff --help'\n"


def test_text_is_colored_for_a_terminal(repo, tmp_path):
    """Off a terminal the CLI prints plain text, so the colors are checked through the library."""
    options = ScanOptions(repo="o/r", scope=Scope(("pkg/**",)), jobs=1)
    (_, old), (_, new) = [
        scan_each([Revision(tag, lambda tag=tag: GitSource(repo, tag, VLLM))], options, Progress(quiet=True))[0]
        for tag in ("1.0", "2.0")
    ]
    text = format_diff(diff_catalogs(old, new, "1.0", "2.0"), "text", color=True)
    assert "\033[31m[-find-]\033[0m \033[32m{+uniquely identify+}\033[0m" in text


COLORED = "\033[31m[-find-]\033[0m"


@pytest.mark.parametrize("env, args, colored", [
    ({"NO_COLOR": None, "FORCE_COLOR": None}, [], False),  # off a terminal
    ({"NO_COLOR": None, "FORCE_COLOR": "1"}, [], True),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, [], False),  # no-color.org: the user's "no" wins
    ({"NO_COLOR": "1", "FORCE_COLOR": None}, ["--color", "always"], True),  # the option over both
    ({"NO_COLOR": None, "FORCE_COLOR": "1"}, ["--color", "never"], False),
])
def test_color_follows_no_color_force_color_and_the_option(repo, tmp_path, env, args, colored):
    done = run_cli("diff", "1.0", "2.0", "--git", str(repo), "--include", "pkg/**",
                   "--cache-dir", str(tmp_path / "cache"), *args, env=env)
    assert done.returncode == 0, done.stderr
    assert (COLORED in done.stdout) is colored and ("\033[" in done.stdout) is colored


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("env, colored", [
    ({}, True), ({"NO_COLOR": "1"}, False), ({"NO_COLOR": ""}, True), ({"TERM": "dumb"}, False),
])
def test_auto_colors_a_terminal_unless_no_color_or_a_dumb_one(monkeypatch, env, colored):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert wants_color("auto", Terminal()) is colored


def test_sites_of_different_repositories_get_a_note(repo, tmp_path):
    sites = sites_of(repo, tmp_path, *(("--include", "pkg/**", "--repo", name) for name in ("vllm-project/vllm", "someone/fork")))
    done = run_cli("diff", str(sites[0]), str(sites[1]))
    assert done.returncode == 0
    assert done.stderr == (
        "note: the sides are of different repositories (vllm-project/vllm against someone/fork): "
        "their code is compared as if the second were a later version of the first\n"
    )
    assert "0 added, 0 removed, 0 changed" in done.stdout  # the same code: nothing else to say
    same = run_cli("diff", str(sites[0]), str(sites[0]))
    assert same.returncode == 0 and same.stderr == ""

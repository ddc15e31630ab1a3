"""`errscan lookup` as a user runs it: against a built site, exit statuses, text and JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import run_cli


@pytest.fixture(scope="module")
def site(patterns_site):
    return patterns_site


def a_site_error(catalog):
    return next(e for e in catalog.errors if e.kind == "raise" and e.message and "{" not in e.message and len(e.message) > 15)


def test_match_prints_site_url_and_page(site):
    root, catalog = site
    error = a_site_error(catalog)
    result = run_cli("lookup", "--site", str(root), f"{error.exception}: {error.message}")
    assert result.returncode == 0, result.stderr
    assert f"{error.path}:{error.line}" in result.stdout
    assert error.url in result.stdout
    assert f"{root}/errors/{error.id}/index.html" in result.stdout


def test_json_lists_best_first_with_the_documented_fields(site):
    root, catalog = site
    error = a_site_error(catalog)
    result = run_cli("lookup", "--site", str(root), "--format", "json", f"{error.exception}: {error.message}")
    records = json.loads(result.stdout)
    assert records[0]["id"] == error.id and records[0]["confident"] is True
    assert {"id", "score", "confident", "path", "line", "exception", "message", "bindings", "url"} <= set(records[0])
    assert [r["rank"] for r in records] == list(range(1, len(records) + 1))


def test_reads_standard_input(site):
    root, catalog = site
    error = a_site_error(catalog)
    result = subprocess.run(
        [sys.executable, "-m", "errscan", "lookup", "--site", str(root), "-"],
        input=f"(Worker rank=0) ERROR 01-01 00:00:00 [x.py:1] {error.exception}: {error.message}\n",
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and error.url in result.stdout


def test_nothing_matched_exits_1_with_one_line(site):
    result = run_cli("lookup", "--site", str(site[0]), "OSError: disk quota exceeded on /scratch")
    assert result.returncode == 1
    assert result.stderr.startswith("errscan: nothing in the input matches") and result.stderr.count("\n") == 1


def test_nothing_matched_in_json_is_an_empty_list(site):
    result = run_cli("lookup", "--site", str(site[0]), "--format", "json", "OSError: disk quota exceeded on /scratch")
    assert (result.returncode, result.stdout) == (1, "[]\n")


def test_terminal_escapes_in_the_input_are_not_echoed(site):
    root, error = site[0], a_site_error(site[1])
    pasted = f"{error.exception}: \x1b]0;PWNED\x07{error.message}\x1b[0m\x1b(B"
    result = run_cli("lookup", "--site", str(root), pasted)
    assert result.returncode == 0 and "\x1b" not in result.stdout and "PWNED" not in result.stdout


def test_without_a_catalog_option_the_site_in_the_current_folder_is_read(site, tmp_path):
    import shutil

    shutil.copytree(site[0], tmp_path / "site")
    error = a_site_error(site[1])
    result = run_cli("lookup", f"{error.exception}: {error.message}", cwd=tmp_path)
    assert result.returncode == 0 and error.url in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["lookup", "ValueError: x"],  # no catalog, and no ./site
        ["lookup", "--site", "/nonexistent/site", "ValueError: x"],
        ["lookup", "--site", "/tmp", "--release", "0.27.1", "ValueError: x"],
        ["lookup", "--site", "/tmp", "   "],
        ["lookup", "--site", "/tmp", "--format", "xml", "ValueError: x"],
    ],
)
def test_usage_errors_exit_2(args, tmp_path):
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("errscan: ") and "Traceback" not in result.stderr


def _outside_id(root) -> None:
    index = root / "api" / "matcher" / "index.json"
    document = json.loads(index.read_text())
    document["catch_alls"][0][1] = "../../../outside"
    index.write_text(json.dumps(document))


def _each_keys_file(root, change) -> None:
    for path in (root / "api" / "matcher" / "keys").glob("*.json"):
        path.write_text(change(path.read_text()))


@pytest.mark.parametrize(
    "damage",
    [
        _outside_id,
        lambda root: (root / "api" / "matcher" / "index.json").write_text("[" * 100_000 + "]" * 100_000),
        lambda root: (root / "api" / "matcher" / "index.json").write_text(
            (root / "api" / "matcher" / "index.json").read_text().replace('"buckets":', '"buckets":"7","x":', 1)
        ),
        lambda root: _each_keys_file(root, lambda text: text.replace('"keyed":[', '"keyed":[[1],', 1)),
        lambda root: _each_keys_file(root, lambda text: text.replace('"words":{', '"words":{"~":[1,2,3],', 1)),
    ],
    ids=["an id leading outside", "deeply nested", "mistyped", "a short keyed template", "a long posting"],
)
def test_a_damaged_site_is_one_line_and_exit_1(site, tmp_path, damage):
    import shutil

    root = tmp_path / "site"
    shutil.copytree(site[0], root)
    (tmp_path / "outside.json").write_text("{}")
    damage(root)
    result = run_cli("lookup", "--site", str(root), "ValueError: x")
    assert result.returncode == 1
    assert result.stderr.startswith(f"errscan: cannot read the site at {root}: ") and result.stderr.count("\n") == 1


def test_a_site_of_another_schema_version_is_a_usage_error(site, tmp_path):
    import shutil

    root = tmp_path / "site"
    shutil.copytree(site[0], root)
    index = root / "api" / "matcher" / "index.json"
    index.write_text(index.read_text().replace('"schema_version":', '"schema_version":1,"was":', 1))
    result = run_cli("lookup", "--site", str(root), "ValueError: x")
    assert result.returncode == 2
    assert result.stderr.startswith(f"errscan: cannot read the site at {root}: its api/ has schema version 1") and result.stderr.count("\n") == 1


def test_catch_all_templates_are_one_last_line_in_text_and_json(site):
    from errscan.match import compile_template

    root, catalog = site
    error = a_site_error(catalog)
    catch_alls = {e.id for e in catalog.errors if e.message.strip() and not compile_template(e.message).literal_chars}
    assert len(catch_alls) >= 2  # `raise ValueError(msg)` and the like in the fixture
    lines = run_cli("lookup", "--site", str(root), f"{error.exception}: {error.message}").stdout.rstrip("\n").splitlines()
    assert lines[-1].startswith(f"  or any of {len(catch_alls)} catch-all errors (message is a value alone")
    assert sum("catch-all" in line for line in lines) == 1
    records = json.loads(run_cli("lookup", "--site", str(root), "--format", "json", f"{error.exception}: {error.message}").stdout)
    assert records[0]["id"] == error.id
    assert records[-1]["rule"] == "catch-all" and records[-1]["count"] == len(catch_alls) and set(records[-1]["ids"]) == catch_alls
    assert not catch_alls & {r.get("id") for r in records[:-1]}

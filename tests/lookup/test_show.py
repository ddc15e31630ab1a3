"""`errscan show ID`: one error of a built site, as text, JSON or markdown (like `ruff rule F401`)."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import build_git_history, run_cli


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A site over two revisions, so that it holds an earlier id (an alias) of a renamed file's error."""
    root = tmp_path_factory.mktemp("show")
    repo = build_git_history(root, "v1", "v2")
    out = root / "site"
    done = run_cli("scan", str(repo), "--commit", "1.0", "--commit", "2.0", "--include", "pkg/**",
                   "--out", str(out), "--cache-dir", str(root / "cache"), "-q")
    assert done.returncode == 0, done.stderr
    return out


def record(site, path):
    index = json.loads((site / "api" / "index.json").read_text())
    (entry,) = [e for e in index["errors"] if e["path"] == path]
    return json.loads((site / "api" / "errors" / f"{entry['id']}.json").read_text())


def test_text_names_the_error_its_pinned_source_and_marks_the_raise(site):
    error = record(site, "pkg/reworded_message.py")
    done = run_cli("show", error["id"], "--site", str(site))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{error['exception']}: {error['message']}"
    assert f"  source     {error['url']}" in lines and f"  page       {site}/errors/{error['id']}/index.html" in lines
    assert f"  where      pkg/reworded_message.py:{error['line']} in {error['function']} (version 2.0, commit {error['commit'][:12]})" in lines
    (marked,) = [line for line in lines if line.startswith(">")]
    assert marked.split("|", 1)[1].strip().startswith("raise ")


def test_json_is_the_error_document(site):
    error = record(site, "pkg/reworded_message.py")
    done = run_cli("show", error["id"].upper(), "--site", str(site), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == error


def test_markdown_links_the_pinned_line_and_quotes_the_source(site):
    error = record(site, "pkg/reworded_message.py")
    done = run_cli("show", error["id"], "--site", str(site), "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert f"[`pkg/reworded_message.py:{error['line']}`]({error['url']})" in done.stdout
    assert "```python\n" in done.stdout and done.stdout.endswith("```\n")


def test_an_earlier_id_shows_the_error_it_became(site):
    error = record(site, "pkg/new_name.py")
    (old_id,) = error["history"]["aliases"]
    done = run_cli("show", old_id, "--site", str(site))
    assert done.returncode == 0, done.stderr
    assert f"  id         {error['id']} (raise)" in done.stdout.splitlines()


def test_the_site_in_the_current_folder_is_read_by_default(site, tmp_path):
    shutil.copytree(site, tmp_path / "site")
    error = record(site, "pkg/reworded_message.py")
    done = run_cli("show", error["id"], cwd=tmp_path)
    assert done.returncode == 0 and f"  page       site/errors/{error['id']}/index.html" in done.stdout.splitlines()
    elsewhere = run_cli("show", error["id"], cwd=tmp_path / "site")
    assert elsewhere.returncode == 2 and "--site DIR" in elsewhere.stderr


def test_an_unknown_id_fails_with_a_hint(site):
    done = run_cli("show", "0123456789abcdef", "--site", str(site))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"errscan: no error 0123456789abcdef in the site at {site}; find one by its message: errscan lookup 'ValueError: ...'\n"


@pytest.mark.parametrize("bad", ["12", "../../api/index", "0123456789abcdeg", "0123456789abcdef0"])
def test_a_malformed_id_is_a_usage_error(site, bad):
    done = run_cli("show", bad, "--site", str(site))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"errscan: not an error id: {bad!r} (16 hex digits, as in errors/<id>/ and api/errors/<id>.json); see 'errscan show --help'\n"


def test_an_alias_that_names_no_id_is_refused_not_followed(site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    alias = copy / "api" / "errors" / "0123456789abcdef.json"
    alias.write_text(json.dumps({"schema_version": 1, "id": "0123456789abcdef", "alias_of": "../index"}))
    done = run_cli("show", "0123456789abcdef", "--site", str(copy))
    assert done.returncode == 1 and "alias_of is not an error id: '../index'" in done.stderr

"""A site over several git revisions: history per error, retired errors, aliases, changes pages."""

from __future__ import annotations

import json

import pytest

from conftest import build_git_history, run_cli
from errscan.model import SCHEMA_VERSION


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("history-site")
    repo = build_git_history(root, "v1", "v2", "v3")
    out = root / "site"
    done = run_cli("scan", str(repo), "--commit", "1.0", "--commit", "2.0", "--commit", "3.0",
                   "--include", "pkg/**", "--out", str(out), "--cache-dir", str(root / "cache"))
    assert done.returncode == 0, done.stderr
    return out


def index(site):
    return json.loads((site / "api" / "index.json").read_text())


def error_json(site, error_id):
    return json.loads((site / "api" / "errors" / f"{error_id}.json").read_text())


def history_of(site, path):
    (entry,) = [e for e in index(site)["errors"] if e["path"] == path]
    return error_json(site, entry["id"])["history"]


def test_latest_release_is_the_main_content(site):
    data = index(site)
    assert [r["label"] for r in data["releases"]] == ["1.0", "2.0", "3.0"]
    assert data["version"] == "3.0"
    assert sorted(e["path"] for e in data["errors"]) == [
        "pkg/added_later.py", "pkg/changed_condition.py", "pkg/identical_twins.py", "pkg/moved_raise.py",
        "pkg/new_name.py", "pkg/reworded_message.py", "pkg/unchanged.py",
    ]


@pytest.mark.parametrize(
    "path, first_seen, last_changed",
    [
        ("pkg/added_later.py", "3.0", None),
        ("pkg/unchanged.py", "1.0", None),
        ("pkg/moved_raise.py", "1.0", None),  # a move of lines alone is no change
        ("pkg/reworded_message.py", "1.0", "2.0"),
        ("pkg/changed_condition.py", "1.0", "2.0"),
        ("pkg/new_name.py", "1.0", "2.0"),
    ],
)
def test_first_seen_and_last_changed(site, path, first_seen, last_changed):
    history = history_of(site, path)
    assert (history["first_seen"], history["last_changed"], history["removed_since"]) == (
        first_seen, last_changed, None
    )


def test_each_release_says_present_or_not_with_its_line_and_message(site):
    states = history_of(site, "pkg/reworded_message.py")["releases"]
    assert [(s["release"], s["present"], s["line"]) for s in states] == [("1.0", True, 3), ("2.0", True, 3), ("3.0", True, 3)]
    assert states[0]["message"].startswith("Could not find") and states[1]["message"].startswith("Could not uniquely")
    assert all(len(s["commit"]) == 40 for s in states)
    added = history_of(site, "pkg/added_later.py")["releases"]
    assert [s["present"] for s in added] == [False, False, True]
    assert added[0] == {"release": "1.0", "present": False, "commit": None, "id": None, "path": None, "line": None, "message": None}


def test_errors_no_longer_raised_keep_a_marked_page(site):
    retired = {e["message"]: e for e in index(site)["no_longer_raised"]}
    # The deleted twin is not listed: its id (ordinal 0) now belongs to the surviving twin's page.
    assert sorted(retired) == ["dropped() needs a value"]
    dropped = retired["dropped() needs a value"]
    assert dropped["removed_since"] == "2.0"
    assert error_json(site, dropped["id"])["history"]["removed_since"] == "2.0"
    page = (site / "errors" / dropped["id"] / "index.html").read_text()
    assert "No longer raised since 2.0." in page


def test_an_error_no_longer_raised_is_pinned_to_the_last_release_raising_it(site):
    (dropped,) = index(site)["no_longer_raised"]
    record = error_json(site, dropped["id"])
    last = [s for s in record["history"]["releases"] if s["present"]][-1]
    assert (record["commit"], record["version"]) == (last["commit"], "1.0") != (index(site)["commit"], "3.0")
    page = (site / "errors" / dropped["id"] / "index.html").read_text()
    assert f"pinned to {last['commit'][:10]}" in page and f"/blob/{last['commit']}/" in record["url"]
    assert f"/tree/{last['commit']}" in page and f"/tree/{index(site)['commit']}\"" not in page


def test_a_changed_id_leads_to_the_new_page(site):
    renamed = history_of(site, "pkg/new_name.py")
    (old_id,) = renamed["aliases"]
    (new_id,) = {s["id"] for s in renamed["releases"] if s["present"]} - {old_id}
    assert index(site)["aliases"][old_id] == new_id
    assert error_json(site, old_id) == {"schema_version": SCHEMA_VERSION, "id": old_id, "alias_of": new_id}
    assert f'url=../{new_id}/index.html' in (site / "errors" / old_id / "index.html").read_text()


def test_every_id_ever_seen_has_a_page(site):
    data = index(site)
    ids = {s["id"] for e in data["errors"] + data["no_longer_raised"] for s in error_json(site, e["id"])["history"]["releases"] if s["present"]}
    assert all((site / "errors" / i / "index.html").is_file() for i in ids)


def test_a_changes_page_per_consecutive_pair(site):
    assert sorted(p.name for p in (site / "changes").iterdir()) == ["1.0..2.0", "2.0..3.0"]
    later = json.loads((site / "api" / "changes" / "2.0..3.0.json").read_text())
    assert [e["message"] for e in later["added"]] == ["no host to connect to"]
    assert (later["removed"], later["changed"], later["unchanged"]) == ([], [], 6)
    page = (site / "changes" / "1.0..2.0" / "index.html").read_text()
    assert "<del>find</del>" in page and "<ins>uniquely identify</ins>" in page
    assert 'href="changes/1.0..2.0/index.html"' in (site / "index.html").read_text()


def test_two_runs_write_identical_sites(site, tmp_path):
    repo = site.parent / "repo"
    again = tmp_path / "again"
    done = run_cli("scan", str(repo), "--commit", "1.0", "--commit", "2.0", "--commit", "3.0",
                   "--include", "pkg/**", "--out", str(again), "--no-cache", "--quiet")
    assert done.returncode == 0, done.stderr
    first = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first == second


def test_every_json_file_of_a_history_site_validates(site):
    import jsonschema

    validator = jsonschema.Draft202012Validator(json.loads((site / "api" / "schema.json").read_text()))
    files = sorted(p for p in (site / "api").rglob("*.json") if p.name != "schema.json")
    assert any(p.parent.name == "changes" for p in files) and index(site)["aliases"]
    for path in files:
        validator.validate(json.loads(path.read_text()))


def test_lookup_and_search_find_an_error_no_longer_raised(site):
    done = run_cli("lookup", "--site", str(site), "TypeError: dropped() needs a value", "--format", "json")
    assert done.returncode == 0, done.stderr
    best = json.loads(done.stdout)[0]
    assert (best["message"], best["removed_since"], best["confident"]) == ("dropped() needs a value", "2.0", True)
    text = run_cli("lookup", "--site", str(site), "TypeError: dropped() needs a value").stdout
    assert "  no longer raised since 2.0\n" in text
    chunks = "".join(p.read_text() for p in sorted((site / "data").glob("errors-*.js")))
    assert '"message":"dropped() needs a value"' in chunks and '"removed_since":"2.0"' in chunks


def test_lookup_of_a_current_error_says_nothing_of_removal(site):
    best = json.loads(run_cli("lookup", "--site", str(site), "no host to connect to", "--format", "json").stdout)[0]
    assert best["removed_since"] is None

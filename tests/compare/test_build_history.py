"""History built from catalogs: an error that leaves and comes back, an id that changes."""

from __future__ import annotations

import pytest

from conftest import build_git_history

from errscan.compare.history import scan_revisions
from errscan.request import Revision
from errscan.profiles.vllm import VLLM
from errscan.request import Revision
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions
from errscan.scope import Scope
from errscan.sources.git import GitSource


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """1.0 and 3.0 are the same tree; 2.0 dropped a function and renamed a file in between."""
    repo = build_git_history(tmp_path_factory.mktemp("back-again"), "v1", "v2", "v1")
    options = ScanOptions(repo="o/r", scope=Scope(("pkg/**",)), jobs=1)
    revisions = [Revision(tag, lambda tag=tag: GitSource(repo, tag, VLLM)) for tag in ("1.0", "2.0", "3.0")]
    return scan_revisions(revisions, options, Progress(quiet=True))


def by_message(catalog, message):
    (error,) = [e for e in catalog.errors if e.message == message]
    return error


def test_an_error_that_comes_back_keeps_its_history(catalog):
    history = by_message(catalog, "dropped() needs a value").history
    assert [s.present for s in history.releases] == [True, False, True]
    assert (history.first_seen, history.removed_since, history.aliases) == ("1.0", None, ())
    assert not catalog.retired


def test_a_file_renamed_and_back_keeps_one_page_and_the_other_id_as_alias(catalog):
    error = by_message(catalog, "a loader needs a name")
    assert [s.path for s in error.history.releases] == ["pkg/old_name.py", "pkg/new_name.py", "pkg/old_name.py"]
    (alias,) = error.history.aliases
    assert catalog.aliases[alias] == error.id
    assert error.history.last_changed == "3.0"


def test_one_commit_given_under_two_names_is_read_once(tmp_path):
    import io

    repo = build_git_history(tmp_path, "v1", "v2")
    options = ScanOptions(repo="o/r", scope=Scope(("pkg/**",)), jobs=1)
    names = ("1.0", "2.0", "HEAD")  # HEAD is 2.0
    revisions = [Revision(name, lambda name=name: GitSource(repo, name, VLLM)) for name in names]
    stream = io.StringIO()
    catalog = scan_revisions(revisions, options, Progress(stream))
    assert [r.label for r in catalog.releases] == ["1.0", "2.0"]
    assert stream.getvalue() == "note: HEAD is the same commit as 2.0: read once\n"

"""A git source reads a commit's blobs, never the work tree."""

import subprocess
from pathlib import Path

import pytest

from errscan.errors import UsageError
from errscan.profiles.vllm import VLLM
from errscan.sources import open_source


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    pkg = tmp_path / "vllm"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "old.py").write_text("def f():\n    raise ValueError('old message')\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first")
    git(tmp_path, "tag", "v1.0")
    (pkg / "old.py").unlink()
    (pkg / "new.py").write_text("def g():\n    raise KeyError('new message')\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "second")
    (pkg / "dirty.py").write_text("raise RuntimeError('only in the work tree')\n")
    return tmp_path


def open_git(path, rev):
    return open_source(str(path), profile=VLLM, commit=rev, cache_dir=Path("/nonexistent"))


def test_older_commit_sees_that_commits_files(repo):
    first = git(repo, "rev-parse", "HEAD~1")
    source = open_git(repo, first[:7])
    assert source.commit == first
    files = {f.path: f.data for f in source.files()}
    assert set(files) == {"vllm/__init__.py", "vllm/old.py"}
    assert b"old message" in files["vllm/old.py"]


def test_tag_resolves_to_full_sha_and_version(repo):
    source = open_git(repo, "v1.0")
    assert len(source.commit) == 40 and source.version == "1.0"


def test_only_a_v_before_a_digit_is_dropped_from_a_tag(repo):
    git(repo, "tag", "very-good", "HEAD")
    assert open_git(repo, "very-good").version == "very-good"


def test_revisions_given_newest_first_get_a_note(repo):
    from errscan.sources.git import order_notes

    assert order_notes(repo, ["v1.0", "HEAD"]) == []
    assert order_notes(repo, ["HEAD", "v1.0"]) == [
        "v1.0 is older than HEAD but given after it: revisions are read in the order given, oldest first"
    ]


def test_head_ignores_the_work_tree(repo):
    paths = {f.path for f in open_git(repo, "HEAD").files()}
    assert paths == {"vllm/__init__.py", "vllm/new.py"}


def test_package_folder_as_src(repo):
    paths = {f.path for f in open_git(repo / "vllm", "HEAD").files()}
    assert "vllm/new.py" in paths


def test_digest_equals_git_blob_sha(repo):
    for f in open_git(repo, "HEAD").files():
        assert f.digest == git(repo, "rev-parse", f"HEAD:{f.path}")


def test_unknown_commit_and_non_git_folder(repo, tmp_path_factory):
    with pytest.raises(UsageError, match="unknown commit"):
        open_git(repo, "deadbeef")
    plain = tmp_path_factory.mktemp("plain")
    (plain / "m.py").write_text("x = 1\n")
    with pytest.raises(UsageError, match="needs a git repository"):
        open_git(plain, "HEAD")

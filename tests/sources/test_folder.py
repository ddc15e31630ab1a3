from pathlib import Path

import pytest

from conftest import FIXTURES
from errscan.errors import UsageError
from errscan.profiles import normalize_commit_id
from errscan.profiles.vllm import VLLM
from errscan.sources import blob_digest, open_source

MINIREPO = FIXTURES / "minirepo"


def open_folder(path):
    return open_source(str(path), profile=VLLM, cache_dir=Path("/nonexistent"))


def test_repo_root_reads_the_package_with_repo_relative_paths():
    source = open_folder(MINIREPO)
    paths = [f.path for f in source.files()]
    assert paths == sorted(paths) and all(p.startswith("vllm/") for p in paths)
    assert (source.version, source.commit) == ("0.0.1", "abc1234def")


def test_package_folder_is_read_from_its_parent():
    paths = [f.path for f in open_folder(MINIREPO / "vllm").files()]
    assert "vllm/distributed/kv_transfer/connector.py" in paths


def test_digest_is_the_git_blob_id():
    assert blob_digest(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


@pytest.mark.parametrize(
    "raw, expected",
    [("g6e448d0ea", "6e448d0ea"), ("6E448D0EA", "6e448d0ea"), ("", None), (None, None), ("unknown", None)],
)
def test_commit_id_from_version_file(raw, expected):
    assert normalize_commit_id(raw) == expected


def test_bad_folders_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="no such file or folder"):
        open_folder(tmp_path / "missing")
    (tmp_path / "file.py").write_text("x = 1\n")
    with pytest.raises(UsageError, match="not a folder"):
        open_folder(tmp_path / "file.py")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="no Python files"):
        open_folder(empty)


def test_folder_without_version_or_git_has_unknown_commit(tmp_path):
    (tmp_path / "m.py").write_text("raise ValueError('x')\n")
    source = open_folder(tmp_path)
    assert (source.commit, source.version) == (None, None)

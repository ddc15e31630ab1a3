import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES
from errscan.errors import UsageError
from errscan.profiles import normalize_commit_id
from errscan.profiles.vllm import VLLM
from errscan.sources import MAX_FILE_BYTES, blob_digest, open_source

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


@pytest.fixture
def odd_tree(tmp_path):
    """A package beside files that are not plain files: each must be one reported failure."""
    package = tmp_path / "vllm"
    package.mkdir()
    (package / "ok.py").write_text("raise ValueError('fine')\n")
    (package / "loop.py").symlink_to(package / "loop.py")
    (package / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    os.mkfifo(package / "p.py")
    (package / "z.py").symlink_to("/dev/zero")
    (package / "big.py").write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    (package / os.fsdecode(b"bad\xffname.py")).write_text("x = 1\n")
    return tmp_path


def test_only_regular_files_are_read_the_others_are_reported(odd_tree):
    files = {f.path: f for f in open_folder(odd_tree).files()}
    assert files["vllm/ok.py"].unreadable is None and files["vllm/ok.py"].data
    reasons = {path: f.unreadable for path, f in files.items() if path != "vllm/ok.py"}
    assert reasons == {
        "vllm/loop.py": "cannot open: Too many levels of symbolic links; skipped",
        "vllm/dangling.py": "cannot open: No such file or directory; skipped",
        "vllm/p.py": "not a regular file: a FIFO; skipped",
        "vllm/z.py": "not a regular file: a character device; skipped",
        "vllm/big.py": f"larger than 4 MB ({MAX_FILE_BYTES + 1} bytes); skipped",
        "vllm/bad\\xffname.py": "the file name is not UTF-8; skipped",
    }


def test_the_scan_reports_each_file_not_read_and_goes_on(odd_tree, tmp_path):
    done = subprocess.run([sys.executable, "-m", "errscan", "scan", str(odd_tree), "--include", "**", "--no-cache",
                           "--out", str(tmp_path / "site")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "vllm/p.py:1: not a regular file: a FIFO; skipped" in lines
    assert "vllm/bad\\xffname.py:1: the file name is not UTF-8; skipped" in lines
    assert len(lines) == 6 and "internal error" not in done.stderr
    assert "6 parse failures" in done.stdout


def test_an_unreadable_file_and_folder_are_reported(tmp_path, monkeypatch):
    """Simulated, as the tests may run as root, who may read anything."""
    package = tmp_path / "vllm"
    (package / "locked").mkdir(parents=True)
    (package / "locked" / "m.py").write_text("x = 1\n")
    (package / "secret.py").write_text("x = 1\n")
    (package / "ok.py").write_text("x = 1\n")
    real_open, real_scandir = os.open, os.scandir

    def denied(error_path, real):
        def call(path, *args, **kwargs):
            if Path(path).name == error_path:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *args, **kwargs)
        return call

    monkeypatch.setattr(os, "open", denied("secret.py", real_open))
    monkeypatch.setattr(os, "scandir", denied("locked", real_scandir))
    files = {f.path: f.unreadable for f in open_folder(tmp_path).files()}
    assert files == {
        "vllm/locked": "cannot list the folder: Permission denied; skipped",
        "vllm/ok.py": None,
        "vllm/secret.py": "cannot open: Permission denied; skipped",
    }


def test_a_version_file_that_is_a_fifo_is_not_waited_on(tmp_path):
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "m.py").write_text("x = 1\n")
    os.mkfifo(tmp_path / "vllm" / "_version.py")
    assert open_folder(tmp_path).version is None

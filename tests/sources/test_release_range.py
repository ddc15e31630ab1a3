"""`--releases A..B`: the releases pip lists between two ends."""

from __future__ import annotations

import pytest

from conftest import run_cli

from errscan.errors import EXIT_USAGE, UsageError
from errscan.profiles.vllm import VLLM
from errscan.sources import release

LISTED = ["0.10.0", "0.9.2", "0.9.1rc1", "0.9.1", "0.9.0", "0.8.5.post1", "0.8.5"]


@pytest.fixture
def listed(monkeypatch):
    monkeypatch.setattr(release, "_listed_versions", lambda distribution: LISTED)


def test_range_is_inclusive_sorted_and_leaves_out_prereleases(listed):
    assert release.releases_between("0.8.5.post1", "0.10.0", profile=VLLM) == ["0.8.5.post1", "0.9.0", "0.9.1", "0.9.2", "0.10.0"]


def test_ends_compare_as_versions(listed):
    assert release.releases_between("0.9", "0.10", profile=VLLM) == ["0.9.0", "0.9.1", "0.9.2", "0.10.0"]


def test_a_fetched_release_is_kept_under_the_version_pip_chose(tmp_path, monkeypatch):
    """`vllm==0.24` fetches 0.24.0: kept once, as vllm-0.24.0, whichever spelling asked for it."""
    import zipfile

    def download(requirement, dest):
        dest.mkdir(parents=True)
        wheel = dest / "vllm-0.24.0-cp38-abi3-manylinux1_x86_64.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr("vllm/__init__.py", "")
        return wheel

    monkeypatch.setattr(release, "_pip_download", download)
    short = release.fetch_release("0.24", profile=VLLM, cache_dir=tmp_path)
    full = release.fetch_release("0.24.0", profile=VLLM, cache_dir=tmp_path)
    assert short == full == tmp_path / "releases" / "vllm-0.24.0"
    assert sorted(p.name for p in (tmp_path / "releases").iterdir()) == ["vllm-0.24.0"]


def test_a_cache_folder_that_cannot_hold_releases_is_a_usage_error(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(UsageError, match="cannot unpack vllm==0.24.0 into .*--cache-dir chooses another folder"):
        release.fetch_release("0.24.0", profile=VLLM, cache_dir=tmp_path / "a-file")


def test_a_prerelease_named_as_an_end_is_kept(listed):
    assert release.releases_between("0.9.1rc1", "0.9.1", profile=VLLM) == ["0.9.1rc1", "0.9.1"]


@pytest.mark.parametrize("first, last, message", [
    ("0.10.0", "0.9.0", "comes after"),
    ("0.9.3", "0.10.0", "pip lists no release vllm==0.9.3"),
    ("latest", "0.10.0", "not a release version"),
])
def test_bad_ranges_are_usage_errors(listed, first, last, message):
    with pytest.raises(UsageError, match=message):
        release.releases_between(first, last, profile=VLLM)


def test_versions_sort_as_numbers():
    assert release.sort_versions(["0.10.0", "0.9.0", "0.9.0"]) == ["0.9.0", "0.10.0"]


@pytest.mark.parametrize("args, message", [
    (["--releases", "0.24.0"], "expected FIRST..LAST"),
    (["--releases", "0.24.0..0.25.1", "--release", "0.24.0"], "either --release or --releases"),
    (["--release", "0.24.0", "--commit", "HEAD"], "give no SRC and no --commit"),
])
def test_cli_rejects_mixed_or_malformed_release_options(tmp_path, args, message):
    done = run_cli("scan", *args, "--out", str(tmp_path / "site"))
    assert done.returncode == EXIT_USAGE
    assert done.stderr.startswith("errscan: ") and message in done.stderr


@pytest.mark.integration
def test_pip_lists_the_vllm_releases_between_two_ends():
    assert release.releases_between("0.24.0", "0.27.1", profile=VLLM) == [
        "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1"
    ]

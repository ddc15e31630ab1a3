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

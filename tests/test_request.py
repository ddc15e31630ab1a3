"""The request the options make: what it scans, in which order, and the combinations it refuses."""

from __future__ import annotations

import pytest

from errscan.errors import UsageError
from errscan.request import ScanRequest


def test_releases_are_scanned_oldest_first_whatever_the_order_given():
    request = ScanRequest(releases=("0.10.0", "0.9.1", "0.10.0"))
    assert [r.name for r in request.revisions()] == ["0.9.1", "0.10.0"]


def test_commits_keep_the_order_given_each_once():
    request = ScanRequest(src=".", commits=("v2", "v1", "v2"))
    assert [r.name for r in request.revisions()] == ["v2", "v1"]


def test_no_revision_means_the_folder_as_it_is():
    assert [r.name for r in ScanRequest(src="some/dir").revisions()] == ["some/dir"]


@pytest.mark.parametrize("request_, message", [
    (ScanRequest(releases=("0.1.0",), release_range=("0.1.0", "0.2.0")), "either --release or --releases"),
    (ScanRequest(src=".", releases=("0.1.0",)), "give no SRC and no --commit"),
])
def test_mixed_sources_are_usage_errors(request_, message):
    with pytest.raises(UsageError, match=message):
        request_.revisions()


def test_the_profile_chooses_the_files_unless_include_does():
    assert ScanRequest().scope().include == ScanRequest().profile.default_include
    assert ScanRequest(include=("vllm/**",), exclude=("vllm/x/**",)).scope().catalogues("vllm/a.py")
    assert not ScanRequest(include=("vllm/**",), exclude=("vllm/x/**",)).scope().catalogues("vllm/x/b.py")

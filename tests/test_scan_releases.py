"""Real vLLM, all of `vllm/`: old and new releases scan without a crash, and every raise and
assert-with-message that the stdlib `ast` finds is catalogued (libcst failures fall back to ast)."""

from __future__ import annotations

import ast
import json
import os
import re
import warnings
from pathlib import Path

import pytest

from conftest import reraises, run_cli
from errscan.runtime.cachedir import default_cache_dir
from errscan.profiles.vllm import VLLM
from errscan.sources.release import fetch_release, releases_between

pytestmark = [pytest.mark.integration, pytest.mark.releases]

# Oldest supported, a few between, and the newest on the index when this was written; with
# ERRSCAN_EVERY_RELEASE=FIRST..LAST, every release pip lists in that range (0.8.5..0.33.0: 45,
# about 25 minutes here).
EVERY = os.environ.get("ERRSCAN_EVERY_RELEASE", "")
RELEASES = (
    releases_between(*EVERY.split(".."), profile=VLLM) if EVERY
    else ["0.8.5", "0.11.0", "0.17.0", "0.21.0", "0.27.1", "0.33.0"]
)
PROBLEM_LINE = re.compile(r"^\S+\.py:\d+: \S.*$")


def ast_counts(package: Path) -> dict[str, int]:
    """Raises, asserts with a message and bare re-raises in every file this Python can parse."""
    counts = {"raises": 0, "asserts": 0, "reraises": 0}
    for path in package.rglob("*.py"):
        try:
            with warnings.catch_warnings():  # invalid escapes in vLLM's strings
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise):
                counts["reraises" if reraises(node) else "raises"] += 1
            elif isinstance(node, ast.Assert) and node.msg is not None:
                counts["asserts"] += 1
    return counts


@pytest.mark.parametrize("version", RELEASES)
def test_whole_package_scan_catalogues_every_site_ast_finds(version, tmp_path):
    tree = fetch_release(version, profile=VLLM, cache_dir=default_cache_dir())
    done = run_cli("scan", "--release", version, "--include", "vllm/**", "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    problems = done.stderr.splitlines()
    assert all(PROBLEM_LINE.match(line) for line in problems), done.stderr
    index = json.loads((tmp_path / "site" / "api" / "index.json").read_text())
    summary = index["summary"]
    assert {k: summary[k] for k in ("raises", "asserts", "reraises")} == ast_counts(tree / "vllm")
    assert summary["files_read"] == summary["files_catalogued"] == len(list((tree / "vllm").rglob("*.py")))
    assert index["version"] == version
    if version == "0.8.5":  # its _version.py records no commit: links then point at HEAD
        assert index["commit"] is None
    if version == "0.27.1":
        assert index["commit"].startswith("6e448d0ea")

"""Releases are fetched in a venv that was made without pip (`uv venv`, `uvx`, `uv tool install`):
pip comes in as one of errscan's dependencies, and runs with the user's own pip configuration.

The README's uv recipe, run as written: `uv venv`, `uv pip install .`, `errscan scan --release`.
Where uv is not installed (it is in the test extra), `python -m venv --without-pip` and this pip's
`--python` stand in for it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration


def _uv() -> str | None:
    try:
        from uv import find_uv_bin

        return find_uv_bin()
    except ImportError:
        return shutil.which("uv")


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A venv with no pip in it, and errscan installed there as the README says."""
    where = tmp_path_factory.mktemp("uv") / "venv"
    uv = _uv()
    if uv:
        subprocess.run([uv, "venv", "--quiet", str(where)], check=True)
    else:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    before = subprocess.run([str(where / "bin" / "python"), "-m", "pip", "--version"], capture_output=True, text=True)
    assert before.returncode != 0 and "No module named pip" in before.stderr
    if uv:
        install = [uv, "pip", "install", "--quiet", "--python", str(where / "bin" / "python"), str(ROOT)]
    else:
        install = [sys.executable, "-m", "pip", "--python", str(where / "bin" / "python"), "install", "--quiet", str(ROOT)]
    subprocess.run(install, check=True)
    return where


def run_in(venv: Path, *command: str, cwd: Path, cache_dir: Path) -> subprocess.CompletedProcess:
    """A command of the venv's, as a user runs it there (its bin/ first, no other venv around)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", ERRSCAN_CACHE_DIR=str(cache_dir))
    return subprocess.run(list(command), capture_output=True, text=True, cwd=cwd, env=env)


def test_errscan_scan_release_runs_in_the_venv(venv, release_0271, tmp_path):
    """`errscan scan --release 0.27.1` there, with the release already in the user's cache."""
    cache = release_0271.parents[1]  # <cache>/releases/vllm-0.27.1
    done = run_in(venv, "errscan", "scan", "--release", "0.27.1", "--out", str(tmp_path / "site"), cwd=tmp_path, cache_dir=cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("scanned commit ") and f"-> {tmp_path / 'site'}" in done.stdout
    index = json.loads((tmp_path / "site" / "api" / "index.json").read_text())
    assert index["version"] == "0.27.1" and len(index["errors"]) > 100


def test_the_venv_lists_releases_with_pip_from_errscans_dependencies(venv, tmp_path):
    listed = run_in(
        venv, "python", "-c", "from errscan.sources.release import releases_between as between; "
        "from errscan.profiles.vllm import VLLM; print(between('0.26.0', '0.27.1', profile=VLLM))",
        cwd=tmp_path, cache_dir=tmp_path / "cache",
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "['0.26.0', '0.27.0', '0.27.1']"


def test_the_venv_fetches_a_release_into_an_empty_cache(venv, tmp_path):
    """The fetch itself (pip download, unpacking the package's files), with a small wheel standing
    for vLLM's 300 MB one."""
    fetch = (
        "import dataclasses, sys; from pathlib import Path; "
        "from errscan.sources.release import fetch_release; from errscan.profiles.vllm import VLLM; "
        "small = dataclasses.replace(VLLM, distribution='idna', package='idna'); "
        "print(fetch_release('3.10', profile=small, cache_dir=Path(sys.argv[1])))"
    )
    done = run_in(venv, "python", "-c", fetch, str(tmp_path / "cache"), cwd=tmp_path, cache_dir=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    tree = Path(done.stdout.strip())
    assert tree == tmp_path / "cache" / "releases" / "idna-3.10"
    assert (tree / "idna" / "core.py").is_file() and (tree / ".errscan-complete").is_file()

"""Releases are fetched in a venv that was made without pip (`uv venv`, `uvx`, `uv tool install`):
pip comes in as one of errscan's dependencies, and runs with the user's own pip configuration.

The README's uv recipe, run as written in a clone of this repository: `uv venv`, `uv pip install .`,
`.venv/bin/errscan scan --release 0.27.1`, with uv from the test extra.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration


def readme_uv_recipe() -> list[str]:
    """The README's uv line, split at `&&`: ["uv venv", "uv pip install .", ".venv/bin/errscan scan ..."]."""
    (line,) = re.findall(r"^    (uv venv && .*)$", (ROOT / "README.md").read_text(), re.M)
    return [part.strip() for part in line.split("&&")]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory, release_0271) -> Path:
    """A clone of this repository in which the README's `uv venv` made .venv: no pip there."""
    try:
        from uv import find_uv_bin
    except ImportError:
        pytest.skip("no uv: pip install '.[test]'")
    where = tmp_path_factory.mktemp("uv") / "errscan"
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(where)], check=True)
    first, *_ = readme_uv_recipe()
    assert first == "uv venv"
    done = run_in(where, "bash", "-c", first, cwd=where, cache_dir=release_0271.parents[1], uv_dir=Path(find_uv_bin()).parent)
    assert done.returncode == 0, done.stderr
    no_pip = subprocess.run([str(where / ".venv" / "bin" / "python"), "-m", "pip", "--version"], capture_output=True, text=True)
    assert no_pip.returncode != 0 and "No module named pip" in no_pip.stderr
    return where


@pytest.fixture(scope="module")
def venv(checkout: Path, release_0271) -> Path:
    """The rest of the README's line, in that clone: errscan installed by uv, then the scan."""
    from uv import find_uv_bin

    rest = " && ".join(readme_uv_recipe()[1:])
    assert rest.startswith("uv pip install . && .venv/bin/errscan scan --release 0.27.1")
    done = run_in(checkout, "bash", "-c", rest, cwd=checkout, cache_dir=release_0271.parents[1], uv_dir=Path(find_uv_bin()).parent)
    assert done.returncode == 0, done.stderr
    checkout.joinpath("scan-output").write_text(done.stdout)
    return checkout / ".venv"


def run_in(venv: Path, *command: str, cwd: Path, cache_dir: Path, uv_dir: Path | None = None) -> subprocess.CompletedProcess:
    """A command of the venv's, as a user runs it there (its bin/ first, no other venv active)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    path = os.pathsep.join(str(p) for p in (venv / "bin", uv_dir) if p is not None)
    env.update(PATH=f"{path}{os.pathsep}{env.get('PATH', '')}", ERRSCAN_CACHE_DIR=str(cache_dir))
    return subprocess.run(list(command), capture_output=True, text=True, cwd=cwd, env=env)


def test_errscan_scan_release_runs_in_the_venv(venv):
    """`errscan scan --release 0.27.1` there, with the release already in the user's cache."""
    site = venv.parent / "site"
    summary = (venv.parent / "scan-output").read_text()
    assert summary.startswith("scanned commit ") and summary.rstrip().endswith("-> site")
    index = json.loads((site / "api" / "index.json").read_text())
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

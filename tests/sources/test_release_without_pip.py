"""Releases are fetched in a venv that was made without pip (`uv venv`, `uvx`, `uv tool install`):
pip comes in as one of errscan's dependencies, and runs with the user's own pip configuration."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _venv_without_pip(where: Path) -> tuple[Path, str]:
    """A venv with no pip in it, made by uv when it is installed (the test extra), else by venv."""
    try:
        from uv import find_uv_bin

        uv = find_uv_bin()
    except ImportError:
        uv = shutil.which("uv")
    if uv:
        subprocess.run([uv, "venv", "--quiet", str(where)], check=True)
        made_by = "uv venv"
    else:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
        made_by = "python -m venv --without-pip"
    return where / "bin" / "python", made_by


@pytest.mark.integration
def test_a_venv_without_pip_lists_releases_once_errscan_is_installed(tmp_path):
    python, made_by = _venv_without_pip(tmp_path / "venv")
    before = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True, text=True)
    assert before.returncode != 0 and "No module named pip" in before.stderr, made_by

    # The pip running this test installs errscan (the user's pip configuration picks the index).
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(ROOT)], check=True)

    listed = subprocess.run(
        [str(python), "-c", "from errscan.sources.release import releases_between as between; "
         "from errscan.profiles.vllm import VLLM; print(between('0.26.0', '0.27.1', profile=VLLM))"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "['0.26.0', '0.27.0', '0.27.1']", made_by

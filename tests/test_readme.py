"""The README's Python API example runs as written, against a built site."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_python_api_example_runs_against_a_built_site(tmp_path):
    (block,) = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    done = run_cli("scan", str(FIXTURES / "minirepo"), "--include", "vllm/**", "--out", str(tmp_path / "site"), "-q")
    assert done.returncode == 0, done.stderr
    # The example's log line, made to match an error of this site.
    block = block.replace("Connector 'MyConnector' is not registered.", "value must be non-negative")
    ran = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    first, second = ran.stdout.splitlines()
    assert first.split()[1:3] == ["exact", "1.00"]
    assert second.startswith("ValueError value must be non-negative vllm/config/__init__.py:3 abc1234def")


def test_relative_links_in_the_readme_lead_to_files_the_sdist_ships():
    from errscan.config import tomllib

    root = README.parent
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    targets = [t for t in re.findall(r"\]\(([^)]+)\)", README.read_text()) if "://" not in t]
    assert targets
    for target in targets:
        assert (root / target).is_file(), target
        assert any(target == item or target.startswith(item + "/") for item in shipped), target


@pytest.mark.integration
def test_every_relative_link_of_the_readme_and_docs_resolves_in_the_built_sdist(tmp_path):
    """The sdist as a build tool makes it (uv, from the test extra), unpacked: each relative link of
    README.md and docs/*.md leads to a file in it (absolute links go to their sites)."""
    import tarfile

    try:
        from uv import find_uv_bin
    except ImportError:
        pytest.skip("no uv: pip install '.[test]'")
    root = README.parent
    subprocess.run([find_uv_bin(), "build", "--sdist", "--quiet", "--out-dir", str(tmp_path), str(root)], check=True)
    (sdist,) = tmp_path.glob("errscan-*.tar.gz")
    with tarfile.open(sdist) as archive:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python < 3.10.12 has no filters
        archive.extractall(tmp_path / "unpacked", **safe)
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    pages = [unpacked / "README.md", *sorted((unpacked / "docs").glob("*.md"))]
    links = [(page, target.partition("#")[0]) for page in pages
             for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", page.read_text()))  # not in code spans
                 if "://" not in target and not target.startswith("#")]
    assert len(links) > 10
    assert [f"{page.name} -> {target}" for page, target in links if not (page.parent / target).exists()] == []

"""Reading a site for `lookup`, and diffing what was read, loads none of the scan's or the
renderer's libraries: those take most of a lookup's time."""

from __future__ import annotations

import subprocess
import sys

from conftest import FIXTURES
from errscan.profiles.vllm import VLLM
from errscan.render.site import write_site
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

HEAVY = ("libcst", "networkx", "jinja2", "pygments")


def loaded_after(code: str, cwd) -> set[str]:
    """The heavy libraries a fresh interpreter holds after running `code`."""
    report = f"\nimport sys\nprint('loaded:', *(m for m in {HEAVY!r} if m in sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", code + report], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.splitlines()[-1].split()[1:])


def test_lookup_and_show_in_a_site_and_a_diff_of_sites_load_no_heavy_library(tmp_path):
    catalog = scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions(VLLM.repo, Scope(("**",)), jobs=1))
    write_site(catalog, tmp_path / "site", jobs=1)
    error = next(e for e in catalog.errors if e.message and "{" not in e.message)
    code = f"""
from pathlib import Path
from errscan.api.read import read_site
from errscan.cli import cli
from errscan.compare.changes import diff_catalogs
from errscan.compare.formats import format_diff

cli.main(["lookup", "--site", "site", {f"{error.exception}: {error.message}"!r}], standalone_mode=False)
cli.main(["lookup", "--site", "site", "--format", "json", {error.message!r}], standalone_mode=False)
for fmt in ("text", "json", "markdown"):
    cli.main(["show", {error.id!r}, "--site", "site", "--format", fmt], standalone_mode=False)
site = read_site(Path("site"))
for fmt in ("text", "markdown", "json"):
    format_diff(diff_catalogs(site, site, "old", "new"), fmt)
"""
    assert loaded_after(code, tmp_path) == set()


def test_the_check_sees_a_heavy_library(tmp_path):
    assert {"libcst", "networkx"} <= loaded_after("import errscan.runtime.runner", tmp_path)

"""The GitHub Actions workflow of docs/publishing.md: valid for GitHub, and its jobs run here as far as
they can without GitHub (tests/docs/actions_local.py): a push builds the site Pages would get, a
pull request that moves the release comments the diff."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from actions_local import run_job

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "errscan-workflow.yml"
GITHUB = {"repository_owner": "owner", "event": {"repository": {"name": "repo"}, "pull_request": {"number": 7}},
          "token": "stand-in-token", "base_ref": "main"}


def check_workflow(path: Path) -> subprocess.CompletedProcess:
    """check-jsonschema (test extra) against the GitHub workflow schema it ships: no network."""
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)]
    return subprocess.run(command, capture_output=True, text=True)


def test_the_docs_show_the_workflow_file_as_it_is():
    (block,) = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "publishing.md").read_text(), re.S)
    assert block == WORKFLOW.read_text()


def test_the_workflow_is_valid_for_github(tmp_path):
    done = check_workflow(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs-on: 5", 1))
    assert check_workflow(broken).returncode != 0  # the check sees a broken workflow


def origin_repository(where: Path, base_release: str, pr_release: str) -> Path:
    """errscan's own repository (this checkout's HEAD) with the workflow in place on `main`, and a
    branch `pr` that sets ERRSCAN_RELEASE to `pr_release`."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(where)], check=True)
    subprocess.run([*git, "checkout", "-q", "-B", "main"], cwd=where, check=True)
    target = where / ".github" / "workflows" / "errscan.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = WORKFLOW.read_text()
    target.write_text(text.replace('ERRSCAN_RELEASE: "0.27.1"', f'ERRSCAN_RELEASE: "{base_release}"', 1))
    subprocess.run([*git, "add", "-A"], cwd=where, check=True)
    subprocess.run([*git, "commit", "-qm", "workflow"], cwd=where, check=True)
    subprocess.run([*git, "checkout", "-q", "-b", "pr"], cwd=where, check=True)
    target.write_text(text.replace('ERRSCAN_RELEASE: "0.27.1"', f'ERRSCAN_RELEASE: "{pr_release}"', 1))
    subprocess.run([*git, "commit", "-qam", "release", "--allow-empty"], cwd=where, check=True)
    subprocess.run([*git, "checkout", "-q", "main"], cwd=where, check=True)
    return where


@pytest.fixture(scope="module")
def python_bin(tmp_path_factory) -> Path:
    """What actions/setup-python gives a job: a Python with pip, nothing else installed."""
    venv = tmp_path_factory.mktemp("setup-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return venv / "bin"


def home_env() -> dict[str, str]:
    """This machine's environment (HOME: the user's errscan cache, as a cache hit), no venv active."""
    return {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}


def job(name: str, event: str, ref: str, origin: Path, python_bin: Path, root: Path):
    """Job `name` of the workflow as commit `ref` of `origin` has it."""
    show = ["git", "show", f"{ref}:.github/workflows/errscan.yml"]
    workflow = yaml.safe_load(subprocess.run(show, cwd=origin, capture_output=True, text=True, check=True).stdout)
    return run_job(workflow, name, event=event, github=GITHUB, origin=origin, ref=ref,
                   python_bin=python_bin, home_env=home_env(), root=root)


@pytest.mark.integration
def test_a_push_builds_the_site_that_pages_would_serve(tmp_path, python_bin, release_0271):
    origin = origin_repository(tmp_path / "origin", "0.27.1", "0.27.1")
    assert job("diff", "push", "main", origin, python_bin, tmp_path / "other").steps == []  # not on a push
    ran = job("site", "push", "main", origin, python_bin, tmp_path / "site-job")
    assert ran.failed is None, (ran.failed.name, ran.failed.output)
    assert [s.ran for s in ran.steps] == [True] * 6 + [False]  # the deployment needs GitHub
    public = ran.uploaded
    assert public == ran.workspace / "public" and (public / ".nojekyll").is_file() and (public / "404.html").is_file()
    assert (public / "browse" / "index.html").is_file()
    base = "https://owner.github.io/repo/"
    urls = [e.text for e in ElementTree.parse(public / "sitemap.xml").getroot().iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert len(urls) > 100 and all(u.startswith(base) for u in urls) and base in urls
    page = next((public / "errors").glob("*/index.html")).read_text()
    assert re.search(rf'<link rel="canonical" href="{re.escape(base)}errors/[0-9a-f]{{16}}/">', page)


@pytest.mark.integration
def test_a_pull_request_that_keeps_the_release_gets_no_comment(tmp_path, python_bin):
    origin = origin_repository(tmp_path / "origin", "0.27.1", "0.27.1")
    ran = job("diff", "pull_request", "pr", origin, python_bin, tmp_path / "diff-job")
    assert ran.failed is None, (ran.failed.name, ran.failed.output)
    assert [s.ran for s in ran.steps] == [True] * 5 + [False] * 3 and ran.gh_calls == []


@pytest.mark.releases
def test_a_pull_request_that_moves_the_release_gets_the_diff_as_a_comment(tmp_path, python_bin):
    origin = origin_repository(tmp_path / "origin", "0.27.0", "0.27.1")
    ran = job("diff", "pull_request", "pr", origin, python_bin, tmp_path / "diff-job")
    assert all(s.ran for s in ran.steps)
    assert all(s.returncode == 0 for s in ran.steps[:-1]), [(s.name, s.output) for s in ran.steps if s.returncode]
    (call,) = ran.gh_calls  # edited the last comment (the stand-in has one), so no second call
    assert call["args"] == ["pr", "comment", "7", "--body-file", "diff.md", "--edit-last"]
    assert call["body"].startswith("### Errors: 0.27.0 → 0.27.1") and len(call["body"]) <= 65_536
    annotations = ran.steps[-1]
    assert annotations.returncode == (3 if "#### Added" in call["body"] else 0), annotations.output
    assert all(line.startswith("::") for line in annotations.output.splitlines() if line.strip())

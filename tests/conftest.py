"""Shared test helpers: fixture sources, running the CLI as a user would, real releases."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errscan.extract import FileResult, extract_file
from errscan.sources import SourceFile, blob_digest

FIXTURES = Path(__file__).parent / "fixtures"


def source_file(path: Path, rel: str | None = None) -> SourceFile:
    data = path.read_bytes()
    return SourceFile(rel or path.name, data, blob_digest(data))


def reraises(node: ast.Raise) -> bool:
    """The ast oracle's own rule for a raise that makes no new error: bare `raise`, or a raise of an
    object by a lower-case name (`raise err`, `raise self._error`); classes are CamelCase."""
    exc = node.exc
    if exc is None:
        return True
    if isinstance(exc, ast.Attribute):
        base = exc.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name):
            return False
        last = exc.attr
    elif isinstance(exc, ast.Name):
        last = exc.id
    else:
        return False
    return last[:1].islower() or last[:1] == "_"


def graph_of(*names: str, keeps: tuple[tuple[str, str], ...] = ()):
    """The call graph of fixture modules under fixtures/calls (`name` is `calls/<name>.py`), with the
    registrars' `keeps` (function, argument) of a profile."""
    from errscan.graph.calls import CallGraph
    from errscan.graph.index import PackageIndex

    results = [extract_file(source_file(FIXTURES / "calls" / f"{n}.py", f"calls/{n}.py"), catalogued=False) for n in names]
    facts = [r.facts for r in results]
    return CallGraph(PackageIndex(facts), {f.module: r.path for f, r in zip(facts, results)}, keeps)


def package_graph(root: Path):
    """The whole call graph of the Python files under `root` (named by their paths relative to it):
    a catalog's call-graph document holds only the edges toward its errors."""
    from errscan.graph.calls import CallGraph
    from errscan.graph.index import PackageIndex

    results = [extract_file(source_file(p, p.relative_to(root).as_posix()), catalogued=False) for p in sorted(root.rglob("*.py"))]
    facts = [r.facts for r in results if r.facts is not None]
    return CallGraph(PackageIndex(facts), {r.facts.module: r.path for r in results if r.facts is not None})


def callees(graph, caller: str) -> dict[str, set[str]]:
    """callee -> resolutions of the calls from `caller` (module-relative names, `calls.` dropped)."""
    found: dict[str, set[str]] = {}
    for _, callee, data in graph.graph.out_edges(f"calls.{caller}", data=True):
        found.setdefault(callee.removeprefix("calls."), set()).update(s.resolution for s in data["sites"])
    return found


def extract_fixture(name: str) -> FileResult:
    return extract_file(source_file(FIXTURES / "patterns" / name, f"pkg/{name}"), catalogued=True)


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess:
    """errscan as a user runs it, in its own process (`env`: variables set or, as None, unset)."""
    environ = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "errscan", *args], cwd=cwd, capture_output=True, text=True,
        env={name: value for name, value in environ.items() if value is not None},
    )


@pytest.fixture(scope="session")
def release_0271() -> Path:
    """vLLM 0.27.1's source, fetched once with pip into the user's errscan cache and reused."""
    from errscan.runtime.cachedir import default_cache_dir
    from errscan.profiles.vllm import VLLM
    from errscan.sources.release import fetch_release

    return fetch_release("0.27.1", profile=VLLM, cache_dir=default_cache_dir())


@pytest.fixture(scope="session")
def catalog_0271(release_0271):
    """The default-scope scan of vLLM 0.27.1, shared by the integration tests."""
    from errscan.profiles.vllm import VLLM
    from errscan.runtime.runner import ScanOptions, scan
    from errscan.scope import Scope
    from errscan.sources.folder import FolderSource

    return scan(FolderSource(release_0271, VLLM), ScanOptions(repo=VLLM.repo, scope=Scope(VLLM.default_include)))


@pytest.fixture(scope="session")
def patterns_site(tmp_path_factory):
    """A site of tests/fixtures/patterns (every kind of template), with its catalog: what lookup's
    tests read. Tests that damage it copy it first."""
    from errscan.profiles.vllm import VLLM
    from errscan.render.site import write_site
    from errscan.runtime.runner import ScanOptions, scan
    from errscan.scope import Scope
    from errscan.sources.folder import FolderSource

    catalog = scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions(VLLM.repo, Scope(("**",)), jobs=1))
    out = tmp_path_factory.mktemp("patterns") / "site"
    write_site(catalog, out, jobs=1)
    return out, catalog


@pytest.fixture(scope="session")
def analysis_catalog():
    """A scan of tests/fixtures/analysis_pkg: vLLM's shapes (registry, interface, config, engine
    arguments) under shorter module paths, so the profile's plugin package is `vllm.kv`."""
    import dataclasses

    from errscan.profiles.vllm import VLLM
    from errscan.runtime.runner import ScanOptions, scan
    from errscan.scope import Scope
    from errscan.sources.folder import FolderSource

    profile = dataclasses.replace(VLLM, plugin_package="vllm.kv")
    source = FolderSource(FIXTURES / "analysis_pkg", profile)
    return scan(source, ScanOptions(repo="o/r", scope=Scope(("vllm/**",)), jobs=1, profile=profile))


@pytest.fixture(scope="session")
def surfaces_catalog():
    """A scan of tests/fixtures/surfaces: one way a raised error is wrapped, logged, answered or
    swallowed a file, under a profile that names its error response and HTTP exception."""
    import dataclasses

    from errscan.profiles.vllm import VLLM
    from errscan.runtime.runner import ScanOptions, scan
    from errscan.scope import Scope
    from errscan.sources.folder import FolderSource

    profile = dataclasses.replace(
        VLLM, name="app", package="app", plugin_package="app.none", error_responses=("ErrorReply",), http_errors=("HTTPException",))
    source = FolderSource(FIXTURES / "surfaces", profile)
    return scan(source, ScanOptions(repo="o/r", scope=Scope(("app/**",)), jobs=1, profile=profile))


@pytest.fixture(scope="session")
def by_function(analysis_catalog):
    return {e.function: e for e in analysis_catalog.errors}


def build_git_history(root: Path, *versions: str) -> Path:
    """A git repo with one commit per fixture folder under fixtures/history, tagged 1.0, 2.0, ...

    Each folder replaces the tree, except `v3`, which adds to the one before (see its README).
    """
    repo = root / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=errscan", "-c", "user.email=errscan@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    for number, version in enumerate(versions, 1):
        if version != "v3":
            shutil.rmtree(repo / "pkg", ignore_errors=True)
        shutil.copytree(FIXTURES / "history" / version, repo, dirs_exist_ok=True)
        subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
        subprocess.run([*git, "commit", "-q", "-m", version], cwd=repo, check=True)
        subprocess.run([*git, "tag", f"{number}.0"], cwd=repo, check=True)
    return repo


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie nobody reaps in a container has ended too)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until_gone(pids: list[int], seconds: float) -> list[int]:
    """The processes of `pids` still running after waiting up to `seconds` for them to end."""
    deadline = time.monotonic() + seconds
    while (left := [pid for pid in pids if not _gone(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def children_of(pid: int, count: int, seconds: float = 30) -> list[int]:
    """The child processes of `pid`, waiting up to `seconds` until there are `count` of them."""
    deadline = time.monotonic() + seconds
    found: list[int] = []
    while len(found) < count and time.monotonic() < deadline:
        time.sleep(0.1)
        listed = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        found = [int(pid) for pid in listed]
    return found



# Fuzz tests (tests/fuzz): few examples in CI, a long run on demand (HYPOTHESIS_PROFILE=long).
# The deadline bounds the time of each input: a slow one fails as a hang would.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=150, deadline=2000, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=20_000, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

"""Progress lines: shown on a terminal, never in a pipe or with --quiet."""

from __future__ import annotations

import io
import shutil

from conftest import FIXTURES

from errscan.compare.history import scan_revisions
from errscan.profiles.vllm import VLLM
from errscan.request import Revision
from errscan.runtime.cache import ScanCache
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def scan_twice(tmp_path, progress):
    tree = tmp_path / "src"
    shutil.copytree(FIXTURES / "patterns", tree, dirs_exist_ok=True)
    options = ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1, cache=ScanCache(tmp_path / "cache"))
    revisions = [Revision(name, lambda: FolderSource(tree, VLLM)) for name in ("first", "second")]
    return scan_revisions(revisions, options, progress)


def test_a_terminal_sees_each_release_with_parsed_and_cached_counts(tmp_path):
    stream = Terminal()
    scan_twice(tmp_path, Progress(stream))
    finished = [line.rsplit("\r\033[K", 1)[-1] for line in stream.getvalue().split("\n")[:-1]]
    n = len(list((FIXTURES / "patterns").glob("*.py")))
    assert finished == [f"[1/2] first: {n} files, {n} parsed, 0 reused",
                        f"[2/2] second: {n} files, 0 parsed, {n} reused"]
    assert "[2/2] second: scanning…" in stream.getvalue()  # while it is opened (a release: fetched)
    assert "[1-2/2] first, second: scanning…" in stream.getvalue()  # then both together
    assert f"[1-2/2] first, second: scanning… parsed {n} of {n} files" in stream.getvalue()


def test_a_pipe_or_quiet_gets_nothing(tmp_path):
    piped, quiet = io.StringIO(), Terminal()
    scan_twice(tmp_path / "a", Progress(piped))
    scan_twice(tmp_path / "b", Progress(quiet, quiet=True))
    assert piped.getvalue() == quiet.getvalue() == ""

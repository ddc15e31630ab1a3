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


def test_a_terminal_sees_each_stage_then_the_pages_being_written(tmp_path):
    from errscan.render.site import write_site

    stream = Terminal()
    progress = Progress(stream)
    catalog = scan_twice(tmp_path, progress)
    shown = stream.getvalue()
    stages = ["scanning…", "reading files", "parsing", "listing the errors", "building the call graph",
              "analysing conditions and call chains"]
    positions = [shown.find(f"[1-2/2] first, second: scanning… {s}" if s != "scanning…" else s) for s in stages]
    assert -1 not in positions and positions == sorted(positions), shown
    write_site(catalog, tmp_path / "site", jobs=1, on_written=progress.writing)
    pages = len(catalog.errors) + len(catalog.retired)
    assert stream.getvalue().endswith(f"\r\033[Kwriting the site: {pages} of {pages} error pages")


def test_a_release_says_it_is_being_fetched(tmp_path):
    stream = Terminal()
    options = ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1)
    opened = []

    def open_release():
        opened.append(stream.getvalue())  # what the terminal showed while the release was fetched
        return FolderSource(FIXTURES / "patterns", VLLM)

    scan_revisions([Revision("9.9.9", open_release, fetches=True)], options, Progress(stream))
    assert opened == ["\r\033[K[1/1] 9.9.9: scanning…\r\033[K[1/1] 9.9.9: scanning… opening the release (pip fetches it on first use)"]


def test_the_command_shows_its_stages_on_a_terminal_and_nothing_in_a_pipe(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    from conftest import run_cli

    args = ["scan", str(FIXTURES / "minirepo"), "--cache-dir", str(tmp_path / "cache")]
    master, terminal = pty.openpty()
    scan = subprocess.Popen([sys.executable, "-m", "errscan", *args, "--out", str(tmp_path / "a")],
                            stdout=subprocess.PIPE, stderr=terminal, text=True)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the scan closed the terminal's other end
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert scan.wait(timeout=60) == 0 and scan.stdout.read().startswith("scanned commit ")
    scan.stdout.close()
    screen = shown.decode()
    for stage in ("reading files", "parsed 7 of 7 files", "building the call graph", "analysing conditions",
                  "minirepo: 7 files, 7 parsed, 0 reused", "writing the site: 0 of 3 error pages",
                  "writing the site: 3 of 3 error pages"):
        assert stage in screen, (stage, screen)
    assert screen.endswith("\r\033[K")  # the summary then starts on a clean line

    piped = run_cli(*args, "--out", str(tmp_path / "b"))
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.startswith("scanned commit ")

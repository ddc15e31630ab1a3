"""Progress on a terminal: which release is being scanned, which stage it is in (fetching,
reading, parsing with a count, call graph, analysis), then the site's pages as they are written.

Quiet unless the stream is a terminal and the user did not ask for `--quiet`, so logs and pipes
only ever get the final summary.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from errscan.terminal import printable

REDRAW_SECONDS = 0.2  # a count (files parsed, pages written) is redrawn at most this often


class Progress:
    def __init__(self, stream: TextIO | None = None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self._line = ""  # the scan line being shown, which a stage or a count extends
        self._drawn = 0.0

    def start(self, label: str, position: int, total: int, last: int | None = None) -> None:
        """A scan begins (of positions `position` to `last`, scanned together); the line is
        overwritten when it ends."""
        positions = f"{position}-{last}" if last is not None and last != position else f"{position}"
        self._line = f"[{positions}/{total}] {printable(label)}: scanning…"
        self._write(f"\r\033[K{self._line}")

    def stage(self, what: str) -> None:
        """The stage the scan on the line has reached ("reading files", "call graph", ...)."""
        self._write(f"\r\033[K{self._line} {what}")

    def parsing(self, done: int, total: int) -> None:
        """How many of the files to parse are done, on the scan line (redrawn now and then)."""
        if self._due(done, total):
            self.stage(f"parsed {done} of {total} files")

    def finish(self, label: str, position: int, total: int, files: int, reused: int) -> None:
        """One line per finished scan: files parsed versus reused (from the cache, or read for an
        earlier revision of this run)."""
        self._line = ""
        self._write(f"\r\033[K[{position}/{total}] {printable(label)}: {files} files, {files - reused} parsed, {reused} reused\n")

    def writing(self, done: int, total: int) -> None:
        """How many of the site's error pages are written (redrawn now and then)."""
        if self._due(done, total):
            self._write(f"\r\033[Kwriting the site: {done} of {total} error pages")

    def clear(self) -> None:
        """Takes the progress line away, before the summary."""
        self._write("\r\033[K")

    def note(self, text: str) -> None:
        """Something the user should know about what was read: shown even off a terminal."""
        clear = "\r\033[K" if self.enabled else ""  # over a progress line, if one is showing
        self.stream.write(f"{clear}note: {printable(text)}\n")
        self.stream.flush()

    def _due(self, done: int, total: int) -> bool:
        """A count is drawn when it starts and when it is complete, else at most every REDRAW_SECONDS."""
        now = time.monotonic()
        if 0 < done < total and now - self._drawn < REDRAW_SECONDS:
            return False
        self._drawn = now
        return True

    def _write(self, text: str) -> None:
        if self.enabled:
            self.stream.write(text)
            self.stream.flush()

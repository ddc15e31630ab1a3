"""Progress on a terminal: which release is being scanned, how many files were parsed or cached.

Quiet unless the stream is a terminal and the user did not ask for `--quiet`, so logs and pipes
only ever get the final summary.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from errscan.terminal import printable

REDRAW_SECONDS = 0.2  # a parsing count is redrawn at most this often


class Progress:
    def __init__(self, stream: TextIO | None = None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self._line = ""  # the scan line being shown, which a parsing count extends
        self._drawn = 0.0

    def start(self, label: str, position: int, total: int, last: int | None = None) -> None:
        """A scan begins (of positions `position` to `last`, scanned together); the line is
        overwritten when it ends."""
        positions = f"{position}-{last}" if last is not None and last != position else f"{position}"
        self._line = f"[{positions}/{total}] {printable(label)}: scanning…"
        self._write(f"\r\033[K{self._line}")

    def parsing(self, done: int, total: int) -> None:
        """How many of the files to parse are done, on the scan line (redrawn now and then)."""
        now = time.monotonic()
        if done < total and now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        self._write(f"\r\033[K{self._line} parsed {done} of {total} files")

    def finish(self, label: str, position: int, total: int, files: int, reused: int) -> None:
        """One line per finished scan: files parsed versus reused (from the cache, or read for an
        earlier revision of this run)."""
        self._write(f"\r\033[K[{position}/{total}] {printable(label)}: {files} files, {files - reused} parsed, {reused} reused\n")

    def note(self, text: str) -> None:
        """Something the user should know about what was read: shown even off a terminal."""
        clear = "\r\033[K" if self.enabled else ""  # over a progress line, if one is showing
        self.stream.write(f"{clear}note: {printable(text)}\n")
        self.stream.flush()

    def _write(self, text: str) -> None:
        if self.enabled:
            self.stream.write(text)
            self.stream.flush()

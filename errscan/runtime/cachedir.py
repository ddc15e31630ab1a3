"""Where errscan keeps what it may reuse: unpacked releases and per-file extraction results."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """`$ERRSCAN_CACHE_DIR`, else `$XDG_CACHE_HOME/errscan`, else `~/.cache/errscan`."""
    explicit = os.environ.get("ERRSCAN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "errscan"

"""Writing without ever leaving a half-written file or folder behind."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def swap_in_folder(built: Path, target: Path) -> None:
    """Put `built` where `target` is, replacing it; the old one is removed only once the new is in."""
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
        try:
            os.replace(target, old / "site")
            try:
                os.replace(built, target)
            except OSError:
                os.replace(old / "site", target)  # put the old one back
                raise
        finally:
            shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(built, target)

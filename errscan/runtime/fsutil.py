"""Writing without ever leaving a half-written file or folder behind."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


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


def new_folder(parent: Path, prefix: str) -> Path:
    """A fresh folder in `parent` with the permissions a plain `mkdir` gives (the user's umask),
    not the owner-only ones of a temporary folder: a site is read by web servers."""
    folder = Path(tempfile.mkdtemp(dir=parent, prefix=prefix))
    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)
    return folder


def swap_in_folder(built: Path, target: Path) -> None:
    """Put `built` where `target` is, replacing it; the old one is removed only once the new is in.

    Ctrl-C and SIGTERM wait until the swap and the clean-up are over, so that neither the old nor
    the new folder is ever lost or left behind half-removed."""
    with _signals_deferred():
        if not target.exists():
            os.replace(built, target)
            return
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


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM are noted, then handled as usual on leaving (only the main thread may)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    handlers = {number: signal.signal(number, lambda n, _: received.append(n)) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        if received:
            signal.raise_signal(received[0])

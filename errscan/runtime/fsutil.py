"""Writing without ever leaving a half-written file or folder behind."""

from __future__ import annotations

import ctypes
import errno
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
    """Put `built` where `target` is; the old folder ends up at `built`, for the caller to remove.

    On Linux the two are exchanged by one `renameat2(RENAME_EXCHANGE)`: at every instant `target`
    is either the old folder or the new one, even if errscan is killed. Where that call is missing
    (another system, a file system without it) the old folder is renamed aside, then the new one in:
    a SIGKILL between the two renames leaves `target` missing (the old folder is then at `built`).
    Ctrl-C and SIGTERM wait until the swap is over."""
    with _signals_deferred():
        if not os.path.lexists(target):
            os.rename(built, target)
            return
        if _exchange(built, target):
            return
        aside = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
        try:
            os.replace(target, aside / "site")
            try:
                os.replace(built, target)
            except OSError:
                os.replace(aside / "site", target)  # put the old one back
                raise
            os.replace(aside / "site", built)
        finally:
            shutil.rmtree(aside, ignore_errors=True)


_RENAME_EXCHANGE = 2  # from <linux/fs.h>
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically; False where the system or file system cannot."""
    renameat2 = getattr(_libc(), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # no C library to load by that name (Windows)
        return None


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

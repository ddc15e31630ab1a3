"""Sources: where the Python files come from (a folder, a git commit, a release wheel).

Every source yields the same thing: `SourceFile`s with repo-relative paths, plus the commit and
version it was read at. Nothing here parses Python.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol

from errscan.errors import UsageError
from errscan.profiles import Profile


MAX_FILE_BYTES = 4 << 20  # a larger .py file is reported, not read: vLLM's largest is a few hundred KB


@dataclass(frozen=True)
class SourceFile:
    path: str  # repo-relative, "/"-separated
    data: bytes
    digest: str  # git blob sha-1 of `data`: the same for a file read from git or from disk
    unreadable: str | None = None  # why the file could not be read (then `data` is empty): reported, not parsed


class NotReadable(Exception):
    """A file that is not read: its reason is the whole message (`not a regular file: a FIFO`)."""


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path` when it is a regular file (or a symlink to one) of at most `limit` bytes.

    Anything else raises NotReadable at once: a FIFO or a device is never read from (opening it
    does not wait for a writer), a symlink loop or a dangling link is not followed for ever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise NotReadable(f"cannot open: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise NotReadable(f"not a regular file: {_kind(info.st_mode)}")
            if info.st_size > limit:
                raise NotReadable(f"larger than {limit >> 20} MB ({info.st_size} bytes)")
            data = handle.read(limit + 1)
        except OSError as exc:
            raise NotReadable(f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > limit:  # grew while being read
        raise NotReadable(f"larger than {limit >> 20} MB")
    return data


def _kind(mode: int) -> str:
    kinds = {stat.S_ISFIFO: "a FIFO", stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
             stat.S_ISSOCK: "a socket", stat.S_ISDIR: "a folder"}
    return next((name for test, name in kinds.items() if test(mode)), "not a file")


def unreadable_file(path: str, reason: str) -> SourceFile:
    """A file that is reported as `path:1: reason` and left out of the scan."""
    return SourceFile(path, b"", "", reason)


class Source(Protocol):
    description: str
    commit: str | None
    version: str | None
    notes: tuple[str, ...]  # things the user should know about what was read

    def files(self) -> Iterator[SourceFile]: ...


def blob_digest(data: bytes) -> str:
    """The git blob id of `data`, so files from git and from disk share one content key."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def open_source(
    src: str | None,
    *,
    profile: Profile,
    commit: str | None = None,
    release: str | None = None,
    cache_dir: Path,
) -> Source:
    """Pick the source the options describe; raise UsageError for combinations that make no sense."""
    from errscan.sources.folder import FolderSource
    from errscan.sources.git import GitSource
    from errscan.sources.release import fetch_release

    if release is not None:
        if src is not None or commit is not None:
            raise UsageError("--release reads the package index; give no SRC and no --commit with it")
        return FolderSource(fetch_release(release, profile=profile, cache_dir=cache_dir), profile)
    if src is None:
        raise UsageError("give a SRC folder to scan, or --release X.Y.Z")
    path = Path(src)
    if not path.exists():
        raise UsageError(f"no such file or folder: {src}")
    if not path.is_dir():
        raise UsageError(f"not a folder: {src}")
    if commit is not None:
        return GitSource(path, commit, profile)
    return FolderSource(path, profile)


def package_scope(path: Path, profile: Profile) -> tuple[Path, Path]:
    """(root, folder to read): a package folder is read from its parent; a root from its package."""
    path = path.resolve()
    if (path / "__init__.py").is_file():
        return path.parent, path
    if (path / profile.package).is_dir():
        return path, path / profile.package
    return path, path

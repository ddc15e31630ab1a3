"""A commit of a git repository, read straight from git objects: no checkout, no work tree."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Iterator

from errscan.errors import SourceError, UsageError
from errscan.profiles import Profile
from errscan.sources import SourceFile


class GitSource:
    def __init__(self, path: Path, rev: str, profile: Profile):
        top = _run(["rev-parse", "--show-toplevel"], path)
        if top is None:
            raise UsageError(f"--commit needs a git repository, and {path} is not in one")
        self._top = Path(top.decode().strip()).resolve()
        sha = _run(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], self._top)
        if sha is None:
            raise UsageError(f"unknown commit {rev!r} in {self._top}")
        self.commit = sha.decode().strip()
        self.description = f"{path}@{rev}"
        self.notes: tuple[str, ...] = ()
        self._prefix = self._read_prefix(path.resolve(), profile)
        self._entries = self._list_python_blobs()
        if not self._entries:
            raise UsageError(f"no Python files under {self._prefix or '.'} at commit {rev}")
        self.version = self._version(profile)

    def _read_prefix(self, path: Path, profile: Profile) -> str:
        """The folder to read, as a repo-relative prefix: the package folder when SRC is the root."""
        rel = path.relative_to(self._top).as_posix() if path != self._top else ""
        if rel:
            return rel
        listing = _run(["ls-tree", "--name-only", self.commit, "--", profile.package], self._top)
        return profile.package if listing and listing.strip() else ""

    def _list_python_blobs(self) -> list[tuple[str, str]]:
        args = ["ls-tree", "-r", "-z", "--full-tree", self.commit]
        if self._prefix:
            args += ["--", self._prefix]
        out = _run(args, self._top)
        if out is None:
            raise SourceError(f"git ls-tree failed for {self.commit}")
        entries = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, kind, sha = meta.split()
            path = name.decode("utf-8", errors="surrogateescape")
            if kind == b"blob" and mode != b"120000" and path.endswith(".py"):
                entries.append((path, sha.decode()))
        return sorted(entries)

    def _version(self, profile: Profile) -> str | None:
        if not profile.version_file:
            return None
        data = _run(["cat-file", "-p", f"{self.commit}:{profile.version_file}"], self._top)
        if data is not None:
            return profile.read_version(data.decode("utf-8", errors="replace")).version
        tag = _run(["describe", "--tags", "--exact-match", self.commit], self._top)
        return _TAG_PREFIX.sub("", tag.decode().strip()) if tag else None

    def files(self) -> Iterator[SourceFile]:
        """All blobs through one `git cat-file --batch` process."""
        request = b"".join(sha.encode() + b"\n" for _, sha in self._entries)
        done = subprocess.run(
            ["git", "cat-file", "--batch"], cwd=self._top, input=request, capture_output=True
        )
        if done.returncode != 0:
            raise SourceError(f"git cat-file failed: {done.stderr.decode(errors='replace').strip()}")
        out, pos = done.stdout, 0
        for path, sha in self._entries:
            header_end = out.index(b"\n", pos)
            _, kind, size = out[pos:header_end].split()
            start = header_end + 1
            end = start + int(size)
            if kind != b"blob":
                raise SourceError(f"git object {sha} for {path} is a {kind.decode()}, not a blob")
            yield SourceFile(path, out[start:end], sha)
            pos = end + 1


_TAG_PREFIX = re.compile(r"^v(?=\d)")  # v0.27.1 -> 0.27.1; "very-good" stays


def order_notes(path: Path, revs: list[str]) -> list[str]:
    """A note for each revision given after one of its descendants: history reads revisions in
    the order given, oldest first, and would call the newer one's errors "no longer raised"."""
    notes = []
    for before, after in zip(revs, revs[1:]):
        if _run(["merge-base", "--is-ancestor", after, before], path) is not None and \
                _run(["merge-base", "--is-ancestor", before, after], path) is None:
            notes.append(f"{after} is older than {before} but given after it: revisions are read in the order given, oldest first")
    return notes


def _run(args: list[str], cwd: Path) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from exc
    return done.stdout if done.returncode == 0 else None

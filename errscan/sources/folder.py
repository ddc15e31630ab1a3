"""A folder on disk: a repo root, an unpacked release, or the package folder itself."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

from errscan.errors import UsageError
from errscan.profiles import Profile
from errscan.sources import NotReadable, SourceFile, blob_digest, package_scope, read_regular, unreadable_file


class FolderSource:
    def __init__(self, path: Path, profile: Profile):
        self._base, self._read_dir = package_scope(path, profile)
        # Only a repository's own root may take its commit from git: a folder that merely sits
        # inside some other work tree (a cache folder, say) is not that repository's code.
        git_top = _git_toplevel(self._base)
        if git_top != self._base:
            git_top = None
        version_path = self._base / profile.version_file if profile.version_file else None
        version_text = _read_text(version_path) if version_path else None
        info = profile.read_version(version_text) if version_text is not None else None
        self.version = info.version if info else None
        self.commit = info.commit if info and info.commit else (_git_head(git_top) if git_top else None)
        self.notes: tuple[str, ...] = ()
        if git_top and not (info and info.commit) and self.commit and _changed(git_top, self._read_dir):
            # Lines in the work tree need not be the lines at HEAD: a pinned link would lie.
            self.notes = (f"the work tree differs from HEAD {self.commit[:12]}: links go to the default branch; "
                          "use --commit to scan a commit",)
            self.commit = None
        self.description = str(path)
        self._unreadable_folders: list[SourceFile] = []
        self._paths = sorted(self._python_files())
        if not self._paths and not self._unreadable_folders:
            raise UsageError(f"no Python files under {path}")

    def files(self) -> Iterator[SourceFile]:
        """Every .py file's bytes; a file that is not read (see `read_regular`, or a name that is
        not UTF-8) and a folder that cannot be listed come as `unreadable` entries, in path order."""
        unread = {f.path: f for f in self._unreadable_folders}
        for rel in sorted([*self._paths, *unread]):
            if rel in unread:
                yield unread[rel]
                continue
            shown = _printable_path(rel)
            if shown != rel:
                yield unreadable_file(shown, "the file name is not UTF-8; skipped")
                continue
            try:
                data = read_regular(self._base / rel)
            except NotReadable as exc:
                yield unreadable_file(rel, f"{exc}; skipped")
                continue
            yield SourceFile(rel, data, blob_digest(data))

    def _python_files(self) -> Iterator[str]:
        def unlisted(error: OSError) -> None:
            rel = _printable_path(Path(error.filename).relative_to(self._base).as_posix())
            self._unreadable_folders.append(unreadable_file(rel, f"cannot list the folder: {error.strerror}; skipped"))

        for dirpath, dirnames, filenames in os.walk(self._read_dir, onerror=unlisted):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
            for name in filenames:
                if name.endswith(".py"):
                    yield Path(dirpath, name).relative_to(self._base).as_posix()


def _printable_path(path: str) -> str:
    """`path` with the bytes of a name that is not UTF-8 shown as `\\xNN`: a name that JSON and pages can hold."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _read_text(path: Path) -> str | None:
    try:
        return read_regular(path).decode("utf-8", errors="replace")
    except NotReadable:
        return None


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _git_toplevel(folder: Path) -> Path | None:
    top = _git(["rev-parse", "--show-toplevel"], folder)
    return Path(top).resolve() if top else None


def _changed(top: Path, folder: Path) -> bool:
    status = _git(["status", "--porcelain", "--untracked-files=no", "--", str(folder)], top)
    return bool(status)


def _git_head(top: Path) -> str | None:
    return _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top)

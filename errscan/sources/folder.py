"""A folder on disk: a repo root, an unpacked release, or the package folder itself."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

from errscan.errors import UsageError
from errscan.profiles import Profile
from errscan.sources import SourceFile, blob_digest, package_scope


class FolderSource:
    def __init__(self, path: Path, profile: Profile):
        self._base, self._read_dir = package_scope(path, profile)
        # Only a repository's own root may take its commit from git: a folder that merely sits
        # inside some other work tree (a cache folder, say) is not that repository's code.
        git_top = _git_toplevel(self._base)
        if git_top != self._base:
            git_top = None
        version_path = self._base / profile.version_file if profile.version_file else None
        info = (
            profile.read_version(version_path.read_text("utf-8", errors="replace"))
            if version_path and version_path.is_file()
            else None
        )
        self.version = info.version if info else None
        self.commit = info.commit if info and info.commit else (_git_head(git_top) if git_top else None)
        self.notes: tuple[str, ...] = ()
        if git_top and not (info and info.commit) and self.commit and _changed(git_top, self._read_dir):
            # Lines in the work tree need not be the lines at HEAD: a pinned link would lie.
            self.notes = (f"the work tree differs from HEAD {self.commit[:12]}: links go to the default branch; "
                          "use --commit to scan a commit",)
            self.commit = None
        self.description = str(path)
        self._paths = sorted(_python_files(self._read_dir, self._base))
        if not self._paths:
            raise UsageError(f"no Python files under {path}")

    def files(self) -> Iterator[SourceFile]:
        for rel in self._paths:
            data = (self._base / rel).read_bytes()
            yield SourceFile(rel, data, blob_digest(data))


def _python_files(folder: Path, base: Path) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        for name in filenames:
            if name.endswith(".py"):
                yield Path(dirpath, name).relative_to(base).as_posix()


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

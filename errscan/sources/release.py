"""A release from the package index: pip fetches the wheel, its `.py` files go into the cache.

pip runs with the user's own configuration (index, proxies, certificates), so errscan names no
index host. The unpacked tree is kept under `<cache>/releases/<dist>-<version>/` and reused.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from errscan.errors import SourceError, UsageError
from errscan.profiles import Profile

_VERSION = re.compile(r"^[0-9][0-9A-Za-z.+!_-]*$")
_COMPLETE = ".errscan-complete"


def fetch_release(version: str, *, profile: Profile, cache_dir: Path) -> Path:
    """The folder holding the release's package source, fetched and unpacked on first use."""
    if not _VERSION.match(version):
        raise UsageError(f"not a release version: {version!r} (expected something like 0.27.1)")
    target = cache_dir / "releases" / f"{profile.distribution}-{version}"
    if (target / _COMPLETE).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as tmp:
        wheel = _pip_download(f"{profile.distribution}=={version}", Path(tmp) / "wheel")
        tree = Path(tmp) / "tree"
        _unpack_python_files(wheel, tree, profile.package)
        (tree / _COMPLETE).write_text(wheel.name + "\n")
        try:
            tree.rename(target)
        except OSError:
            # Another scan unpacked the same release meanwhile; theirs is as good as ours.
            if not (target / _COMPLETE).is_file():
                shutil.rmtree(target, ignore_errors=True)
                tree.rename(target)
    return target


def _pip_download(requirement: str, dest: Path) -> Path:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
        "--quiet", "--dest", str(dest), requirement,
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
        reason = next((ln for ln in reversed(lines) if ln.startswith("ERROR")), lines[-1] if lines else "")
        raise SourceError(f"pip could not fetch {requirement}: {reason or 'no reason given'}")
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise SourceError(f"pip fetched no wheel for {requirement}")
    return wheels[0]


def _unpack_python_files(wheel: Path, tree: Path, package: str) -> None:
    try:
        with zipfile.ZipFile(wheel) as archive:
            for info in archive.infolist():
                name = info.filename
                if not name.endswith(".py") or not name.startswith(package + "/"):
                    continue
                destination = tree / name
                if tree.resolve() not in destination.resolve().parents:
                    raise SourceError(f"{wheel.name}: unsafe path {name!r}")
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(archive.read(info))
    except zipfile.BadZipFile as exc:
        raise SourceError(f"{wheel.name} is not a valid wheel: {exc}") from exc

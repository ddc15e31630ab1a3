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

from packaging.version import InvalidVersion, Version

from errscan.errors import SourceError, UsageError
from errscan.profiles import Profile

_VERSION = re.compile(r"^[0-9][0-9A-Za-z.+!_-]*$")
_COMPLETE = ".errscan-complete"


def fetch_release(version: str, *, profile: Profile, cache_dir: Path) -> Path:
    """The folder holding the release's package source, fetched and unpacked on first use."""
    if not _VERSION.match(version):
        raise UsageError(f"not a release version: {version!r} (expected something like 0.27.1)")
    releases = cache_dir / "releases"
    asked = releases / f"{profile.distribution}-{version}"
    if (asked / _COMPLETE).is_file():
        return asked
    try:
        releases.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=releases, prefix=".fetch-") as tmp:
            wheel = _pip_download(f"{profile.distribution}=={version}", Path(tmp) / "wheel")
            # Named for the version pip chose: `==0.24` fetches 0.24.0, kept once as vllm-0.24.0.
            target = releases / f"{profile.distribution}-{_wheel_version(wheel, version)}"
            if (target / _COMPLETE).is_file():
                return target
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
    except OSError as exc:
        raise UsageError(
            f"cannot unpack {profile.distribution}=={version} into {releases}: {exc.strerror or exc} "
            "(--cache-dir chooses another folder)"
        ) from exc
    return target


def _wheel_version(wheel: Path, asked: str) -> str:
    """The version in a wheel's file name (`vllm-0.24.0-cp38-abi3-...whl`)."""
    parts = wheel.name.split("-")
    return parts[1] if len(parts) >= 3 and _VERSION.match(parts[1]) else asked


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


def releases_between(first: str, last: str, *, profile: Profile) -> list[str]:
    """The final releases pip lists from `first` to `last` inclusive, oldest first.

    Pre-releases are left out unless named as an end. Both ends must be listed releases.
    """
    low, high = _parse_version(first), _parse_version(last)
    if low > high:
        raise UsageError(f"empty release range {first}..{last}: {first} comes after {last}")
    listed = {v: _parse_version(v) for v in _listed_versions(profile.distribution)}
    for end in (low, high):  # compared as versions: 0.25 is 0.25.0
        if end not in listed.values():
            raise UsageError(f"pip lists no release {profile.distribution}=={end}")
    chosen = [v for v, parsed in listed.items() if low <= parsed <= high and (parsed in (low, high) or not parsed.is_prerelease)]
    return sorted(chosen, key=listed.__getitem__)


def sort_versions(versions: list[str]) -> list[str]:
    """Oldest first, as version numbers compare (0.9.0 before 0.10.0)."""
    return sorted(dict.fromkeys(versions), key=_parse_version)


def _parse_version(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion as exc:
        raise UsageError(f"not a release version: {text!r} (expected something like 0.27.1)") from exc


def _listed_versions(distribution: str) -> list[str]:
    """What `pip index versions` prints after "Available versions:" (pip's own index settings)."""
    command = [sys.executable, "-m", "pip", "index", "versions", "--disable-pip-version-check", distribution]
    done = subprocess.run(command, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.partition(":")[2].split(",") if v.strip()]
    lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip() and not ln.startswith("WARNING")]
    raise SourceError(f"pip could not list the releases of {distribution}: {lines[-1] if lines else 'no output'}")

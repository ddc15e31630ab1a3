"""A content-addressed cache of scan results, so a re-scan parses only changed files.

Two kinds of entry, each under a folder named for the code that produced it (the errscan version
plus a hash of that code), so a changed analyzer never reads stale results:

- `extract/`: one file's extraction result, keyed by its content hash (its git blob sha), its path
  (module names, and so the facts, depend on it) and whether it was catalogued;
- `catalog/`: a whole scan's catalog, keyed by every file's path and content hash plus the scan's
  options, so scanning an unchanged tree again skips even the whole-package analysis. When any
  file changed, that analysis is redone from the per-file entries.

Entries are written atomically (a reader sees a whole entry or none) and carry a checksum, so a
corrupt or truncated entry is noticed, recomputed and rewritten rather than trusted. Two scans
sharing the folder at once write identical bytes for identical keys, so either may win.
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, TypeVar

import errscan
from errscan.errors import UsageError
from errscan.extract import FileResult
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.runtime.fsutil import atomic_write_bytes
from errscan.model import Catalog

_MAGIC = b"errscan-cache-1\n"
_CHECKSUM_SIZE = hashlib.sha256().digest_size
# The code whose output each kind of entry holds: any edit to it changes that kind's key.
_EXTRACT_SOURCES = ("extract", "model.py")
_CATALOG_SOURCES = (".",)

T = TypeVar("T")


def analyzer_key(version: str | None = None, sources: tuple[str, ...] = _EXTRACT_SOURCES) -> str:
    """errscan's version and a hash of the `sources` (under the package), as one folder name."""
    package = Path(errscan.__file__).resolve().parent
    digest = hashlib.sha256()
    for name in sources:
        target = package / name
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        for path in files:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return f"{version or errscan.__version__}-{digest.hexdigest()[:16]}"


@dataclass
class CacheStats:
    """What one cache did, for progress lines and the one-time corruption report."""

    hits: int = 0  # files not parsed, their result (or their whole scan's) taken from the cache
    misses: int = 0
    corrupt: list[Path] = field(default_factory=list)


class ScanCache:
    def __init__(self, root: Path, analyzer: str | None = None, catalog_analyzer: str | None = None):
        self.folder = root / "extract" / (analyzer or analyzer_key())
        self.catalog_folder = root / "catalog" / (catalog_analyzer or analyzer_key(sources=_CATALOG_SOURCES))
        self.stats = CacheStats()

    # per file

    def entry_path(self, path: str, digest: str, catalogued: bool, logs: LogCalls = GENERIC) -> Path:
        """Where one file's result is kept: by its content, path, whether it is catalogued and
        which calls were taken for log sites (the profile's, see `LogCalls`)."""
        return _sharded(self.folder, f"{digest}\0{path}\0{int(catalogued)}\0{logs.key()}")

    def get(self, path: str, digest: str, catalogued: bool, logs: LogCalls = GENERIC) -> FileResult | None:
        """The stored result, or None when absent or not intact (then counted as corrupt)."""
        result = self._load(self.entry_path(path, digest, catalogued, logs), FileResult)
        if result is not None and (result.path, result.digest) != (path, digest):
            self.stats.corrupt.append(self.entry_path(path, digest, catalogued, logs))
            result = None
        if result is None:
            self.stats.misses += 1
        else:
            self.stats.hits += 1
        return result

    def stored(self, keys: list[tuple[str, str, bool]], logs: LogCalls = GENERIC) -> list[bool]:
        """Whether an entry exists for each (path, digest, catalogued); the absent count as misses.

        Checking first lets the scan parse what is missing before loading the rest: worker
        processes forked from a small heap run several times faster than from a large one."""
        found = [self.entry_path(*key, logs).is_file() for key in keys]
        self.stats.misses += found.count(False)
        return found

    # per scan

    def catalog_path(self, options: Iterable[str], files: Iterable[tuple[str, str]]) -> Path:
        """The entry of a scan with these options (as strings) over these (path, digest) pairs."""
        key = "\0".join(options) + "\0\0" + "".join(f"{path}\0{digest}\n" for path, digest in files)
        return _sharded(self.catalog_folder, key)

    def get_catalog(self, entry: Path, files: int) -> Catalog | None:
        catalog = self._load(entry, Catalog)
        if catalog is not None:
            self.stats.hits += files
        return catalog

    def put_catalog(self, entry: Path, catalog: Catalog) -> None:
        _store(entry, catalog)

    def _load(self, entry: Path, kind: type[T]) -> T | None:
        try:
            data = entry.read_bytes()
        except FileNotFoundError:
            return None
        value = _decode(data)
        if not isinstance(value, kind):
            self.stats.corrupt.append(entry)
            return None
        return value


def open_cache(root: Path) -> ScanCache:
    """The cache at `root`, made if need be; a folder that cannot be written is a usage error,
    told at once rather than as every file failing to store its result."""
    cache = ScanCache(root)
    try:
        for folder in (cache.folder, cache.catalog_folder):
            folder.mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-")
            probe.close()
    except OSError as exc:
        raise UsageError(f"cannot use the cache folder {root}: {exc.strerror or exc} (--cache-dir chooses another folder; --no-cache scans without one)") from exc
    return cache


def _sharded(folder: Path, key: str) -> Path:
    digest = hashlib.sha256(key.encode("utf-8", errors="surrogateescape")).hexdigest()
    return folder / digest[:2] / digest[2:]


def encode(value: object) -> bytes:
    """The payload an entry stores: also what a worker sends its parent, so it is pickled once."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def store_payload(entry: Path, payload: bytes) -> None:
    """Write an entry; safe from any process, and so done by the worker that made the result."""
    atomic_write_bytes(entry, _MAGIC + hashlib.sha256(payload).digest() + payload)


def _store(entry: Path, value: object) -> None:
    store_payload(entry, encode(value))


def _decode(data: bytes) -> object | None:
    header = len(_MAGIC) + _CHECKSUM_SIZE
    if len(data) < header or not data.startswith(_MAGIC):
        return None
    checksum, payload = data[len(_MAGIC) : header], data[header:]
    if hashlib.sha256(payload).digest() != checksum:
        return None
    try:
        return pickle.loads(payload)
    except Exception:  # a payload that passed its checksum yet fails to load is still only corrupt
        return None

"""A content-addressed cache of scan results, so a re-scan parses only changed files.

Two kinds of entry, each under a folder named for the code that produced it (the errscan version
plus a hash of that code), so a changed analyzer never reads stale results:

- `extract/`: one file's extraction result, keyed by its content hash (its git blob sha), its path
  (module names, and so the facts, depend on it) and whether it was catalogued;
- `catalog/`: a whole scan's catalog, keyed by every file's path and content hash plus the scan's
  options, so scanning an unchanged tree again skips even the whole-package analysis. When any
  file changed, that analysis is redone from the per-file entries.

An entry is data, never code: msgpack of errscan's records (msgspec), decoded into those types
only, so a cache folder shared with others cannot make errscan run anything. Each entry holds the
hash of its own key and a checksum of its payload: an entry put at another key's place, a corrupt
or truncated one, or a folder where an entry should be is a miss, recomputed and rewritten rather
than trusted. Entries are written atomically (a reader sees a whole entry or none); two scans
sharing the folder at once write identical bytes for identical keys, so either may win. A cache
that cannot be written (a full disk, a read-only folder) is still read; the scan goes on without
storing, and says so once.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, TypeVar

import msgspec

import errscan
from errscan.errors import UsageError
from errscan.extract import FileResult
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.runtime.fsutil import atomic_write_bytes
from errscan.model import Catalog, ErrorSite

_MAGIC = b"errscan-cache-2\n"
_DIGEST_SIZE = hashlib.sha256().digest_size
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
    write_error: str | None = None  # why entries could not be stored, the first time it happened


class ScanCache:
    def __init__(self, root: Path, analyzer: str | None = None, catalog_analyzer: str | None = None):
        self.folder = root / "extract" / (analyzer or analyzer_key())
        self.catalog_folder = root / "catalog" / (catalog_analyzer or analyzer_key(sources=_CATALOG_SOURCES))
        self.stats = CacheStats()
        self.writable = True  # False once a write failed: the scan goes on without storing

    def write_failed(self, reason: str) -> None:
        """Stop storing, and remember why for the one warning."""
        self.writable = False
        self.stats.write_error = self.stats.write_error or reason

    # per file

    def entry_path(self, path: str, digest: str, catalogued: bool, logs: LogCalls = GENERIC) -> Path:
        """Where one file's result is kept: by its content, path, whether it is catalogued and
        which calls were taken for log sites (the profile's, see `LogCalls`)."""
        return _sharded(self.folder, f"{digest}\0{path}\0{int(catalogued)}\0{logs.key()}")

    def get(self, path: str, digest: str, catalogued: bool, logs: LogCalls = GENERIC) -> FileResult | None:
        """The stored result, or None when absent or not intact (then counted as corrupt)."""
        result = self._load(self.entry_path(path, digest, catalogued, logs), _FILE_RESULT)
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
        catalog = self._load(entry, _CATALOG)
        if catalog is not None:
            self.stats.hits += files
        return catalog

    def put_catalog(self, entry: Path, catalog: Catalog) -> None:
        self.store(entry, encode(catalog))

    def store(self, entry: Path, payload: bytes) -> None:
        """Store an entry here, in this process; a failure only ends the storing (see `write_failed`)."""
        if self.writable:
            error = store_payload(entry, payload)
            if error is not None:
                self.write_failed(error)

    def _load(self, entry: Path, decoder: msgspec.msgpack.Decoder[T]) -> T | None:
        try:
            data = entry.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:  # a folder, or unreadable, where an entry should be
            data = b""
        value = _decode(data, _key_digest(entry), decoder)
        if value is None:
            self.stats.corrupt.append(entry)
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
        if not all(folder.is_dir() for folder in (cache.folder, cache.catalog_folder)):
            raise UsageError(f"cannot use the cache folder {root}: {exc.strerror or exc} (--cache-dir chooses another folder; --no-cache scans without one)") from exc
        cache.write_failed(exc.strerror or str(exc))  # there, but not writable: read it all the same
    return cache


def _sharded(folder: Path, key: str) -> Path:
    digest = hashlib.sha256(key.encode("utf-8", errors="surrogateescape")).hexdigest()
    return folder / digest[:2] / digest[2:]


_ENCODER = msgspec.msgpack.Encoder()
_FILE_RESULT = msgspec.msgpack.Decoder(FileResult)
_CATALOG = msgspec.msgpack.Decoder(Catalog)
_ERRORS = msgspec.msgpack.Decoder(list[ErrorSite])


def encode(value: FileResult | Catalog | list[ErrorSite]) -> bytes:
    """The payload an entry stores: also what a worker sends its parent, so it is encoded once."""
    return _ENCODER.encode(value)


def decode_result(payload: bytes) -> FileResult:
    return _FILE_RESULT.decode(payload)


def decode_catalog(payload: bytes) -> Catalog:
    return _CATALOG.decode(payload)


def decode_errors(payload: bytes) -> list[ErrorSite]:
    """A chunk of analysed errors, as a worker of the analysis sends them."""
    return _ERRORS.decode(payload)


def store_payload(entry: Path, payload: bytes) -> str | None:
    """Write an entry; safe from any process, and so done by the worker that made the result.
    Returns why it could not be written (the cache only saves time: that must not fail a scan)."""
    body = _MAGIC + _key_digest(entry) + hashlib.sha256(payload).digest() + payload
    try:
        atomic_write_bytes(entry, body)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _key_digest(entry: Path) -> bytes:
    """The hash of the key an entry's path was made from (see `_sharded`), kept inside the entry."""
    try:
        return bytes.fromhex(entry.parent.name + entry.name)
    except ValueError:
        return b""


def _decode(data: bytes, key: bytes, decoder: msgspec.msgpack.Decoder[T]) -> T | None:
    header = len(_MAGIC) + 2 * _DIGEST_SIZE
    if len(data) < header or not data.startswith(_MAGIC):
        return None
    stored_key = data[len(_MAGIC) : len(_MAGIC) + _DIGEST_SIZE]
    checksum, payload = data[len(_MAGIC) + _DIGEST_SIZE : header], data[header:]
    if stored_key != key or hashlib.sha256(payload).digest() != checksum:
        return None
    try:
        return decoder.decode(payload)
    except (msgspec.DecodeError, ValueError):  # checksum right, yet not this type: still only corrupt
        return None

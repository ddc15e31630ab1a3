"""A content-addressed cache of per-file extraction results, so a re-scan parses only changed files.

An entry is keyed by the file's content hash (its git blob sha), its path (module names and so
the facts depend on it) and whether it was catalogued, under a folder named for the analyzer: the
errscan version plus a hash of the extraction code, so a changed analyzer never reads stale
results. Entries are written atomically (a reader sees a whole entry or none) and carry a checksum,
so a corrupt or truncated entry is noticed, recomputed and rewritten rather than trusted. Two
scans sharing the folder at once write identical bytes for identical keys, so either may win.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path

import errscan
from errscan.extract import FileResult
from errscan.fsutil import atomic_write_bytes

_MAGIC = b"errscan-extract-1\n"
_CHECKSUM_SIZE = hashlib.sha256().digest_size
# The code whose output is cached: any edit to it changes the analyzer key.
_ANALYZER_SOURCES = ("extract", "model.py")


def analyzer_key(version: str | None = None) -> str:
    """errscan's version and a hash of the extraction sources, as one folder name."""
    package = Path(errscan.__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _ANALYZER_SOURCES:
        target = package / name
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        for path in files:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return f"{version or errscan.__version__}-{digest.hexdigest()[:16]}"


@dataclass
class CacheStats:
    """What one cache did, for progress lines and the one-time corruption report."""

    hits: int = 0
    misses: int = 0
    corrupt: list[Path] = field(default_factory=list)


class ExtractCache:
    def __init__(self, root: Path, analyzer: str | None = None):
        self.folder = root / "extract" / (analyzer or analyzer_key())
        self.stats = CacheStats()

    def entry_path(self, path: str, digest: str, catalogued: bool) -> Path:
        key = hashlib.sha256(f"{digest}\0{path}\0{int(catalogued)}".encode()).hexdigest()
        return self.folder / key[:2] / key[2:]

    def get(self, path: str, digest: str, catalogued: bool) -> FileResult | None:
        """The stored result, or None when absent or not intact (then counted as corrupt)."""
        entry = self.entry_path(path, digest, catalogued)
        try:
            data = entry.read_bytes()
        except FileNotFoundError:
            self.stats.misses += 1
            return None
        result = _decode(data)
        if result is None or result.path != path or result.digest != digest:
            self.stats.corrupt.append(entry)
            self.stats.misses += 1
            return None
        self.stats.hits += 1
        return result

    def put(self, result: FileResult, catalogued: bool) -> None:
        payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        entry = self.entry_path(result.path, result.digest, catalogued)
        atomic_write_bytes(entry, _MAGIC + hashlib.sha256(payload).digest() + payload)


def _decode(data: bytes) -> FileResult | None:
    header = len(_MAGIC) + _CHECKSUM_SIZE
    if len(data) < header or not data.startswith(_MAGIC):
        return None
    checksum, payload = data[len(_MAGIC) : header], data[header:]
    if hashlib.sha256(payload).digest() != checksum:
        return None
    try:
        result = pickle.loads(payload)
    except Exception:  # a payload that passed its checksum yet fails to load is still only corrupt
        return None
    return result if isinstance(result, FileResult) else None

"""The whole site, built beside `--out` and swapped in: a failed build leaves the old site as it was.

A marker (`.errscan-build`, written last) is what makes a folder an errscan site: it holds the
schema version, what the site was built from (so an unchanged catalog leaves the site untouched)
and every file errscan wrote there. A folder is replaced only when it is empty or holds that
marker and nothing but the files it lists: errscan deletes nothing it did not write.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Callable

import msgspec

from errscan.api.write import api_files, dump_json
from errscan.errors import ErrscanError, UsageError
from errscan.runtime.cache import analyzer_key
from errscan.runtime.fsutil import new_folder, swap_in_folder
from errscan.model import SCHEMA_VERSION, Catalog
from errscan.render.pages import environment, templates_dir, write, write_pages
from errscan.render.publish import write_publishing_files
from errscan.render.search import index_scripts


MARKER = ".errscan-build"
_MARKER_LIMIT = 64 << 20  # bytes; a whole-vLLM site's marker is a few hundred KB
# The top-level names errscan wrote in sites whose marker lists no files (made before it did).
_UNLISTED_SITE_NAMES = frozenset({MARKER, "api", "assets", "browse", "changes", "data", "errors", "index.html", "search"})


def write_site(
    catalog: Catalog, out: Path, jobs: int = 0, site_url: str | None = None,
    on_written: Callable[[int, int], None] | None = None,
) -> None:
    """Build the whole site beside `out`, then swap it in: a failed build leaves `out` as it was.

    Error pages are written by `jobs` processes (0: one per core); each page depends only on the
    catalog, so the files are the same whatever `jobs` is. When `out` is a symlink, the site is
    written where it leads and the link stays. `site_url`: where the site will be published
    (errscan.render.publish.site_url_option), for canonical links and a sitemap. `on_written(done,
    total)` follows the error pages, for progress.
    """
    out = check_site_target(out)
    fingerprint = build_fingerprint(catalog, site_url)
    marker = read_marker(out)
    if marker is not None and marker.get("build") == fingerprint:
        return  # the site there was built from this very catalog, by these templates
    build = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        build = new_folder(out.parent, f".{out.name}.build-")
        _write_files(catalog, build, jobs or os.cpu_count() or 1, site_url, on_written)
        files = sorted(p.relative_to(build).as_posix() for p in build.rglob("*") if not p.is_dir())
        document = {"build": fingerprint, "files": files, "schema_version": SCHEMA_VERSION}
        write(build / MARKER, dump_json(document))  # last: a partial build never has it
        check_site_target(out)  # again: the user may have put something there during the scan
        swap_in_folder(build, out)
    except OSError as exc:
        raise ErrscanError(f"cannot write the site to {out}: {exc.strerror or exc}") from exc
    finally:
        if build is not None:
            shutil.rmtree(build, ignore_errors=True)  # the old site, once the new one is in


def check_site_target(out: Path) -> Path:
    """The folder a site can be written to for `--out`, or UsageError; checked before a long scan too.

    That is `out` itself, or where it leads when it is a symlink (the link is kept, not replaced)."""
    if out.is_symlink():
        try:
            out = out.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # a loop of links: RuntimeError before Python 3.13
            raise UsageError(f"cannot write the site to {out}: it is a symlink that leads nowhere ({exc})") from exc
    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write the site to {out}: it is a file")
    if out.is_dir() and any(out.iterdir()):
        marker = read_marker(out)
        if marker is None:
            raise UsageError(f"refusing to replace {out}: it is not empty and not an errscan site")
        foreign = _foreign_file(out, marker)
        if foreign is not None:
            raise UsageError(
                f"refusing to replace {out}: errscan did not write {foreign} there; move it away or choose another --out"
            )
    if os.path.ismount(out):
        # The site is swapped in by renaming folders, and a mount point cannot be renamed.
        raise UsageError(f"cannot replace {out}: it is a mount point; give --out a folder inside it")
    # The site is built beside `out`: try making a folder where the first missing one would go
    # (making nothing that a failed scan would leave behind).
    existing = next(folder for folder in out.absolute().parents if folder.exists())
    try:
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        new_folder(existing, f".{out.name}.probe-").rmdir()
    except OSError as exc:
        raise UsageError(f"cannot write the site to {out}: {exc.strerror or exc}") from exc
    return out


def read_marker(folder: Path) -> dict | None:
    """The marker errscan leaves in every site it writes, or None when `folder` holds none."""
    path = folder / MARKER
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > _MARKER_LIMIT:
            return None
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or not isinstance(document.get("build"), str):
        return None
    files = document.get("files")
    if files is not None and not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
        return None
    return document


def _foreign_file(site: Path, marker: dict) -> str | None:
    """The first file or folder in `site` that errscan did not write, if any."""
    listed = marker.get("files")
    if listed is None:
        return next((p.name for p in sorted(site.iterdir()) if p.name not in _UNLISTED_SITE_NAMES), None)
    written = set(listed) | {MARKER}
    folders = {parent for name in written for parent in Path(name).parents}
    for path in sorted(site.rglob("*")):
        relative = path.relative_to(site)
        if relative.as_posix() not in written and (path.is_symlink() or not path.is_dir() or relative not in folders):
            return relative.as_posix()
    return None


# The code that turns a catalog into files: an edit to it must rebuild the site.
_RENDER_SOURCES = ("render", "api", "model.py")


def build_fingerprint(catalog: Catalog, site_url: str | None = None) -> str:
    """What a site is made from: the catalog (timings aside), errscan's version, the code and
    templates that render it, and the address it is published at.

    The catalog is hashed as a pickle without memo (`fast`): the bytes then depend on its values
    alone, not on which objects happen to be shared, and it takes a fifth of printing it as JSON.
    """
    digest = hashlib.sha256(analyzer_key(sources=_RENDER_SOURCES).encode() + b"\0" + (site_url or "").encode())
    unstamped = msgspec.structs.replace(catalog, summary=msgspec.structs.replace(catalog.summary, stage_seconds={}))
    pickler = pickle.Pickler(_Digesting(digest), protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # the catalog is a tree: no memo needed, and none wanted
    pickler.dump(unstamped)
    for path in sorted(templates_dir().rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(templates_dir()).as_posix().encode() + b"\0" + path.read_bytes())
    return dump_json({"build": digest.hexdigest()})


class _Digesting:
    """A file-like sink that feeds what is written to a hash."""

    def __init__(self, digest: "hashlib._Hash"):
        self.write = digest.update


def _write_files(
    catalog: Catalog, root: Path, jobs: int, site_url: str | None, on_written: Callable[[int, int], None] | None
) -> None:
    for relative, text in api_files(catalog).items():
        write(root / relative, text)
    for name in ("style.css", "site.js", "lookup.js", "minisearch.js", "page.js"):
        write(root / "assets" / name, (templates_dir() / "assets" / name).read_text("utf-8"))
    for name, text in index_scripts(catalog).items():
        write(root / "data" / name, text)
    write_pages(catalog, root, jobs, site_url, on_written)
    write_publishing_files(catalog, root, environment(), site_url, write)

"""The whole site, built beside `--out` and swapped in: a failed build leaves the old site as it was.

A stamp (`.errscan-build`) holds what the site was built from, so an unchanged catalog leaves the
site untouched.
"""

from __future__ import annotations

import errno
import hashlib
import os
import pickle
import shutil
from pathlib import Path

import msgspec

from errscan import __version__
from errscan.api.write import api_files, dump_json
from errscan.errors import ErrscanError, UsageError
from errscan.runtime.fsutil import new_folder, swap_in_folder
from errscan.model import Catalog
from errscan.render.pages import environment, templates_dir, write, write_pages
from errscan.render.publish import write_publishing_files
from errscan.render.search import index_scripts


def write_site(catalog: Catalog, out: Path, jobs: int = 0, site_url: str | None = None) -> None:
    """Build the whole site beside `out`, then swap it in: a failed build leaves `out` as it was.

    Error pages are written by `jobs` processes (0: one per core); each page depends only on the
    catalog, so the files are the same whatever `jobs` is. `site_url`: where the site will be
    published (errscan.render.publish.site_url_option), for canonical links and a sitemap.
    """
    check_site_target(out)
    fingerprint = build_fingerprint(catalog, site_url)
    stamp = out / ".errscan-build"
    if stamp.is_file() and stamp.read_text("utf-8") == fingerprint:
        return  # the site there was built from this very catalog, by these templates
    build = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        build = new_folder(out.parent, f".{out.name}.build-")
        _write_files(catalog, build, jobs or os.cpu_count() or 1, site_url)
        write(build / ".errscan-build", fingerprint)  # last: a partial build never has it
        swap_in_folder(build, out)
    except OSError as exc:
        raise ErrscanError(f"cannot write the site to {out}: {exc.strerror or exc}") from exc
    finally:
        if build is not None:
            shutil.rmtree(build, ignore_errors=True)  # gone already when it was swapped in


def check_site_target(out: Path) -> None:
    """Raise UsageError unless a site can be written to `out`: checked before a long scan too."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write the site to {out}: it is a file")
    if out.is_dir() and any(out.iterdir()) and not (out / "api" / "index.json").is_file():
        raise UsageError(f"refusing to replace {out}: it is not empty and not an errscan site")
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


def build_fingerprint(catalog: Catalog, site_url: str | None = None) -> str:
    """What a site is made from: the catalog (timings aside), errscan's version, its templates and
    the address it is published at.

    The catalog is hashed as a pickle without memo (`fast`): the bytes then depend on its values
    alone, not on which objects happen to be shared, and it takes a fifth of printing it as JSON.
    """
    digest = hashlib.sha256(__version__.encode() + b"\0" + (site_url or "").encode())
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


def _write_files(catalog: Catalog, root: Path, jobs: int, site_url: str | None) -> None:
    for relative, text in api_files(catalog).items():
        write(root / relative, text)
    for name in ("style.css", "site.js", "minisearch.js", "page.js"):
        write(root / "assets" / name, (templates_dir() / "assets" / name).read_text("utf-8"))
    for name, text in index_scripts(catalog).items():
        write(root / "data" / name, text)
    write_pages(catalog, root, jobs, site_url)
    write_publishing_files(catalog, root, environment(), site_url, write)

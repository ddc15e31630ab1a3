"""The two sides `errscan diff` compares: a published site, a release, or a git revision."""

from __future__ import annotations

from pathlib import Path

from errscan.errors import UsageError
from errscan.history import Revision, scan_revision
from errscan.model import Catalog
from errscan.profiles import Profile
from errscan.progress import Progress
from errscan.render import read_site
from errscan.scan import ScanOptions
from errscan.sources import open_source


def load_side(
    spec: str,
    *,
    git_dir: Path | None,
    profile: Profile,
    options: ScanOptions,
    cache_dir: Path,
    progress: Progress,
    position: int,
) -> tuple[str, Catalog]:
    """(label, catalog) of one side: with `git_dir` a revision; else `<dist>==X.Y.Z`; else a site."""
    if git_dir is not None:
        revision = Revision(
            spec, lambda: open_source(str(git_dir), profile=profile, commit=spec, cache_dir=cache_dir)
        )
    elif spec.startswith(f"{profile.distribution}=="):
        version = spec.partition("==")[2]
        revision = Revision(
            version, lambda: open_source(None, profile=profile, release=version, cache_dir=cache_dir)
        )
    elif (site := _site_root(Path(spec))) is not None:
        catalog = read_site(site)
        return catalog.version or (catalog.commit or "")[:10] or spec, catalog
    else:
        raise UsageError(
            f"{spec}: not a site folder, an api/index.json, {profile.distribution}==X.Y.Z, "
            "or (with --git DIR) a git revision"
        )
    ref, catalog = scan_revision(revision, options, progress, position, 2)
    return ref.label, catalog


def _site_root(path: Path) -> Path | None:
    """The site a folder or an `api/index.json` belongs to, if it is one."""
    if path.is_file() and path.name == "index.json" and path.parent.name == "api":
        return path.parent.parent
    return path if (path / "api" / "index.json").is_file() else None

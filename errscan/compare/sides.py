"""The two sides `errscan diff` compares: a published site, a release, or a git revision."""

from __future__ import annotations

from pathlib import Path

from errscan.errors import UsageError
from errscan.model import Catalog
from errscan.profiles import Profile
from errscan.api.read import read_site
from errscan.request import Revision
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions, scan_each
from errscan.sources import open_source


def load_sides(
    specs: list[str], *, git_dir: Path | None, options: ScanOptions, cache_dir: Path, progress: Progress
) -> list[tuple[str, Catalog]]:
    """(label, catalog) of each side. A side is, with `git_dir`, a revision; else `<dist>==X.Y.Z`;
    else a site. The sides to scan are scanned together, sharing what their files share."""
    sides: list[tuple[str, Catalog] | Revision] = [_side(spec, git_dir, options.profile, cache_dir) for spec in specs]
    revisions = [side for side in sides if isinstance(side, Revision)]
    scanned = iter(scan_each(revisions, options, progress))
    loaded = []
    for side in sides:
        if isinstance(side, Revision):
            ref, catalog = next(scanned)
            side = (ref.label, catalog)
        loaded.append(side)
    return loaded


def _side(spec: str, git_dir: Path | None, profile: Profile, cache_dir: Path) -> tuple[str, Catalog] | Revision:
    """A side read at once (a site), or the revision to scan."""
    if git_dir is not None:
        return Revision(spec, lambda: open_source(str(git_dir), profile=profile, commit=spec, cache_dir=cache_dir))
    if spec.startswith(f"{profile.distribution}=="):
        version = spec.partition("==")[2]
        return Revision(version, lambda: open_source(None, profile=profile, release=version, cache_dir=cache_dir), fetches=True)
    if (site := _site_root(Path(spec))) is not None:
        catalog = read_site(site)
        return catalog.version or (catalog.commit or "")[:10] or spec, catalog
    raise UsageError(
        f"{spec}: not a site folder, an api/index.json, {profile.distribution}==X.Y.Z, "
        "or (with --git DIR) a git revision"
    )


def _site_root(path: Path) -> Path | None:
    """The site a folder or an `api/index.json` belongs to, if it is one."""
    if path.is_file() and path.name == "index.json" and path.parent.name == "api":
        return path.parent.parent
    return path if (path / "api" / "index.json").is_file() else None

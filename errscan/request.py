"""What to scan, as `scan`, `lookup` and `diff` are told it: one object built from their options.

Light on purpose (no parser, graph or template library is imported): `errscan lookup` builds one
even when it only reads a site.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from errscan.errors import UsageError
from errscan.profiles import Profile
from errscan.profiles.vllm import VLLM

if TYPE_CHECKING:  # the sources and globs are loaded when a scan is asked for, not by `lookup --site`
    from errscan.scope import Scope
    from errscan.sources import Source


@dataclass(frozen=True)
class Revision:
    """A release or git revision to scan, opened only when its turn comes (fetching can be slow)."""

    name: str  # as the user gave it: "0.25.1", "v0.25.1", a sha
    open: Callable[[], Source]
    fetches: bool = False  # a release: opening it may fetch it with pip first


@dataclass(frozen=True)
class ScanRequest:
    src: str | None = None  # a folder, or a git repository with `commits`
    commits: tuple[str, ...] = ()  # git revisions of `src`, oldest first
    releases: tuple[str, ...] = ()  # release versions, in any order
    release_range: tuple[str, str] | None = None  # every release pip lists from the first to the last
    repo: str = VLLM.repo  # OWNER/NAME that links point to
    include: tuple[str, ...] = ()  # globs of the files to catalogue; none: the profile's default
    exclude: tuple[str, ...] = ()
    jobs: int = 0  # processes; 0: one per core
    cache_dir: Path | None = None  # None: `default_cache_dir()`
    no_cache: bool = False  # parse every file; read and write no extraction results
    profile: Profile = VLLM

    @property
    def cache_root(self) -> Path:
        from errscan.runtime.cachedir import default_cache_dir

        return self.cache_dir or default_cache_dir()

    def scope(self) -> Scope:
        from errscan.scope import Scope

        return Scope(self.include or self.profile.default_include, self.exclude)

    def revisions(self) -> list[Revision]:
        """What to scan, oldest first: releases sorted by version, commits in the order given."""
        from errscan.sources import open_source
        from errscan.sources.release import releases_between, sort_versions

        open_here = partial(open_source, profile=self.profile, cache_dir=self.cache_root)
        releases = list(self.releases)
        if self.release_range is not None:
            if releases:
                raise UsageError("give either --release or --releases, not both")
            releases = releases_between(*self.release_range, profile=self.profile)
        if releases:
            if self.src is not None or self.commits:
                raise UsageError("--release reads the package index; give no SRC and no --commit with it")
            return [Revision(v, partial(open_here, None, release=v), fetches=True) for v in sort_versions(releases)]
        if not self.commits:
            return [Revision(self.src or "", partial(open_here, self.src))]
        return [Revision(rev, partial(open_here, self.src, commit=rev)) for rev in dict.fromkeys(self.commits)]

    def notes(self) -> list[str]:
        """What the user should know before the scan: commits given out of order."""
        if self.src is None or len(self.commits) < 2:
            return []
        from errscan.sources.git import order_notes

        return order_notes(Path(self.src), list(dict.fromkeys(self.commits)))

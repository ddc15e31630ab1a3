"""Errors across releases: one catalog whose errors carry their history, oldest release first.

Consecutive releases are paired with `errscan.compare.pairing.match_errors`; an error paired from
one release to the next is the same error (a lineage), even if its id changed. An error absent from
a release and back later with the id it had keeps its lineage. Per lineage:

- `first_seen`: the first release that raises it;
- `last_changed`: the last release where its message, exception, condition, knobs, file or
  function differed from the release before (a move of lines alone is no change);
- `removed_since`: the first release that no longer raises it, if the latest does not;
- `aliases`: the ids it had before its current one; their pages lead to the current page.

The latest release is the catalog's main content; errors no longer raised are kept in `retired`.
"""

from __future__ import annotations


import msgspec

from errscan.compare.changes import diff_matched, field_changes, only_lines_moved
from errscan.compare.pairing import match_errors
from errscan.model import Catalog, CatalogDiff, ErrorSite, History, ReleaseRef, ReleaseState
from errscan.request import Revision
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions, scan_each


def scan_revisions(revisions: list[Revision], options: ScanOptions, progress: Progress) -> Catalog:
    """Scan each revision, oldest first; one catalog, with history when there are several (one
    commit given under two names counts once)."""
    snapshots = _first_of_each_commit(revisions, scan_each(revisions, options, progress), progress)
    if len(snapshots) == 1:
        return snapshots[0][1]
    return build_history(_unique_labels(snapshots))


def build_history(snapshots: list[tuple[ReleaseRef, Catalog]]) -> Catalog:
    """The latest catalog, its errors carrying history, plus retired errors, aliases and diffs."""
    lineages: list[dict[int, ErrorSite]] = []  # per lineage: release position -> the error there
    current: dict[str, int] = {}  # id in the previous release -> lineage
    ended: dict[str, int] = {}  # last id of a lineage absent from the previous release -> lineage
    changes: list[CatalogDiff] = []
    for position, (ref, catalog) in enumerate(snapshots):
        following: dict[str, int] = {}
        if position:
            previous_ref, previous = snapshots[position - 1]
            matches = match_errors(previous.errors, catalog.errors, previous.files, catalog.files)
            changes.append(diff_matched(previous.errors, catalog.errors, matches, previous_ref.label, ref.label))
            for match in matches:
                following[match.new.id] = current.pop(match.old.id)
            ended.update({lineages[i][max(lineages[i])].id: i for i in current.values()})
        for error in catalog.errors:
            if error.id not in following:
                lineage = ended.pop(error.id, None)
                if lineage is None:
                    lineages.append({})
                    lineage = len(lineages) - 1
                following[error.id] = lineage
            lineages[following[error.id]][position] = error
        current = following
    refs = [ref for ref, _ in snapshots]
    finals = [_with_history(lineage, refs) for lineage in lineages]
    latest = len(snapshots) - 1
    live = {lineages[i][latest].id: final for i, final in enumerate(finals) if latest in lineages[i]}
    latest_catalog = snapshots[-1][1]
    retired = sorted(
        (final for i, final in enumerate(finals) if latest not in lineages[i] and final.id not in live),
        key=lambda e: (e.path, e.line, e.id),
    )
    page_ids = set(live) | {e.id for e in retired}
    return msgspec.structs.replace(
        latest_catalog,
        errors=tuple(live[e.id] for e in latest_catalog.errors),
        releases=tuple(refs),
        retired=tuple(retired),
        aliases=_aliases(lineages, finals, page_ids),
        changes=tuple(changes),
    )


def _with_history(lineage: dict[int, ErrorSite], refs: list[ReleaseRef]) -> ErrorSite:
    positions = sorted(lineage)
    final = lineage[positions[-1]]
    states = tuple(
        ReleaseState(ref.label, True, ref.commit, e.id, e.path, e.line, e.message)
        if (e := lineage.get(position)) is not None
        else ReleaseState(ref.label, False)
        for position, ref in enumerate(refs)
    )
    last_changed = None
    for before, after in zip(positions, positions[1:]):
        if _changed(lineage[before], lineage[after]):
            last_changed = refs[after].label
    removed_since = refs[positions[-1] + 1].label if positions[-1] + 1 < len(refs) else None
    aliases = tuple(dict.fromkeys(lineage[p].id for p in positions if lineage[p].id != final.id))
    history = History(states, refs[positions[0]].label, last_changed, removed_since, aliases)
    return msgspec.structs.replace(final, history=history)


def _changed(before: ErrorSite, after: ErrorSite) -> bool:
    fields = [c.field for c in field_changes(before, after)]
    return bool(fields) and not only_lines_moved(fields, before, after)


def _aliases(lineages: list[dict[int, ErrorSite]], finals: list[ErrorSite], page_ids: set[str]) -> dict[str, str]:
    """Earlier id -> current id; an id that still has its own page is never an alias."""
    held: dict[str, tuple[int, str]] = {}  # alias -> (latest position it was held at, final id)
    for lineage, final in zip(lineages, finals):
        for position, error in lineage.items():
            if error.id != final.id and error.id not in page_ids:
                if error.id not in held or held[error.id][0] < position:
                    held[error.id] = (position, final.id)
    return {alias: held[alias][1] for alias in sorted(held)}


def _first_of_each_commit(
    revisions: list[Revision], snapshots: list[tuple[ReleaseRef, Catalog]], progress: Progress
) -> list[tuple[ReleaseRef, Catalog]]:
    """One snapshot per commit: the same commit under two names (a tag and its sha) is one release."""
    kept: dict[str, str] = {}  # commit -> the name it was first given as
    unique = []
    for revision, (ref, catalog) in zip(revisions, snapshots):
        if ref.commit is not None and ref.commit in kept:
            progress.note(f"{revision.name} is the same commit as {kept[ref.commit]}: read once")
            continue
        if ref.commit is not None:
            kept[ref.commit] = revision.name
        unique.append((ref, catalog))
    return unique


def _unique_labels(snapshots: list[tuple[ReleaseRef, Catalog]]) -> list[tuple[ReleaseRef, Catalog]]:
    """Two revisions with one version (commits between releases) are told apart by commit."""
    counts: dict[str, int] = {}
    for ref, _ in snapshots:
        counts[ref.label] = counts.get(ref.label, 0) + 1
    return [
        (msgspec.structs.replace(ref, label=f"{ref.label}@{(ref.commit or '')[:10]}") if counts[ref.label] > 1 else ref, c)
        for ref, c in snapshots
    ]

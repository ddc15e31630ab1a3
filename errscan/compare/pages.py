"""What only a site over several releases has: aliases, `changes/` per pair, history lists.

Called by `errscan.render` with its template environment and writers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from errscan.compare.changes import headline, split_changes
from errscan.model import Catalog, CatalogDiff, to_dict

if TYPE_CHECKING:
    import jinja2

Write = Callable[[Path, str], None]


def slug(label: str) -> str:
    """A release label as one safe path segment."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label)


def changes_path(diff: CatalogDiff) -> str:
    return f"changes/{slug(diff.old)}..{slug(diff.new)}/index.html"


def history_index_fields(catalog: Catalog) -> dict[str, Any]:
    """What `api/index.json` adds for a history site (nothing for a single scan).

    Retired errors and the diffs are listed under names of their own (`no_longer_raised`,
    `change_pages`): they are summaries, not the Catalog fields of the same meaning.
    """
    if not catalog.releases:
        return {}
    return {
        "releases": to_dict(catalog.releases),
        "aliases": dict(catalog.aliases),
        "no_longer_raised": [
            {"id": e.id, "exception": e.exception, "message": e.message, "path": e.path, "line": e.line,
             "removed_since": e.removed_since}
            for e in catalog.retired
        ],
        "change_pages": [
            {"old": d.old, "new": d.new, "json": f"api/changes/{slug(d.old)}..{slug(d.new)}.json"}
            for d in catalog.changes
        ],
    }


def write_history_files(
    catalog: Catalog, root: Path, env: jinja2.Environment, common: dict[str, Any], write: Write, dump: Callable[[Any], str]
) -> None:
    """Alias pages and JSON that lead to the current id, and one changes page per release pair."""
    alias_page = env.get_template("history/alias.html")
    for alias, target in catalog.aliases.items():
        write(root / "api" / "errors" / f"{alias}.json",
              dump({"schema_version": catalog.schema_version, "id": alias, "alias_of": target}))
        write(root / "errors" / alias / "index.html",
              alias_page.render(alias=alias, target=target, root="../../", **common))
    changes_page = env.get_template("history/changes.html")
    for diff in catalog.changes:
        write(root / "api" / "changes" / f"{slug(diff.old)}..{slug(diff.new)}.json", dump(to_dict(diff)))
        changed, moved = split_changes(diff)
        page = changes_page.render(
            diff=diff, headline=headline(diff), changed=changed, moved=moved, root="../../", **common
        )
        write(root / changes_path(diff), page)

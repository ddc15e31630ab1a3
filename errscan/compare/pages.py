"""What only a site over several releases has: aliases, `changes/` per pair, history lists.

Called by `errscan.render` with its template environment and writers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from errscan.api.layout import slug
from errscan.compare.changes import headline, split_changes
from errscan.model import Catalog, CatalogDiff

if TYPE_CHECKING:
    import jinja2

Write = Callable[[Path, str], None]


def changes_path(diff: CatalogDiff) -> str:
    return f"changes/{slug(diff.old)}..{slug(diff.new)}/index.html"


def write_history_files(catalog: Catalog, root: Path, env: jinja2.Environment, common: dict[str, Any], write: Write) -> None:
    """Alias pages that lead to the current id, and one changes page per release pair (their JSON
    is written by errscan.api)."""
    alias_page = env.get_template("history/alias.html")
    for alias, target in catalog.aliases.items():
        write(root / "errors" / alias / "index.html",
              alias_page.render(alias=alias, target=target, root="../../", **common))
    changes_page = env.get_template("history/changes.html")
    for diff in catalog.changes:
        changed, moved = split_changes(diff)
        page = changes_page.render(
            diff=diff, headline=headline(diff), changed=changed, moved=moved, root="../../",
            here=changes_path(diff).removesuffix("index.html"), **common,
        )
        write(root / changes_path(diff), page)

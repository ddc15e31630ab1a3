"""Browse: the errors grouped by subsystem, by connector and by file, each group on its own paged list.

A subsystem is a top-level package (or module) of the scanned package: the first two parts of a
path, `pkg/sub` of `pkg/sub/x/y.py`, so that the whole of a large package reads as its parts."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass

from errscan.model import Catalog, ErrorSite

PAGE_SIZE = 200  # errors per group page
UNATTRIBUTED = "no connector determined"


@dataclass(frozen=True)
class Group:
    axis: str  # "subsystem" | "connector" | "file"
    name: str
    errors: tuple[ErrorSite, ...]

    @property
    def slug(self) -> str:
        if self.axis == "connector" and self.name == UNATTRIBUTED:
            return "connector-_none"
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.name)
        if safe != self.name:  # keep `a/b_c.py` and `a_b/c.py` apart
            safe += "-" + hashlib.sha256(self.name.encode("utf-8")).hexdigest()[:8]
        return f"{self.axis}-{safe}"

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.errors) // PAGE_SIZE))

    def page_name(self, number: int) -> str:
        """File name of page `number` (1-based) under browse/."""
        return f"{self.slug}.html" if number == 1 else f"{self.slug}-p{number}.html"

    def page_errors(self, number: int) -> tuple[ErrorSite, ...]:
        return self.errors[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]


def groups(catalog: Catalog, axis: str) -> list[Group]:
    """Groups along `axis`, sorted by name; an error with several connectors is in each of them."""
    members: dict[str, list[ErrorSite]] = defaultdict(list)
    for error in catalog.errors:
        if axis == "file":
            names = [error.path]
        elif axis == "subsystem":
            names = [subsystem(error.path)]
        else:
            names = list(error.connectors) or [UNATTRIBUTED]
        for name in names:
            members[name].append(error)
    ordered = sorted(members, key=lambda n: (n == UNATTRIBUTED, n))
    return [Group(axis, n, tuple(sorted(members[n], key=lambda e: (e.path, e.line, e.id)))) for n in ordered]


def subsystem(path: str) -> str:
    """`pkg/sub` for `pkg/sub/x/y.py`; a file at the top (`pkg/x.py`) is its own."""
    return "/".join(path.split("/")[:2])


def facet_counts(catalog: Catalog) -> dict[str, list[tuple[str, int]]]:
    """Values of each filter with how many errors have them, for the filter menus."""
    counts: dict[str, dict[str, int]] = {"exception": defaultdict(int), "connector": defaultdict(int), "kind": defaultdict(int)}
    for error in catalog.errors:
        if error.exception:  # a logger's record names none: the kind filter finds those
            counts["exception"][error.exception] += 1
        counts["kind"][error.kind] += 1
        for name in error.connectors:
            counts["connector"][name] += 1
    return {facet: sorted(values.items()) for facet, values in counts.items()}

"""Related errors: sites that share a function, a file and class, a template, a connector or a knob."""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable

from errscan.model import Catalog, ErrorSite

PER_REASON = 8  # closest sites listed per reason, so a page stays short at 13,000 errors


@dataclass(frozen=True)
class Related:
    error: ErrorSite
    reason: str


def _keys_same_function(e: ErrorSite) -> Iterable[tuple]:
    yield (e.path, e.function)


def _keys_same_class_in_file(e: ErrorSite) -> Iterable[tuple]:
    yield (e.path, e.exception.rsplit(".", 1)[-1])


def _keys_same_message(e: ErrorSite) -> Iterable[tuple]:
    if e.message:
        yield (e.message,)


def _keys_connectors(e: ErrorSite) -> Iterable[tuple]:
    yield from ((c,) for c in (e.trigger.connectors if e.trigger else ()))


def _keys_knobs(e: ErrorSite) -> Iterable[tuple]:
    yield from ((k.kind.replace("_", " "), k.name) for k in (e.trigger.knobs if e.trigger else ()))


_REASONS: tuple[tuple[str, Callable[[ErrorSite], Iterable[tuple]], Callable[[tuple], str]], ...] = (
    ("function", _keys_same_function, lambda k: f"same function `{k[1]}`"),
    ("class", _keys_same_class_in_file, lambda k: f"same exception `{k[1]}` in the same file"),
    ("message", _keys_same_message, lambda k: "same message template"),
    ("connector", _keys_connectors, lambda k: f"same connector `{k[0]}`"),
    ("knob", _keys_knobs, lambda k: f"same {k[0]} `{k[1]}`"),
)


def related_errors(catalog: Catalog) -> dict[str, list[Related]]:
    """For every error, its related ones, each listed once under the first reason that links them.

    Relations the analysis found (`Trigger.related`) come first; then those the catalog shows here.
    """
    groups: dict[tuple, list[ErrorSite]] = defaultdict(list)
    for error in catalog.errors:
        for name, keys, _ in _REASONS:
            for key in keys(error):
                groups[(name, *key)].append(error)
    by_id = catalog.by_id()
    result: dict[str, list[Related]] = {}
    for error in catalog.errors:
        seen = {error.id}
        found: list[Related] = []
        for given in (error.trigger.related if error.trigger else ()):
            if given.id in by_id and given.id not in seen:
                seen.add(given.id)
                found.append(Related(by_id[given.id], given.reason))
        for name, keys, describe in _REASONS:
            for key in keys(error):
                members = (m for m in groups[(name, *key)] if m.id not in seen)
                nearest = heapq.nsmallest(
                    PER_REASON, members, key=lambda m: (m.path != error.path, abs(m.line - error.line), m.path, m.line, m.id)
                )
                for member in nearest:
                    seen.add(member.id)
                    found.append(Related(member, describe(key)))
        result[error.id] = found
    return result

"""Related errors: ranked neighbours of an error, each with the reason it is related.

Reasons, strongest first: the same function; the same exception class in the same file; the same
message template; a shared setting (knob); a shared connector; a similar message (word overlap);
the same file. Within a reason the nearest sites come first, and each error is listed once.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Callable, Iterable

from errscan.match import compile_template
from errscan.model import ErrorSite, Related

PER_REASON = 4  # nearest sites listed per reason, so that a page stays short at 13,000 errors
MAX_RELATED = 12
_RARE = 50  # only words shared by at most this many errors make two messages similar


def _words(template: str) -> frozenset[str]:
    """The words of a template's literal text, as lookup and search see them (one letter is none)."""
    return frozenset(w for w in compile_template(template).words if len(w) > 1)


_REASONS: tuple[tuple[str, Callable[[ErrorSite], Iterable[tuple]], Callable[[tuple], str]], ...] = (
    ("function", lambda e: [(e.path, e.function)], lambda k: f"raised in the same function, `{k[1]}`"),
    ("class", lambda e: [(e.path, e.exception.rsplit(".", 1)[-1])], lambda k: f"the same exception `{k[1]}` in the same file"),
    ("message", lambda e: [(e.message,)] if e.message else [], lambda k: "the same message template"),
    ("knob", lambda e: [(k.kind.replace("_", " "), k.name) for k in e.trigger.knobs if k.kind != "connector"] if e.trigger else [],
     lambda k: f"depends on the same {k[0]} `{k[1]}`"),
    ("connector", lambda e: [(c,) for c in e.trigger.connectors] if e.trigger else [],
     lambda k: f"reached through the same connector `{k[0]}`"),
)


def related_errors(errors: list[ErrorSite]) -> dict[str, tuple[Related, ...]]:
    groups: dict[tuple, list[ErrorSite]] = defaultdict(list)
    for error in errors:
        for name, keys, _ in _REASONS:
            for key in keys(error):
                groups[(name, *key)].append(error)
    words = {e.id: _words(e.message) for e in errors}
    by_word: dict[str, list[ErrorSite]] = defaultdict(list)
    for error in errors:
        for word in words[error.id]:
            by_word[word].append(error)
    by_file: dict[str, list[ErrorSite]] = defaultdict(list)
    for error in errors:
        by_file[error.path].append(error)

    result = {}
    for error in errors:
        seen, found = {error.id}, []

        def nearest(members: Iterable[ErrorSite], reason: str) -> None:
            fresh = [m for m in members if m.id not in seen]
            closest = heapq.nsmallest(
                PER_REASON, fresh, key=lambda m: (m.path != error.path, abs(m.line - error.line), m.path, m.line, m.id)
            )
            for member in closest:
                seen.add(member.id)
                found.append(Related(member.id, reason))

        for name, keys, describe in _REASONS:
            for key in keys(error):
                nearest(groups[(name, *key)], describe(key))
        mine = words[error.id]
        if len(mine) >= 3:
            candidates = {m.id: m for w in mine if len(by_word[w]) <= _RARE for m in by_word[w]}
            similar = [m for m in candidates.values() if len(mine & words[m.id]) / len(mine | words[m.id]) >= 0.5]
            nearest(similar, "a similar message")
        nearest(by_file[error.path], "raised in the same file")
        result[error.id] = tuple(found[:MAX_RELATED])
    return result

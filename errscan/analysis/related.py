"""Related errors: ranked neighbours of an error, each with the reason it is related."""

from __future__ import annotations

import re

from errscan.model import ErrorSite, Related

MAX_RELATED = 6
_RARE = 50
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def _words(template: str) -> frozenset[str]:
    literal = re.sub(r"\{[^{}]*\}", " ", template)
    return frozenset(w.lower() for w in _WORD.findall(literal))


def related_errors(errors: list[ErrorSite], knobs: dict[str, set[str]]) -> dict[str, tuple[Related, ...]]:
    """Same function, shared settings, similar messages, same file: in that order of strength."""
    words = {e.id: _words(e.message) for e in errors}
    by_file: dict[str, list[ErrorSite]] = {}
    for error in errors:
        by_file.setdefault(error.path, []).append(error)
    by_word: dict[str, list[str]] = {}
    for error_id, found in words.items():
        for word in found:
            by_word.setdefault(word, []).append(error_id)
    by_knob: dict[str, list[str]] = {}
    for error_id, names in knobs.items():
        for name in names:
            by_knob.setdefault(name, []).append(error_id)
    result = {}
    for error in errors:
        ranked: dict[str, tuple[int, str]] = {}

        def offer(other: str, rank: int, reason: str) -> None:
            if other != error.id and (other not in ranked or ranked[other][0] > rank):
                ranked[other] = (rank, reason)

        for other in by_file[error.path]:
            if other.function == error.function:
                offer(other.id, 0, f"raised in the same function, {error.function}")
        for name in sorted(knobs.get(error.id, ())):
            for other in by_knob[name][:50]:
                offer(other, 1, f"depends on the same setting {name}")
        mine = words[error.id]
        if len(mine) >= 3:
            # Only words shared by few errors can make two messages similar enough to count.
            candidates = {i for w in mine if len(by_word[w]) <= _RARE for i in by_word[w]}
            for other in sorted(candidates):
                theirs = words[other]
                if len(mine & theirs) / len(mine | theirs) >= 0.5:
                    offer(other, 2, "similar message")
        for other in by_file[error.path]:
            offer(other.id, 3, f"raised in the same file, {error.path}")
        order = sorted(ranked.items(), key=lambda item: (item[1][0], item[0]))
        result[error.id] = tuple(Related(i, reason) for i, (_, reason) in order[:MAX_RELATED])
    return result

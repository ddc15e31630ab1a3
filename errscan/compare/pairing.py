"""Which error of one catalog is which error of another: the pairs `changes` and `history` build on.

Errors are paired in three passes, each error at most once:

1. **Identical twins** (the same file, function, exception and template, so ids that differ only
   by their order) pair by how many of their nearest code lines above and below agree (the
   nearest counting most), best first: deleting one twin renumbers the others, so their ids
   alone would pair the wrong ones.
2. **Same id.** The id hashes file, function, exception, template and twin ordinal, so an error
   that only moved lines keeps it.
3. **Similarity**, for what is left. An old and a new error of the same kind (raise or assert)
   are candidates when both hold:
   - *place*: the same path; or a renamed path (the old file is gone from NEW, the new file was
     not catalogued in OLD, and the two have the same name or raise from a function of the same
     name); or the same function name (other than `<module>`); or, anywhere, the same exception
     and the same template with at least 12 characters of literal text (a raise moved to another
     file or class);
   - *content*: the same exception and either templates at least 50% alike word by word with at
     least 3 words in common, or the code around the raise (3 lines each side) at least 60%
     alike; or another exception with templates at least 90% alike. An empty template is like no
     other.
   Candidates pair best first by template likeness + code likeness + same function + same path,
   ties broken by ids, so the result does not depend on input order.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from errscan.ids import normalize
from errscan.match import split_template
from errscan.model import ErrorSite

TEMPLATE_ALIKE = 0.5
TEMPLATE_WORDS_SHARED = 3  # and at least this many words in common: "X cannot be Y" is not enough
SAME_TEMPLATE_LITERAL = 12  # literal characters a template needs to pair by itself anywhere
CODE_ALIKE = 0.6
TEMPLATE_ALIKE_OTHER_EXCEPTION = 0.9
CODE_CONTEXT = 3  # lines each side of the raise compared for likeness
MODULE_SCOPE = "<module>"


@dataclass(frozen=True)
class Match:
    old: ErrorSite
    new: ErrorSite
    rule: str  # "twin", "id", or the place rule that let the pair be compared: "path", "renamed-path", "function", "message"


def match_errors(
    old: Iterable[ErrorSite], new: Iterable[ErrorSite], old_files: Iterable[str] = (), new_files: Iterable[str] = ()
) -> list[Match]:
    """Pairs of the same error across two catalogs: twins, then ids, then similarity (see above).

    `old_files` and `new_files` are the files each side catalogued (a catalog read from an older
    site may not list them: then the files that hold an error stand in)."""
    old_by_id = {e.id: e for e in old}
    new_by_id = {e.id: e for e in new}
    old_paths = set(old_files) or {e.path for e in old_by_id.values()}
    new_paths = set(new_files) or {e.path for e in new_by_id.values()}
    matches = _best_first(_twin_candidates(old_by_id.values(), new_by_id.values()), set(), set())
    taken_old = {m.old.id for m in matches}
    taken_new = {m.new.id for m in matches}
    for i in sorted(old_by_id.keys() & new_by_id.keys()):
        if i not in taken_old and i not in taken_new:
            matches.append(Match(old_by_id[i], new_by_id[i], "id"))
            taken_old.add(i)
            taken_new.add(i)
    rest_old = [e for i, e in sorted(old_by_id.items()) if i not in taken_old]
    rest_new = [e for i, e in sorted(new_by_id.items()) if i not in taken_new]
    scored = [
        (score, o, n, rule)
        for o, n, rule in _candidates(rest_old, rest_new, old_paths, new_paths)
        if (score := _likeness(o, n)) is not None
    ]
    return matches + _best_first(scored, taken_old, taken_new)


def _best_first(
    scored: list[tuple[float, ErrorSite, ErrorSite, str]], taken_old: set[str], taken_new: set[str]
) -> list[Match]:
    """Highest score first, ties by ids; each error in one pair at most."""
    matches = []
    for _, o, n, rule in sorted(scored, key=lambda s: (-s[0], s[1].id, s[2].id)):
        if o.id not in taken_old and n.id not in taken_new:
            taken_old.add(o.id)
            taken_new.add(n.id)
            matches.append(Match(o, n, rule))
    return matches


def _twin_candidates(
    old: Iterable[ErrorSite], new: Iterable[ErrorSite]
) -> list[tuple[float, ErrorSite, ErrorSite, str]]:
    """Identical twins (one function, exception and template, told apart only by their order) pair
    by the code around them, since deleting one twin shifts the ordinals, and so the ids, of the rest."""
    groups: dict[tuple[str, str, str, str], tuple[list[ErrorSite], list[ErrorSite]]] = defaultdict(lambda: ([], []))
    for side, errors in enumerate((old, new)):
        for e in errors:
            groups[(e.path, e.function, short_exception(e), normalize(e.message))][side].append(e)
    scored = []
    for olds, news in groups.values():
        if len(olds) > 1 or len(news) > 1:
            for o in olds:
                for n in news:
                    scored.append((_neighbour_likeness(o, n), o, n, "twin"))
    return scored


def _neighbour_likeness(old: ErrorSite, new: ErrorSite) -> float:
    """How many of the nearest code lines above and below agree, the nearest counting most."""
    score = 0.0
    for old_side, new_side in zip(_neighbours(old), _neighbours(new)):
        for distance, (a, b) in enumerate(zip(old_side, new_side), 1):
            score += (a == b) / distance
    return score


def _neighbours(error: ErrorSite) -> tuple[list[str], list[str]]:
    """Non-blank code lines above the statement (nearest first) and below it, CODE_CONTEXT each."""
    lines = [line.strip() for line in error.excerpt.lines]
    at = error.line - error.excerpt.start_line
    after = error.end_line - error.excerpt.start_line + 1
    above = [line for line in reversed(lines[:at]) if line][:CODE_CONTEXT]
    below = [line for line in lines[after:] if line][:CODE_CONTEXT]
    return above, below


def _candidates(
    old: list[ErrorSite], new: list[ErrorSite], old_paths: set[str], new_paths: set[str]
) -> Iterable[tuple[ErrorSite, ErrorSite, str]]:
    """Pairs that pass the place rule, each once, with the first rule that let it through."""
    by_path: dict[str, list[ErrorSite]] = defaultdict(list)
    by_function: dict[str, list[ErrorSite]] = defaultdict(list)
    by_message: dict[tuple[str, str], list[ErrorSite]] = defaultdict(list)
    for e in new:
        by_path[e.path].append(e)
        if e.function != MODULE_SCOPE:
            by_function[e.function].append(e)
        if _literal_chars(e.message) >= SAME_TEMPLATE_LITERAL:
            by_message[(short_exception(e), normalize(e.message))].append(e)
    renamings = _renamings(old, new, old_paths, new_paths)
    for o in old:
        seen: set[str] = set()
        groups = [(by_path.get(o.path, []), "path")]
        for target in renamings.get(o.path, ()):
            groups.append((by_path[target], "renamed-path"))
        if o.function != MODULE_SCOPE:
            groups.append((by_function.get(o.function, []), "function"))
        groups.append((by_message.get((short_exception(o), normalize(o.message)), []), "message"))
        for group, rule in groups:
            for n in group:
                if n.id not in seen and n.kind == o.kind:
                    seen.add(n.id)
                    yield o, n, rule


def _renamings(
    old: list[ErrorSite], new: list[ErrorSite], old_paths: set[str], new_paths: set[str]
) -> dict[str, list[str]]:
    """Old path -> the new paths it may have been renamed to: it is gone, they are new, and a file
    keeps something of itself: its name, or a function that raises. (Any gone file against any new
    one would let unrelated errors with a few words in common pair.)"""
    def functions(errors: list[ErrorSite], paths: set[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for e in errors:
            if e.path in paths:
                found[e.path].add(e.function)
        return found

    gone = functions(old, old_paths - new_paths)  # a file still catalogued in NEW was not renamed
    arrived = functions(new, new_paths - old_paths)
    renamings: dict[str, list[str]] = {}
    for before, old_functions in gone.items():
        kept = [
            after for after, new_functions in sorted(arrived.items())
            if after.rsplit("/", 1)[-1] == before.rsplit("/", 1)[-1] or (old_functions & new_functions) - {MODULE_SCOPE}
        ]
        if kept:
            renamings[before] = kept
    return renamings


def _likeness(old: ErrorSite, new: ErrorSite) -> float | None:
    """The pairing score, or None when the content rule rejects the pair."""
    old_words, new_words = normalize(old.message).split(), normalize(new.message).split()
    template, shared = _alike_words(old_words, new_words)
    code = _ratio(_code_around(old), _code_around(new))
    if short_exception(old) == short_exception(new):
        if (template < TEMPLATE_ALIKE or shared < min(TEMPLATE_WORDS_SHARED, len(old_words))) and code < CODE_ALIKE:
            return None
    elif template < TEMPLATE_ALIKE_OTHER_EXCEPTION:
        return None
    return template + code + (old.function == new.function) + (old.path == new.path)


def _ratio(a: list[str], b: list[str]) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _literal_chars(template: str) -> int:
    return sum(len("".join(piece.text.split())) for piece in split_template(template) if not piece.is_field)


def _alike_words(a: list[str], b: list[str]) -> tuple[float, int]:
    """How alike two templates are word by word, and how many words they share; empty ones are
    not alike at all (any two bare `raise NotImplementedError` would pair)."""
    if not a or not b:
        return 0.0, 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.ratio(), sum(block.size for block in matcher.get_matching_blocks())


def _code_around(error: ErrorSite) -> list[str]:
    first = error.line - CODE_CONTEXT - error.excerpt.start_line
    last = error.end_line + CODE_CONTEXT - error.excerpt.start_line
    window = error.excerpt.lines[max(0, first) : max(0, last + 1)]
    return [line.strip() for line in window if line.strip()]


def short_exception(error: ErrorSite) -> str:
    return error.exception.rsplit(".", 1)[-1]

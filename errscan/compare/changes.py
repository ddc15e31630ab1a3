"""What changed between two catalogs: the errors added, removed and changed, and how.

Errors are paired by `errscan.compare.pairing`. A pair is `changed` when any of these differ:
`message` (the template, whitespace folded; with a word-level diff), `exception` (its last name),
`condition` (the analysed path condition, or an assert's test), `location` (path, function or
line), `knobs`. Otherwise it counts as unchanged.
"""

from __future__ import annotations

import difflib
from typing import Iterable

from errscan.compare.pairing import Match, match_errors, short_exception
from errscan.model import Catalog, CatalogDiff, ErrorChange, ErrorRef, ErrorSite, FieldChange, WordDiff


def diff_catalogs(old: Catalog, new: Catalog, old_label: str, new_label: str) -> CatalogDiff:
    matches = match_errors(old.errors, new.errors, old.files, new.files)
    return diff_matched(old.errors, new.errors, matches, old_label, new_label)


def diff_matched(
    old: Iterable[ErrorSite], new: Iterable[ErrorSite], matches: list[Match], old_label: str, new_label: str
) -> CatalogDiff:
    """The diff, once `matches` paired what could be paired between `old` and `new`."""
    matched_old = {m.old.id for m in matches}
    matched_new = {m.new.id for m in matches}
    changed = []
    unchanged = 0
    for m in matches:
        fields = field_changes(m.old, m.new)
        if not fields:
            unchanged += 1
            continue
        words = word_diff(m.old.message, m.new.message) if any(f.field == "message" for f in fields) else ()
        changed.append(ErrorChange(error_ref(m.old), error_ref(m.new), m.rule, fields, words))
    return CatalogDiff(
        old=old_label,
        new=new_label,
        added=tuple(error_ref(e) for e in _in_order(new) if e.id not in matched_new),
        removed=tuple(error_ref(e) for e in _in_order(old) if e.id not in matched_old),
        changed=tuple(sorted(changed, key=lambda c: (c.new.path, c.new.line, c.new.id))),
        unchanged=unchanged,
    )


def field_changes(old: ErrorSite, new: ErrorSite) -> tuple[FieldChange, ...]:
    pairs = [
        ("message", _folded(old.message), _folded(new.message)),
        ("exception", short_exception(old), short_exception(new)),
        ("level", old.level or "", new.level or ""),
        ("condition", condition_text(old), condition_text(new)),
        ("location", location_text(old), location_text(new)),
        ("knobs", knobs_text(old), knobs_text(new)),
    ]
    return tuple(FieldChange(name, a, b) for name, a, b in pairs if a != b)


def condition_text(error: ErrorSite) -> str:
    """The analysed condition when there is one; an assert's own test otherwise."""
    if error.trigger is not None and error.trigger.condition is not None:
        return error.trigger.condition
    return error.assert_test or ""


def location_text(error: ErrorSite) -> str:
    return f"{error.path}:{error.line} in {error.function}"


def knobs_text(error: ErrorSite) -> str:
    knobs = error.trigger.knobs if error.trigger is not None else ()
    return ", ".join(sorted(f"{k.kind} {k.name}" for k in knobs))


def knob_changes(field: FieldChange) -> list[tuple[str, str]]:
    """("+", knob) for each knob that now decides the error, ("-", knob) for each that no longer
    does; the field's values are `knobs_text`'s comma-separated lists."""
    before, after = (set(filter(None, (text or "").split(", "))) for text in (field.old, field.new))
    return [("+", k) for k in sorted(after - before)] + [("-", k) for k in sorted(before - after)]


def word_diff(old: str, new: str) -> tuple[WordDiff, ...]:
    """Word-level edit script from the old message to the new one."""
    a, b = old.split(), new.split()
    ops: list[WordDiff] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(WordDiff("equal", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            ops.append(WordDiff("delete", " ".join(a[i1:i2])))
        if j2 > j1:
            ops.append(WordDiff("insert", " ".join(b[j1:j2])))
    return tuple(ops)


def only_lines_moved(fields: Iterable[str], old: ErrorSite | ErrorRef, new: ErrorSite | ErrorRef) -> bool:
    """The changed `fields` amount to a move within one function of one file."""
    return set(fields) == {"location"} and (old.path, old.function) == (new.path, new.function)


def headline(diff: CatalogDiff) -> str:
    moved = sum(1 for c in diff.changed if _moved_only(c))
    return (
        f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed "
        f"({moved} only moved lines), {diff.unchanged} unchanged"
    )


GATE_KINDS = ("added", "removed", "changed", "moved")


def kinds_found(diff: CatalogDiff) -> set[str]:
    """What `--fail-on` gates on: `changed` are changes beyond moved lines, `moved` the moves alone."""
    worth, moved = split_changes(diff)
    found = {"added": diff.added, "removed": diff.removed, "changed": worth, "moved": moved}
    return {kind for kind, entries in found.items() if entries}


def split_changes(diff: CatalogDiff) -> tuple[list[ErrorChange], list[ErrorChange]]:
    """(changes worth reading, changes that only moved lines), so moves do not drown the rest."""
    moved = [c for c in diff.changed if _moved_only(c)]
    return [c for c in diff.changed if not _moved_only(c)], moved


def _moved_only(change: ErrorChange) -> bool:
    return only_lines_moved((f.field for f in change.changes), change.old, change.new)


def error_ref(error: ErrorSite) -> ErrorRef:
    return ErrorRef(error.id, error.path, error.line, error.function, error.exception, error.message, error.level)


def _folded(text: str) -> str:
    return " ".join(text.split())


def _in_order(errors: Iterable[ErrorSite]) -> list[ErrorSite]:
    return sorted(errors, key=lambda e: (e.path, e.line, e.id))

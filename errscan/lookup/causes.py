"""Which cause a concrete message shows, and the fixes for it.

An accumulate-then-raise message (`does not support: group 1: CrossAttentionSpec; PCP/DCP > 1
(pcp=2, dcp=1) with hybrid attention`) is built from parts, each added on its own condition; the
explanation's fixes say which part they are for. The parts a user's message holds are the causes
that fired there, and their fixes the ones that apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from errscan.match import compile_template, find_instance
from errscan.model import ErrorSite, Fix


@dataclass(frozen=True)
class Cause:
    part: str | None  # the part's template; None: the message as a whole
    shown: str  # the text of the user's message that shows it
    fixes: tuple[Fix, ...]


def causes(error: ErrorSite, message: str) -> list[Cause]:
    """The causes `message` shows, in the order of the explanation's fixes; the whole message's
    fixes when it has no parts (or none of them is found)."""
    fixes = error.explanation.fixes if error.explanation else ()
    parts = list(dict.fromkeys(f.part for f in fixes if f.part))
    found = []
    for part in parts:
        shown = _find(part, message)
        if shown is not None:
            found.append(Cause(part, shown, tuple(f for f in fixes if f.part == part)))
    if found:
        return found
    whole = tuple(f for f in fixes if not f.part)
    return [Cause(None, message, whole)] if whole else []


def _find(part: str, message: str) -> str | None:
    return find_instance(compile_template(part), message)

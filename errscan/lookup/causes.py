"""Which cause a concrete message shows, and the fixes for it.

An accumulate-then-raise message (`does not support: group 1: CrossAttentionSpec; PCP/DCP > 1
(pcp=2, dcp=1) with hybrid attention`) is built from parts, each added on its own condition; the
explanation's fixes say which part they are for. The parts a user's message holds are the causes
that fired there, and their fixes the ones that apply.
"""

from __future__ import annotations

from collections import namedtuple

from errscan.match import compile_template, find_instance

# part: the part's template, None for the message as a whole; shown: the text of the user's message
# that shows it; fixes: its fixes (Fix records as dicts)
Cause = namedtuple("Cause", "part shown fixes")


def causes(error: dict, message: str) -> list[Cause]:
    """The causes `message` shows, in the order of the explanation's fixes; the whole message's
    fixes when it has no parts (or none of them is found). `error` is the error's document, as lookup
    reads it (a dict of errscan.model.ErrorSite's fields)."""
    fixes = error["explanation"]["fixes"] if error["explanation"] else ()
    parts = list(dict.fromkeys(f["part"] for f in fixes if f.get("part")))
    found = []
    for part in parts:
        shown = _find(part, message)
        if shown is not None:
            found.append(Cause(part, shown, tuple(f for f in fixes if f.get("part") == part)))
    if found:
        return found
    whole = tuple(f for f in fixes if not f.get("part"))
    return [Cause(None, message, whole)] if whole else []


def _find(part: str, message: str) -> str | None:
    return find_instance(compile_template(part), message)

"""What an error page derives for presentation: the firing condition and a defensive check."""

from __future__ import annotations

from dataclasses import dataclass

from errscan.analysis.plain import condition_words, negated_code, plain_words
from errscan.model import ErrorSite


@dataclass(frozen=True)
class Firing:
    """When a site fires, as code: the raise's path condition, or the negation of an assert's test."""

    code: str
    words: str
    partial: bool
    unknown: tuple[str, ...]


def firing_condition(error: ErrorSite) -> Firing | None:
    trigger = error.trigger
    if (trigger is None or trigger.condition is None) and error.kind == "assert" and error.assert_test:
        code = negated_code(error.assert_test)  # a catalog read without analysis: the test alone
        return Firing(code, plain_words(error.assert_test, negate=True), False, ())
    if trigger is None or trigger.condition is None:
        return None
    return Firing(trigger.condition, condition_words(trigger.condition, trigger.plain), trigger.partial, trigger.unknown)


def defensive_check(error: ErrorSite, firing: Firing) -> str:
    """A snippet testing the firing condition before the call, with the names the raising code uses."""
    where = error.function if error.function != "<module>" else f"importing {error.path}"
    return (
        f"# Before reaching {where} ({error.path}:{error.line}),\n"
        f"# compute these values as that code does, then test them:\n"
        f"if {firing.code}:\n"
        f"    # {error.exception} would be raised here\n"
        f"    ...\n"
    )

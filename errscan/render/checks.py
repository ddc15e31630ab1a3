"""What an error page derives for presentation: the firing condition."""

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

"""A check before the error that a setting switches off: with it off, what that check would have
caught reaches this error instead, in this error's words.

`if enforce and remote_hash != local_hash: raise ...` stands before a decode of the remote's data;
with `enforce` off, a mismatch is no longer reported as one, and the decode fails on it. A page that
says "no setting of yours decides it" should say so, and how to get the clearer check back."""

from __future__ import annotations

from collections.abc import Callable

from errscan.analysis.commands import Setting, action, candidates, equalities
from errscan.analysis.knobs import KnobCatalog
from errscan.analysis.solver import Value, satisfiable
from errscan.model import Fix


def switched_off(earlier: tuple[str, ...], settings_in: Callable[[str], tuple[Setting, ...]]) -> tuple[Setting, Value] | None:
    """A setting and a value other than its default under which an earlier check on the path (given
    as what must hold past it, `not (enforce and mismatch)`) never fires, though at the default it can."""
    for passed in earlier:
        for setting in settings_in(passed):
            if setting.default is None or setting.side:
                continue
            at_default = satisfiable(f"not ({passed})", *equalities({setting.code: setting.default}))
            for value in candidates(setting, passed, likely=False):
                if value != setting.default and at_default is not False and \
                        satisfiable(f"not ({passed})", *equalities({setting.code: value})) is False:
                    return setting, value
    return None


def skipped_words(found: tuple[Setting, Value], catalog: KnobCatalog, besides: str) -> tuple[str, Fix]:
    """The summary's clause and the fix: go back to the default to have the earlier check report it."""
    setting, value = found
    off = action(setting, value, catalog)
    back = action(setting, setting.default, catalog)
    clause = (f"; no setting of yours decides it{besides}, but a check before it on the same path is skipped where you "
              f"{off[0].lower()}{off[1:]}, and what that check would report then shows up as this error")
    short = setting.name.rsplit(".", 1)[-1]
    fix = Fix(setting.name, None, f"If you changed `{short}` so, {back[0].lower()}{back[1:]} (the default): the check before "
                                  "it then reports the problem in its own words.")
    return clause, fix

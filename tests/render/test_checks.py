"""What an error page derives: the firing condition."""

from __future__ import annotations

from errscan.model import ErrorSite, Excerpt, Trigger
from errscan.render.checks import firing_condition


def site(**changes) -> ErrorSite:
    fields = dict(
        id="0" * 16, kind="raise", level=None, exception="ValueError", exception_qualname="builtins.ValueError",
        exception_bases=(), message="m", placeholders=(), path="p.py", line=3, end_line=3, function="C.f",
        comments=(), excerpt=Excerpt(1, ("a", "b", "raise ValueError('m')")), url="u",
    )
    return ErrorSite(**{**fields, **changes})


def test_assert_fires_on_the_negation_of_its_test():
    firing = firing_condition(site(kind="assert", assert_test="len(ids) <= 4"))
    assert firing.code == "len(ids) > 4"
    assert firing.words == "`ids` has more than 4 items"


def test_no_condition_no_check():
    assert firing_condition(site()) is None


def test_analysed_trigger_is_the_firing_condition():
    error = site(trigger=Trigger(condition="x is None", conjuncts=("x is None",), raw_condition="x is None", plain=None))
    firing = firing_condition(error)
    assert (firing.code, firing.words) == ("x is None", "`x` is None (not set)")

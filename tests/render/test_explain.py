"""Conditions in plain words, their negation, and what solutions and checks follow from them."""

from __future__ import annotations

import pytest

from errscan.model import ErrorSite, Excerpt, Trigger
from errscan.render.explain import (
    condition_words,
    defensive_check,
    firing_condition,
    negated_code,
    plain_words,
    solutions,
)


@pytest.mark.parametrize(
    "code, words, negated_words",
    [
        ("x is None", "`x` is None (not set)", "`x` is set (not None)"),
        ("cfg.path is not None", "`cfg.path` is set (not None)", "`cfg.path` is None (not set)"),
        ("len(group_ids) != 1", "`group_ids` does not have exactly 1 item", "`group_ids` has exactly 1 item"),
        ("len(blocks) > 4", "`blocks` has more than 4 items", "`blocks` has at most 4 items"),
        ("len(blocks) == 0", "`blocks` is empty", "`blocks` is not empty"),
        ("not blocks", "`blocks` is false or empty", "`blocks` is true (set, non-empty)"),
        ("self.use_layerwise", "`self.use_layerwise` is true (set, non-empty)", "`self.use_layerwise` is false or empty"),
        ("pcp > 1", "`pcp` is greater than `1`", "`pcp` is at most `1`"),
        ("mode not in ('a', 'b')", "`mode` is not one of `('a', 'b')`", "`mode` is one of `('a', 'b')`"),
        ("isinstance(spec, FullSpec)", "`spec` is a `FullSpec`", "`spec` is not a `FullSpec`"),
        ("not isinstance(spec, (A, B))", "`spec` is not one of `A`, `B`", "`spec` is one of `A`, `B`"),
        ("use_mla and cfg.use_layerwise", "`use_mla` is true (set, non-empty) and `cfg.use_layerwise` is true (set, non-empty)",
         "`use_mla` is false or empty or `cfg.use_layerwise` is false or empty"),
        ("hasattr(m, 'kv')", "`m` has an attribute `kv`", "`m` has no attribute `kv`"),
        ("this is ( not code", "this is ( not code", "not (this is ( not code)"),
    ],
)
def test_plain_words_for_common_forms(code, words, negated_words):
    assert plain_words(code) == words
    assert plain_words(code, negate=True) == negated_words


@pytest.mark.parametrize(
    "code, negated",
    [
        ("a - b <= 1", "a - b > 1"),
        ("x is None", "x is not None"),
        ("not ready", "ready"),
        ("a and b > 2", "not a or b <= 2"),
        ("f(x)", "not f(x)"),
    ],
)
def test_negated_code_stays_exact(code, negated):
    assert negated_code(code) == negated


def test_analysis_words_are_kept_and_code_is_explained_otherwise():
    assert condition_words("x is None", "no x given") == "no x given"
    assert condition_words("x is None", "x is None") == "`x` is None (not set)"
    assert condition_words("x is None", None) == "`x` is None (not set)"


def site(**changes) -> ErrorSite:
    fields = dict(
        id="0" * 16, kind="raise", exception="ValueError", exception_qualname="builtins.ValueError",
        exception_bases=(), message="m", placeholders=(), path="p.py", line=3, end_line=3, function="C.f",
        comments=(), excerpt=Excerpt(1, ("a", "b", "raise ValueError('m')")), url="u",
    )
    return ErrorSite(**{**fields, **changes})


def test_assert_fires_on_the_negation_of_its_test():
    firing = firing_condition(site(kind="assert", assert_test="len(ids) <= 4"))
    assert firing.code == "len(ids) > 4"
    assert firing.words == "`ids` has more than 4 items"
    assert "if len(ids) > 4:" in defensive_check(site(), firing)


def test_no_condition_no_check_and_no_solution():
    assert firing_condition(site()) is None
    assert solutions(site(), None) == []


def test_each_way_an_or_condition_fires_is_a_solution():
    cond = "x is None or len(y) > 2"
    error = site(trigger=Trigger(condition=cond, conjuncts=(cond,), raw_condition=cond))
    assert solutions(error, firing_condition(error)) == [
        "Make sure it is not so that `x` is None (not set).",
        "Make sure it is not so that `y` has more than 2 items.",
    ]


def test_analysis_solutions_replace_derived_ones_and_are_not_repeated():
    trigger = Trigger(condition="x", conjuncts=("x",), raw_condition="x", solutions=("Set x off.", "Set x off."))
    error = site(trigger=trigger)
    assert solutions(error, firing_condition(error)) == ["Set x off."]

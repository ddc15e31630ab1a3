"""The checks a call is sure to have passed once it returned (`analysis/returned.py`)."""

import ast

from conftest import graph_of
from errscan.analysis.returned import MAX_DEPTH, Returned
from errscan.extract.conditions import make_term

NEGATIVE = ((make_term(ast.parse("x < 0", mode="eval").body, {}),), 7, "calls/checks_deep.py")


def _checks(order: list[str]) -> dict[str, tuple]:
    returned = Returned(graph_of("checks_deep"), {"calls.checks_deep.check": [NEGATIVE]}, lambda code, _: code)
    return {name: returned.checks(f"calls.checks_deep.{name}") for name in order}


def test_the_checks_of_a_function_do_not_depend_on_which_function_was_asked_first():
    """Asked first, `outer` follows `near` at the last depth allowed: what `near` is then found to
    check (nothing past that depth) must not be what `near` says when asked on its own."""
    assert MAX_DEPTH == 3  # `outer` -> first -> second -> near -> check: one call too deep
    near_first, outer_first = _checks(["near", "outer"]), _checks(["outer", "near"])
    assert near_first == outer_first
    assert near_first["near"] == (("not x < 0", "the same check already passed at checks_deep.py:7"),)
    assert near_first["outer"] == ()

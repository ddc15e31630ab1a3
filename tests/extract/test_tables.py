"""A class body's constants (`extract/tables.constant_names`): an Enum's members, or None when
the body binds names that are not all written down as constants."""

import ast

import pytest

from errscan.extract.astutil import admits_none
from errscan.extract.tables import constant_names


def names(source: str):
    return constant_names(ast.parse(source).body[0].body)


def test_constants_and_auto_are_listed_in_order_and_methods_left_out():
    source = 'class R(Enum):\n    """doc"""\n    A = 0\n    B: int = -1\n    C = auto()\n    D = ("x", 2)\n    x: int\n    def f(self): pass\n'
    assert names(source) == ("A", "B", "C", "D")


@pytest.mark.parametrize("body", [
    "A = 0\n    B = A + 1", "A, B = 0, 1", "_ignore_ = ['X']", "for i in range(2): pass", "import os",
    "A = member(f)", "@enum.member\n    def f(self): pass", "class Inner: pass",
])
def test_a_name_bound_otherwise_leaves_the_members_unknown(body):
    assert names(f"class R(Enum):\n    {body}\n") is None


@pytest.mark.parametrize("annotation, none", [
    ("X", False), ("X | None", True), ("None | X", True), ("Optional[X]", True), ("typing.Union[X, None]", True),
    ("Union[X, Y]", False), ("'X | None'", True), ("'X'", False), ("list[X]", False),
])
def test_an_annotation_lets_none_in(annotation, none):
    assert admits_none(ast.parse(annotation, mode="eval").body) is none

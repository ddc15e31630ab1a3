import ast

import pytest

from errscan.analysis.finder import _may_match, _printed_mark
from errscan.extract.unparse import fast_unparse

_CODES = ["a and b", "a or b or c", "x < 1", "a is not None", "x in (1, 2)", "a + b", "n ** 2", "f(x)", "cfg.get('k', 1)",
          "xs[0]", "m[a, b]", "not a", "-x", "a.b", "a if b else c", "(a, b)"]


@pytest.mark.parametrize("code", _CODES)
def test_the_mark_of_a_node_is_in_its_printed_code(code: str) -> None:
    for node in ast.walk(ast.parse(code, mode="eval").body):
        assert _printed_mark(node) in fast_unparse(node)


@pytest.mark.parametrize(("pattern", "char", "may"), [
    (r"remote_tp_size|\w+\.remote_tp_size", " ", False),
    (r"self\.tp_size|local_tp_size", "(", False),
    (r"\w+(\.\w+)*", "[", False),
    (r"a b", " ", True),
    (r"f\(\w*\)", "(", True),
    (r"x[^a]", "[", True),
    (r"x.y", " ", True),
    (r"\W+", " ", True),
    (r"x\s?y", " ", True),
    (r"[a-z_]+", " ", False),
    (r"(?i:tp)_size", " ", False),
])
def test_a_pattern_may_match_a_character_unless_no_part_of_it_can(pattern: str, char: str, may: bool) -> None:
    assert _may_match(pattern, char) is may

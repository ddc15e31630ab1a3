import re

import pytest

from errscan.match import bind, compile_template, split_template

CASES = [
    ("among {len(groups)} groups", "among 3 groups", {"len(groups)": "3"}),
    ("does not support: {unsupported}", "does not support: group 1: X; PCP/DCP > 1", {"unsupported": "group 1: X; PCP/DCP > 1"}),
    ("literal {{braces}} (and) [regex] $chars.", "literal {braces} (and) [regex] $chars.", {}),
    ("wrapped  text", "wrapped\n   text", {}),
    ("x={x!r}", "x='a'", {"x!r": "'a'"}),
]


@pytest.mark.parametrize("template, message, bindings", CASES)
def test_concrete_messages_bind(template, message, bindings):
    assert bind(compile_template(template), message) == bindings


def test_literal_parts_must_match():
    assert bind(compile_template("among {n} groups"), "among 3 clusters") is None


def test_nested_braces_in_a_field():
    assert [p.text for p in split_template("a {d['k']} {x:{w}} b") if p.is_field] == ["d['k']", "x:{w}"]


def test_pattern_is_portable_to_javascript():
    pattern = compile_template("a.b (c) {x} / d").pattern
    assert "(?P" not in pattern and "(?<" not in pattern
    assert re.match(pattern, "a.b (c) 42 / d")

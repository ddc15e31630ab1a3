"""The ast fallback: a file libcst cannot handle still has every site, where and what it raises."""

from __future__ import annotations

import ast

import pytest

from conftest import FIXTURES, source_file
from errscan.extract import extract_file, extract_file_from_ast
from errscan.sources import SourceFile, blob_digest

PATTERNS = sorted(p.name for p in (FIXTURES / "patterns").glob("*.py"))
SAME_FIELDS = ("kind", "line", "end_line", "function", "comments", "cause", "assert_test", "condition", "partial")


@pytest.mark.parametrize("name", PATTERNS)
def test_fallback_finds_the_same_sites_as_libcst(name):
    source = source_file(FIXTURES / "patterns" / name, f"pkg/{name}")
    full = extract_file(source, catalogued=True)
    fallback = extract_file_from_ast(source, catalogued=True, reason="took too long")
    assert fallback.failure.reason == "took too long; raise sites taken from ast"
    assert [[getattr(s, f) for f in SAME_FIELDS] for s in fallback.sites] == [
        [getattr(s, f) for f in SAME_FIELDS] for s in full.sites
    ]
    assert fallback.reraises == full.reraises


@pytest.mark.parametrize("name", ["errors.py", "literals.py"])
def test_fallback_renders_literals_and_fstrings_as_libcst_does(name):
    source = source_file(FIXTURES / "patterns" / name, f"pkg/{name}")
    full = extract_file(source, catalogued=True)
    fallback = extract_file_from_ast(source, catalogued=True, reason="took too long")
    assert [(s.exception_qualname, s.message) for s in fallback.sites] == [
        (s.exception_qualname, s.message) for s in full.sites
    ]


def long_concatenation(parts: int) -> bytes:
    """A message of many implicitly concatenated literals: libcst nests one node per literal."""
    literals = "".join(f'        "part {i} "\n' for i in range(parts))
    return (
        "def check(x):\n"
        "    # the guard\n"
        f"    raise ValueError(\n{literals}    )\n"
        "\n"
        "def other(x):\n"
        "    assert x, f'x is {x!r}'\n"
    ).encode()


@pytest.mark.parametrize("parts", [1500, 12000])  # too deep for libcst's walk / for its parser
def test_a_file_libcst_cannot_handle_is_reported_and_catalogued_from_ast(parts):
    data = long_concatenation(parts)
    result = extract_file(SourceFile("pkg/long.py", data, blob_digest(data)), catalogued=True)
    assert result.failure.reason.startswith("libcst cannot parse: ")
    assert result.failure.reason.endswith("; raise sites taken from ast")
    assert "\n" not in result.failure.reason
    tree = ast.parse(data)
    sites = [n for n in ast.walk(tree) if isinstance(n, (ast.Raise, ast.Assert))]
    assert [(s.kind, s.line) for s in result.sites] == [("raise", 3), ("assert", sites[1].lineno)]
    raised, asserted = result.sites
    assert raised.message == "".join(f"part {i} " for i in range(parts))
    assert (raised.exception_qualname, raised.function, raised.comments) == ("builtins.ValueError", "check", ("the guard",))
    assert (asserted.message, asserted.assert_test) == ("x is {x!r}", "x")


def test_a_form_feed_line_keeps_the_comments_above_a_raise():
    """`str.splitlines` splits at a form feed too, shifting the lines after it by one."""
    source = source_file(FIXTURES / "lines" / "form_feed.py", "pkg/form_feed.py")
    expected = [(7, ("the path must exist", "before anything reads it")), (13, ("keys are never empty",))]
    for result in (extract_file(source, catalogued=True), extract_file_from_ast(source, True, "took too long")):
        assert [(s.line, s.comments) for s in result.sites] == expected

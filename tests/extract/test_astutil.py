"""The source and syntax rules every walk in extract shares."""

from __future__ import annotations

import ast

import libcst as cst

from conftest import FIXTURES
from errscan.extract.astutil import child_blocks, first_line, node_fields, source_lines, walk, walk_breadth

TRY = """\
try:
    a()
except E:
    b()
else:
    c()
finally:
    d()
"""


def test_source_lines_number_lines_as_python_does():
    text = "a = 1\x0c\nb = 2\r\nc = 3\rd = 4\n"
    assert source_lines(text) == ["a = 1\x0c", "b = 2", "c = 3", "d = 4"]
    tree = ast.parse(text)
    assert [source_lines(text)[s.lineno - 1][0] for s in tree.body] == ["a", "b", "c", "d"]


def test_child_blocks_come_in_source_order_for_ast_and_libcst():
    (statement,) = ast.parse(TRY).body
    assert [[ast.unparse(s) for s in block] for block in child_blocks(statement)] == [["a()"], ["b()"], ["c()"], ["d()"]]
    (node,) = cst.parse_module(TRY).body
    kinds = [type(block).__name__ for block in child_blocks(node)]
    assert kinds == ["IndentedBlock", "IndentedBlock", "Else", "Finally"]


def test_an_elif_is_a_block_of_its_own_in_libcst():
    (node,) = cst.parse_module("if a:\n    x()\nelif b:\n    y()\n").body
    _, elif_ = child_blocks(node)
    assert isinstance(elif_, cst.If) and child_blocks(ast.parse("x = 1").body[0]) == []


def test_a_decorated_definition_starts_at_its_first_decorator():
    (function,) = ast.parse("@a\n@b(\n    1)\ndef f():\n    pass\n").body
    assert (function.lineno, first_line(function)) == (4, 1)


_LEAVES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop, ast.alias)


def test_walk_finds_every_node_of_ast_walk_but_context_and_operator_leaves():
    sources = [p.read_text() for p in sorted(FIXTURES.rglob("*.py"))]
    assert len(sources) > 50
    for source in sources:
        tree = ast.parse(source)
        wanted = [n for n in ast.walk(tree) if not isinstance(n, _LEAVES)]
        found = list(walk(tree))
        assert len(found) == len(wanted) and {id(n) for n in found} == {id(n) for n in wanted}


def test_walk_breadth_keeps_the_order_of_ast_walk_but_its_leaves():
    for path in sorted(FIXTURES.rglob("*.py")):
        tree = ast.parse(path.read_text())
        assert [id(n) for n in walk_breadth(tree)] == [id(n) for n in ast.walk(tree) if not isinstance(n, _LEAVES)]


def test_node_fields_leave_out_names_flags_and_leaves():
    assert node_fields(ast.Attribute) == ("value",)
    assert node_fields(ast.Compare) == ("left", "comparators")
    assert node_fields(ast.ImportFrom) == ()

import ast
from pathlib import Path

import pytest

from errscan.extract.unparse import fast_unparse

FIXTURE = Path(__file__).parents[1] / "fixtures" / "unparse" / "precedence_and_literals.py"


def _expressions() -> list[ast.AST]:
    tree = ast.parse(FIXTURE.read_text())
    return [tree, *(node for node in ast.walk(tree) if isinstance(node, (ast.expr, ast.stmt)))]


@pytest.mark.parametrize("node", _expressions(), ids=lambda node: type(node).__name__)
def test_prints_what_ast_unparse_prints(node: ast.AST) -> None:
    assert fast_unparse(node) == ast.unparse(node)


def test_prints_rebuilt_trees_as_ast_unparse_does() -> None:
    """Conditions print trees errscan builds (a negation, a loop's `in`), not only parsed ones."""
    test = ast.parse("a < b or (c and not d)", mode="eval").body
    built = [
        ast.UnaryOp(ast.Not(), test),
        ast.Compare(ast.Name("x", ast.Store()), [ast.In()], [test]),
        ast.BoolOp(ast.And(), [test, ast.BoolOp(ast.Or(), [test, test])]),
    ]
    for node in built:
        assert fast_unparse(node) == ast.unparse(node)

"""Conditions in plain words, for the forms that are common; anything else stays as code."""

from __future__ import annotations

import ast

_COMPARISONS = {
    ast.Eq: "equals", ast.NotEq: "is not equal to", ast.Lt: "is less than", ast.LtE: "is at most",
    ast.Gt: "is greater than", ast.GtE: "is at least", ast.In: "is in", ast.NotIn: "is not in",
}

_LENGTHS = {
    ast.Eq: "has exactly", ast.NotEq: "does not have exactly", ast.Lt: "has fewer than",
    ast.LtE: "has at most", ast.Gt: "has more than", ast.GtE: "has at least",
}


def plain_words(term: str) -> str:
    """One term of a condition as a phrase: `len(x) > 1` -> "`len(x)` is greater than 1"."""
    try:
        node = ast.parse(term, mode="eval").body
    except SyntaxError:
        return f"`{term}`"
    return _phrase(node)


def _code(node: ast.AST) -> str:
    return f"`{ast.unparse(node)}`"


def _phrase(node: ast.expr) -> str:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op, right = node.ops[0], node.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            return f"{_code(node.left)} is {'not ' if isinstance(op, ast.IsNot) else ''}None"
        if type(op) in _COMPARISONS:
            left = node.left
            is_len = isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
            if is_len and len(left.args) == 1 and type(op) in _LENGTHS:
                return f"{_code(left.args[0])} {_LENGTHS[type(op)]} {ast.unparse(right)} item(s)"
            return f"{_code(left)} {_COMPARISONS[type(op)]} {_code(right)}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2:
        return f"{_code(node.args[0])} is a {_code(node.args[1])}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "any" and node.args:
        generator = node.args[0]
        if isinstance(generator, ast.GeneratorExp) and len(generator.generators) == 1:
            loop = generator.generators[0]
            inner = generator.elt
            what = "" if isinstance(inner, ast.Constant) else f": {_phrase(inner)}"
            return f"for some {_code(loop.target)} in {_code(loop.iter)}{what}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return f"{_code(node.operand)} is false or empty"
    if isinstance(node, ast.BoolOp):
        joiner = " and " if isinstance(node.op, ast.And) else " or "
        return "(" + joiner.join(_phrase(v) for v in node.values) + ")"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"{_code(node)} is set (true or non-empty)"
    return _code(node)

"""Conditions in plain words, for the forms that are common; anything else stays as code.

Everything is derived from a condition's code (Python syntax, parsed with `ast`): `is None`,
comparisons, `len(x) > n`, `isinstance`, membership, flags and `and`/`or`/`not` get words,
anything else is shown as code. Pages and the analysis use these same words.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from errscan.extract.conditions import negate as negated_node, parse_expression, unparse
from errscan.extract.unparse import fast_unparse

_COMPARE_WORDS = {
    ast.Eq: ("equals", "differs from"),
    ast.NotEq: ("differs from", "equals"),
    ast.Lt: ("is less than", "is at least"),
    ast.LtE: ("is at most", "is greater than"),
    ast.Gt: ("is greater than", "is at most"),
    ast.GtE: ("is at least", "is less than"),
    ast.In: ("is one of", "is not one of"),
    ast.NotIn: ("is not one of", "is one of"),
}
_LEN_WORDS = {  # len(x) <op> n, worded as a count of items
    ast.Eq: ("has exactly {n}", "does not have exactly {n}"),
    ast.NotEq: ("does not have exactly {n}", "has exactly {n}"),
    ast.Lt: ("has fewer than {n}", "has at least {n}"),
    ast.LtE: ("has at most {n}", "has more than {n}"),
    ast.Gt: ("has more than {n}", "has at most {n}"),
    ast.GtE: ("has at least {n}", "has fewer than {n}"),
}


@lru_cache(maxsize=1 << 16)
def plain_words(code: str, negate: bool = False) -> str:
    """`code` (or, with `negate`, its opposite) in plain words; the code itself when not understood."""
    tree = parse_expression(code.strip())
    if tree is None:
        return f"not ({code})" if negate else code
    return _words(tree, negate)


def condition_words(code: str, plain: str | None = None) -> str:
    """The analysis's plain words when it gave some, else words made here from the code."""
    if plain and plain.strip() != code.strip():
        return plain
    return plain_words(code)


@lru_cache(maxsize=1 << 16)
def negated_code(code: str) -> str:
    """Python code for `not (code)`, simplified where that stays exact (`a <= b` -> `a > b`)."""
    tree = parse_expression(code.strip())
    if tree is None:
        return f"not ({code})"
    return unparse(negated_node(tree))


def _quantifier(node: ast.expr) -> tuple[ast.expr, ast.comprehension] | None:
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "any"
        and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
        and len(node.args[0].generators) == 1 and not node.args[0].generators[0].ifs
    ):
        return node.args[0].elt, node.args[0].generators[0]
    return None


def _code(node: ast.expr) -> str:
    return f"`{fast_unparse(node)}`"


def _words(node: ast.expr, negate: bool) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _words(node.operand, not negate)
    quantified = _quantifier(node)
    if quantified is not None:  # any(<test> for <target> in <items>): how loop conditions read
        test, loop = quantified
        some = "every" if negate else "some"
        return f"for {some} {_code(loop.target)} in {_code(loop.iter)}, {_words(test, negate)}"
    if isinstance(node, ast.BoolOp):
        # `while True:` puts a constant into the path: True in an `and` (False in an `or`) says nothing
        values = [v for v in node.values if not (isinstance(v, ast.Constant) and bool(v.value) == isinstance(node.op, ast.And))]
        values = values or node.values[:1]
        if len(values) == 1:
            return _words(values[0], negate)
        is_and = isinstance(node.op, ast.And) != negate  # De Morgan
        parts = [_words(v, negate) for v in values]
        if len(parts) > 2 or any(isinstance(v, ast.BoolOp) for v in values):
            head = "all of" if is_and else "any of"
            return f"{head}: " + "; ".join(f"({p})" for p in parts)
        return (" and " if is_and else " or ").join(parts)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _compare_words(node.left, node.ops[0], node.comparators[0], negate)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2:
        if node.func.id == "isinstance":
            kind = _type_words(node.args[1])
            return f"{_code(node.args[0])} is {'not ' if negate else ''}{kind}"
        if node.func.id == "hasattr" and isinstance(node.args[1], ast.Constant):
            verb = "has no" if negate else "has an"
            return f"{_code(node.args[0])} {verb} attribute `{node.args[1].value}`"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "raises" and len(node.args) >= 2:
        return _raises_words(node, negate)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return f"{_code(node.args[0])} is {'empty' if negate else 'not empty'}"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"{_code(node)} is {'false or empty' if negate else 'true (set, non-empty)'}"
    if isinstance(node, ast.Call):
        return f"{_code(node)} returns {'a false value' if negate else 'a true value'}"
    return f"{_code(node)} is {'false' if negate else 'true'}"


def _raises_words(node: ast.Call, negate: bool) -> str:
    """`raises(E, a(), b(), other_than=X)`: a handler's way in (docs/conditions.md)."""
    sources = [f"`{a.value}`" if isinstance(a, ast.Constant) else _code(a) for a in node.args[1:]]
    kind = _code(node.args[0])
    if len(sources) == 1:
        said = f"{sources[0]} {'does not raise' if negate else 'raises'} {kind}"
    else:
        said = f"{'none' if negate else 'one'} of {', '.join(sources)} raises {kind}"
    earlier = [k.value for k in node.keywords if k.arg == "other_than"]
    if earlier:
        said += f" other than {_code(earlier[0])} (an earlier handler catches that)"
    return said


def _compare_words(left: ast.expr, op: ast.cmpop, right: ast.expr, negate: bool) -> str:
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
        is_none = isinstance(op, ast.Is) != negate
        return f"{_code(left)} is {'None (not set)' if is_none else 'set (not None)'}"
    if isinstance(op, (ast.Is, ast.IsNot)):
        same = isinstance(op, ast.Is) != negate
        return f"{_code(left)} is {'' if same else 'not '}the same object as {_code(right)}"
    is_len = isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" and len(left.args) == 1
    if is_len and type(op) in _LEN_WORDS and isinstance(right, ast.Constant) and isinstance(right.value, int):
        n = right.value
        if n == 0 and isinstance(op, (ast.Eq, ast.NotEq)):
            empty = isinstance(op, ast.Eq) != negate
            return f"{_code(left.args[0])} is {'empty' if empty else 'not empty'}"
        phrase = _LEN_WORDS[type(op)][1 if negate else 0].format(n=n)
        counted = left.args[0]
        if isinstance(counted, ast.SetComp) and len(counted.generators) == 1:  # a set filled in a loop: its values
            loop = counted.generators[0]
            only = f" with {' and '.join(map(_code, loop.ifs))}" if loop.ifs else ""
            taken = phrase.replace("does not have", "does not take").replace("has", "takes")
            return (f"over {_code(loop.target)} in {_code(loop.iter)}{only}, {_code(counted.elt)} {taken} "
                    f"different value{'' if n == 1 else 's'}")
        return f"{_code(counted)} {phrase} item{'' if n == 1 else 's'}"
    remainder = isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(right, ast.Constant)
    if remainder and right.value == 0 and isinstance(op, (ast.Eq, ast.NotEq)):  # `a % b != 0`
        multiple = isinstance(op, ast.Eq) != negate
        return f"{_code(left.left)} is {'' if multiple else 'not '}a multiple of {_code(left.right)}"
    if type(op) in _COMPARE_WORDS:
        return f"{_code(left)} {_COMPARE_WORDS[type(op)][1 if negate else 0]} {_code(right)}"
    return f"{_code(ast.Compare(left, [op], [right]))} is {'false' if negate else 'true'}"


def _type_words(node: ast.expr) -> str:
    if isinstance(node, ast.Tuple):
        return "one of " + ", ".join(_code(e) for e in node.elts)
    return f"a {_code(node)}"

"""Conditions in plain words, and the checks and fixes that follow from them.

Everything here is derived from a condition's code (Python syntax, parsed with `ast`), so a page
says only what the code says: common forms (`is None`, comparisons, `len(x) > n`, `isinstance`,
membership, flags, `and`/`or`/`not`) get words, anything else is shown as code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errscan.model import ErrorSite

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
_INVERSE = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


def plain_words(code: str, negate: bool = False) -> str:
    """`code` (or, with `negate`, its opposite) in plain words; the code itself when not understood."""
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return f"not ({code})" if negate else code
    return _words(tree, negate)


def condition_words(code: str, plain: str | None = None) -> str:
    """The analysis's plain words when it gave some, else words made here from the code."""
    if plain and plain.strip() != code.strip():
        return plain
    return plain_words(code)


def negated_code(code: str) -> str:
    """Python code for `not (code)`, simplified where that stays exact (`a <= b` -> `a > b`)."""
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return f"not ({code})"
    return ast.unparse(_negate(tree))


def _negate(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _INVERSE:
        return ast.Compare(node.left, [_INVERSE[type(node.ops[0])]()], node.comparators)
    if isinstance(node, ast.BoolOp):  # De Morgan
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return ast.BoolOp(other, [_negate(v) for v in node.values])
    return ast.UnaryOp(ast.Not(), node)


def _code(node: ast.expr) -> str:
    return f"`{ast.unparse(node)}`"


def _words(node: ast.expr, negate: bool) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _words(node.operand, not negate)
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And) != negate  # De Morgan
        parts = [_words(v, negate) for v in node.values]
        if len(parts) > 2 or any(isinstance(v, ast.BoolOp) for v in node.values):
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
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return f"{_code(node.args[0])} is {'empty' if negate else 'not empty'}"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"{_code(node)} is {'false or empty' if negate else 'true (set, non-empty)'}"
    if isinstance(node, ast.Call):
        return f"{_code(node)} returns {'a false value' if negate else 'a true value'}"
    return f"{_code(node)} is {'false' if negate else 'true'}"


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
        return f"{_code(left.args[0])} {phrase} item{'' if n == 1 else 's'}"
    if type(op) in _COMPARE_WORDS:
        return f"{_code(left)} {_COMPARE_WORDS[type(op)][1 if negate else 0]} {_code(right)}"
    return f"{_code(ast.Compare(left, [op], [right]))} is {'false' if negate else 'true'}"


def _type_words(node: ast.expr) -> str:
    if isinstance(node, ast.Tuple):
        return "one of " + ", ".join(_code(e) for e in node.elts)
    return f"a {_code(node)}"


@dataclass(frozen=True)
class Firing:
    """When a site fires, as code: the raise's path condition, or the negation of an assert's test."""

    code: str
    words: str
    partial: bool
    unknown: tuple[str, ...]


def firing_condition(error: ErrorSite) -> Firing | None:
    if error.kind == "assert" and error.assert_test:
        code = negated_code(error.assert_test)
        return Firing(code, plain_words(error.assert_test, negate=True), False, ())
    trigger = error.trigger
    if trigger is None or trigger.condition is None:
        return None
    return Firing(trigger.condition, condition_words(trigger.condition, trigger.plain), trigger.partial, trigger.unknown)


def defensive_check(error: ErrorSite, firing: Firing) -> str:
    """A snippet testing the firing condition before the call, with the names the raising code uses."""
    where = error.function if error.function != "<module>" else f"importing {error.path}"
    return (
        f"# Before reaching {where} ({error.path}:{error.line}),\n"
        f"# compute these values as that code does, then test them:\n"
        f"if {firing.code}:\n"
        f"    # {error.exception} would be raised here\n"
        f"    ...\n"
    )


def solutions(error: ErrorSite, firing: Firing | None) -> list[str]:
    """The analysis's own solutions when it gave some; else those that follow from the condition and knobs."""
    if error.trigger and error.trigger.solutions:
        return list(dict.fromkeys(error.trigger.solutions))
    found: list[str] = []
    if firing is not None:
        try:
            tree = ast.parse(firing.code.strip(), mode="eval").body
        except SyntaxError:
            tree = None
        if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.Or):
            found += [f"Make sure it is not so that {_words(v, False)}." for v in tree.values]
        elif isinstance(tree, ast.BoolOp):
            found.append("Make any one of these hold: " + "; ".join(_words(v, True) for v in tree.values) + ".")
        else:
            found.append(f"Make sure that {plain_words(firing.code, negate=True)}.")
    if error.trigger:
        found += [f"Review the {k.kind.replace('_', ' ')} `{k.name}`{f' ({k.detail})' if k.detail else ''}: it decides whether this fires." for k in error.trigger.knobs]
        found += [f"It is reached through the connector `{c}`; with another connector this path is not taken." for c in error.trigger.connectors]
    return found

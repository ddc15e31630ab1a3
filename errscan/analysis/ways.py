"""One way an error fires, and the parts of a condition that must hold for it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from errscan.analysis.commands import Setting
from errscan.extract.conditions import parse_expression
from errscan.extract.unparse import fast_unparse


@dataclass(frozen=True)
class Way:
    """One way the error fires: a condition (deep form), the settings it reads, its words."""

    condition: str
    settings: tuple[Setting, ...]
    stated: str = ""  # a condition on a setting that the message gives as the cause
    part: str = ""  # the part of the message this way adds (accumulate-then-raise), "" for the whole
    message: str = ""  # the message (or its part) this way raises


def conjuncts(condition: str) -> list[str]:
    tree = parse_expression(condition)
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        return [fast_unparse(v) for v in tree.values]
    return [condition]



def for_part(way: Way) -> str:
    """Which part of the message a fix is for, when the message is built from several."""
    if not way.part:
        return ""
    shown = re.sub(r"\{[^{}]*\}", "…", way.part)
    return f"For “{shown}”: "


def positive_parts(condition: str) -> list[str]:
    """The `and` parts of a condition, quantifiers opened: what must hold, never what must not
    (a part that always holds once opened is none)."""
    found = []
    for part in conjuncts(condition):
        tree = parse_expression(part)
        if tree is None:
            continue
        tree = _opened(tree)
        if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
            found += [fast_unparse(v) for v in tree.values if not _vacuous(v)]
        elif not _vacuous(tree):
            found.append(fast_unparse(tree))
    return found


def _opened(tree: ast.expr) -> ast.expr:
    """`any(<elt> for ...)`, nested too, opened to what must hold of some item: `<elt>`."""
    while isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "any" and tree.args \
            and isinstance(tree.args[0], ast.GeneratorExp):
        tree = tree.args[0].elt
    return tree


def _vacuous(tree: ast.expr) -> bool:
    """A part that says only that some item exists (`any(True for r in rs)`), in no words of its own."""
    opened = _opened(tree)
    return isinstance(opened, ast.Constant) and bool(opened.value)

"""Uses of attributes that may put something in them: what tells an attribute only ever given an
empty collection and never filled (`analysis/emptied.py`).

Read per scope, not into nested functions or classes (each is read on its own), into lambdas.
An attribute is read without being filled by `len(x.a)`, `not x.a`, a test of it, a comparison,
`for ... in x.a`, `x.a[k]`, a method that changes nothing (`x.a.get(k)`) or an f-string; any other
use may fill it, or hand it on to what may: a store of anything but an empty collection, a call of
another method, an item store, an argument, a return, an alias. So may a keyword argument of that
name (a dataclass's field), a method of that name, and `getattr`/`setattr` naming it.
"""

from __future__ import annotations

import ast
from functools import cache

from errscan.extract.astutil import node_fields
from errscan.extract.facts import AttributeFill

_EMPTY_CALLS = frozenset({"list", "dict", "set", "tuple", "frozenset"})
_READING_METHODS = frozenset({"get", "keys", "values", "items", "count", "index", "copy"})
_BY_NAME = frozenset({"getattr", "setattr", "delattr", "hasattr", "vars"})
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_FILLING = frozenset({ast.Attribute, ast.Name, ast.keyword, ast.Call})  # what `_fill` may find a use in
_PARENT_READ = frozenset({ast.Attribute, ast.Name, ast.BoolOp})  # whose parent `_fill` looks at
_SKIPPED = frozenset({ast.Constant, type(None), str})  # what a walk of fields meets that holds no use


def attribute_fills(nodes: list[ast.AST], in_class: bool = False) -> list[AttributeFill]:
    """Each use in `nodes` (of a function, a class's body when `in_class`, or a module) that may
    fill an attribute, and each store of an empty collection in one; a class body's names are its
    attributes."""
    # Only what `_fill` asks of an attribute, a name or a boolean operation needs its parent:
    # keeping every node's would cost more than the walk itself.
    parents: dict[int, ast.AST] = {}
    found: list[AttributeFill] = []
    filled: set[str] = set()
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _DEFINITIONS:  # read on its own; in a class, a method or class of that name
            found += [AttributeFill(node.name, node.lineno)] if in_class else []
            continue
        if kind in _FILLING:
            fill = _fill(node, parents, in_class)
            if fill is not None and (fill.empty or fill.attribute not in filled):  # one use that fills is enough
                found.append(fill)
                if not fill.empty:
                    filled.add(fill.attribute)
        for field in _reversed_fields(kind):  # children pushed last to first: popped in source order
            value = getattr(node, field, None)
            for child in reversed(value) if type(value) is list else (value,):
                inner = type(child)
                if inner in _SKIPPED or inner is ast.Name and (not in_class or type(child.ctx) is ast.Load):
                    continue  # a constant or a name read holds no use, and asks for no parent
                if inner in _PARENT_READ:
                    parents[id(child)] = node
                if isinstance(child, ast.AST):
                    stack.append(child)
    return found


def _fill(node: ast.AST, parents: dict[int, ast.AST], in_class: bool) -> AttributeFill | None:
    kind = type(node)
    if kind is ast.Attribute:
        if node.attr == "__dict__":
            return AttributeFill("*", node.lineno)
        if isinstance(node.ctx, ast.Load):
            return None if _reads_only(node, parents) else AttributeFill(node.attr, node.lineno)
        return _stored(node, node.attr, parents)
    if kind is ast.Name and in_class and not isinstance(node.ctx, ast.Load):
        return _stored(node, node.id, parents)
    if kind is ast.keyword and node.arg:
        return AttributeFill(node.arg, node.value.lineno)
    if kind is ast.Call and isinstance(node.func, ast.Name) and node.func.id in _BY_NAME and node.args:
        name = node.args[1] if len(node.args) > 1 else None
        written = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else "*"
        return AttributeFill(written, node.lineno)
    return None


def _stored(target: ast.expr, name: str, parents: dict[int, ast.AST]) -> AttributeFill:
    """A store of `name`: an empty collection only as the one target of an assignment of one."""
    statement = parents.get(id(target))
    value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
    single = isinstance(statement, ast.AnnAssign) or isinstance(statement, ast.Assign) and statement.targets == [target]
    empty = _empty(value) if value is not None and single else ""
    return AttributeFill(name, target.lineno, empty)


def _empty(node: ast.expr) -> str:
    """`[]`, `{}`, `()`, `set()` and the like as written; "" for anything else."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not node.elts or isinstance(node, ast.Dict) and not node.keys:
        return ast.unparse(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _EMPTY_CALLS \
            and not node.args and not node.keywords:
        return f"{node.func.id}()"
    return ""


@cache
def _reversed_fields(kind: type) -> tuple[str, ...]:
    """`node_fields` of a node type, last first."""
    return node_fields(kind)[::-1]


def _reads_only(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the value `node` reads is only looked at where it is (never changed, never handed on)."""
    parent = parents.get(id(node))
    kind = type(parent)
    if kind is ast.Call:
        return parent.func is node or isinstance(parent.func, ast.Name) and parent.func.id in ("len", "bool") \
            and parent.args == [node] and not parent.keywords
    if kind is ast.Attribute:  # `x.a.get(k)`; `x.a.append(v)` may fill it
        grand = parents.get(id(parent))
        return isinstance(grand, ast.Call) and grand.func is parent and parent.attr in _READING_METHODS
    if kind is ast.Subscript:
        return parent.value is node and isinstance(parent.ctx, ast.Load)
    if kind in (ast.If, ast.While, ast.IfExp, ast.Assert):
        return parent.test is node
    if kind in (ast.For, ast.AsyncFor, ast.comprehension):
        return parent.iter is node
    if kind is ast.BoolOp:  # `if x.a and y:`; `z = x.a or y` hands it on
        return _reads_only(parent, parents)
    return kind in (ast.Compare, ast.UnaryOp, ast.FormattedValue)

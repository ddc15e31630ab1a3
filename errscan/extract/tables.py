"""Tables a program looks names up in: dict literals with string keys, and a class's string constants.

`_MODELS = {"LlamaForCausalLM": ("llama", "LlamaForCausalLM")}`, `methods = {"fp8": Fp8Config}` in a
function, or `class Backend(Enum): FLASH = "pkg.flash.FlashBackend"`. Only what the code writes down is
kept: keys that are strings, values that are strings, tuples of strings or dotted names. A class's
names bound to constants of any kind are kept too, as an Enum's members (`constant_names`).
"""

from __future__ import annotations

import ast

from errscan.extract.astutil import dotted
from errscan.extract.facts import TableFact


def table_of(scope: str, name: str, value: ast.expr) -> TableFact | None:
    """The table `name = value` binds in `scope`, when `value` is a dict literal with a string key."""
    if not isinstance(value, ast.Dict):
        return None
    keys, strings, names, includes = [], [], [], []
    for key, item in zip(value.keys, value.values):
        if key is None:  # `**OTHER`
            if dotted(item):
                includes.append(dotted(item))
            continue
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            continue
        parts = _strings(item)
        named = dotted(item) if isinstance(item, (ast.Name, ast.Attribute)) else None
        if parts or named:
            keys.append(key.value)
            strings.append(parts)
            names.append(named)
    if not keys and not includes:
        return None
    return TableFact(scope, name, tuple(keys), tuple(strings), tuple(names), tuple(includes))


def class_constants(scope: str, body: list[ast.stmt]) -> TableFact | None:
    """A class body's `KEY = "value"` (or a tuple of strings) assignments, as one table."""
    keys, strings = [], []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            parts = _strings(stmt.value)
            if parts:
                keys.append(stmt.targets[0].id)
                strings.append(parts)
    if not keys:
        return None
    return TableFact(scope, "", tuple(keys), tuple(strings), (None,) * len(keys))


def constant_names(body: list[ast.stmt]) -> tuple[str, ...] | None:
    """The names a class body binds to constants (`A = 0`, `B = "b"`, `C = auto()`), in order: an
    Enum's members. None when the body binds a name any other way too (a computed value, an
    unpacking, a loop, an import, a nested class, a `_`-prefixed or `@member` name): its members
    are then not all written down. Functions are never members."""
    names: list[str] = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any((dotted(d) or "").endswith("member") for d in stmt.decorator_list):
                return None
            continue
        if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None and isinstance(stmt.target, ast.Name):
            continue  # an annotation alone binds nothing
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else None
        if targets is None or not _constant(stmt.value) or \
                not all(isinstance(t, ast.Name) and not t.id.startswith("_") for t in targets):
            return None
        names += [t.id for t in targets]
    return tuple(names)


def _constant(node: ast.expr | None) -> bool:
    """A literal, a negative number, a tuple of them, or `auto()`."""
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float))
    if isinstance(node, ast.Tuple):
        return all(_constant(e) for e in node.elts)
    return isinstance(node, ast.Call) and dotted(node.func) in ("auto", "enum.auto") and not node.args and not node.keywords


def _strings(node: ast.expr) -> tuple[str, ...]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Tuple) and node.elts and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return tuple(e.value for e in node.elts)
    return ()

"""Tables a program looks names up in: dict literals with string keys, and a class's string constants.

`_MODELS = {"LlamaForCausalLM": ("llama", "LlamaForCausalLM")}`, `methods = {"fp8": Fp8Config}` in a
function, or `class Backend(Enum): FLASH = "pkg.flash.FlashBackend"`. Only what the code writes down is
kept: keys that are strings, values that are strings, tuples of strings or dotted names.
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


def _strings(node: ast.expr) -> tuple[str, ...]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Tuple) and node.elts and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return tuple(e.value for e in node.elts)
    return ()

"""What a function's code keeps objects in, and what names stand for, beyond plain assignments:
containers of built objects, loop variables over them, parameters' defaults, imports per branch.
The walker (`collect.py`) records them; the call graph (`graph/held.py`) resolves them."""

from __future__ import annotations

import ast
from typing import Callable, Container

from errscan.extract.astutil import children, dotted

# Where an object built in a value is kept rather than used at once (`held`).
_HOLDERS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)
# Calls that hand on the items of their first argument (`for x in islice(self.layers, a, b)`).
_PASSING_ITEMS = frozenset({"islice", "reversed", "list", "tuple", "iter", "sorted"})


def held(value: ast.expr, names: Callable[[str | None], list[str]], bound: Container[str]) -> list[str]:
    """What a value keeps objects of: the callees (as `names` spells them) of the calls inside a
    list, a dict, a comprehension or a lambda in it, and the names not `bound` locally handed to
    its calls (factory functions: `make_layers(n, get_layer)`)."""
    found: list[str] = []
    stack: list[tuple[ast.AST, bool]] = [(value, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, ast.Call):
            if inside:
                found += names(dotted(node.func))
            found += [a.id for a in node.args if isinstance(a, ast.Name) and a.id not in bound]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inside = inside or isinstance(node, _HOLDERS)
        stack.extend((child, inside) for child in children(node))
    return list(dict.fromkeys(found))


def flat(targets: list[ast.expr]) -> list[ast.expr]:
    """Assignment targets, tuples and lists unpacked: `self.a, self.b = ...`."""
    return [leaf for t in targets for leaf in (flat(t.elts) if isinstance(t, (ast.Tuple, ast.List)) else [t])]


def iterated(target: ast.expr, items: ast.expr) -> list[tuple[str, str]]:
    """(local, container) for each loop variable bound to an item of a named container."""
    while isinstance(items, (ast.Call, ast.Subscript)):
        if isinstance(items, ast.Subscript):
            if not isinstance(items.slice, ast.Slice):
                return []
            items = items.value
            continue
        name = (dotted(items.func) or "").rsplit(".", 1)[-1]
        pair = isinstance(target, ast.Tuple) and len(target.elts) == 2
        if name == "enumerate" and items.args and pair:
            target, items = target.elts[1], items.args[0]
        elif name in _PASSING_ITEMS and items.args:
            items = items.args[0]
        elif name == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(items.args):
            return [found for t, i in zip(target.elts, items.args) for found in iterated(t, i)]
        elif isinstance(items.func, ast.Attribute) and not items.args and (name == "values" or name == "items" and pair):
            target, items = (target.elts[1] if name == "items" else target), items.func.value
        else:
            return []
    container = dotted(items) if isinstance(items, (ast.Name, ast.Attribute)) else None
    return [(target.id, container)] if container and isinstance(target, ast.Name) else []


def dotted_defaults(args: ast.arguments) -> dict[str, str]:
    """Parameters whose default is a dotted name (`layer_type=Block`): name -> the default."""
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg: text for a, d in pairs if isinstance(d, (ast.Name, ast.Attribute)) and (text := dotted(d))}


def alternatives(imports: list[tuple[str, str, str]]) -> dict[str, tuple[str, ...]]:
    """Module-level names bound by imports of different targets, with each target in order."""
    targets: dict[str, list[str]] = {}
    for scope, local, target in imports:
        if scope == "" and target not in targets.setdefault(local, []):
            targets[local].append(target)
    return {local: tuple(found) for local, found in targets.items() if len(found) > 1}

"""The attributes of `self` that what a `try` guards reads: in its body's statements, and through the
locals its calls are given as arguments (bound before the `try`). What only set up an object before
the `try` (a socket bound to `self.host`, whose method the body then calls) is no part of it: a
failure the handler catches comes from what the body does, with the values it passes.
"""

from __future__ import annotations

import ast

from errscan.extract.astutil import SCOPES, dotted, walk_own
from errscan.extract.conditions import Env

MAX_DEPTH = 6  # locals followed back from an argument (`url` <- `base` <- `self.host`)


def tried_reads(body: list[ast.stmt], env: Env) -> tuple[tuple[str, str], ...]:
    """(attribute, via) for each `self.x` the body reads: `via` is the innermost call whose argument
    it is in (`client.post:0`, `sock.connect:url`), "" where it is read outside any argument."""
    bound = {n.id for stmt in body for n in walk_own(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    found: dict[tuple[str, str], None] = {}
    for stmt in body:
        _visit(stmt, "", env, bound, found)
    return tuple(found)


def _visit(node: ast.AST, via: str, env: Env, bound: set[str], found: dict[tuple[str, str], None]) -> None:
    if isinstance(node, SCOPES):
        return
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        found[(node.attr, via)] = None
        return
    if isinstance(node, ast.Call):
        callee = dotted(node.func) or ""
        _visit(node.func, via, env, bound, found)  # the receiver: read, but not passed
        for position, argument in enumerate(node.args):
            _argument(argument, f"{callee}:{position}", env, bound, found)
        for keyword in node.keywords:
            _argument(keyword.value, f"{callee}:{keyword.arg or '**'}", env, bound, found)
        return
    for child in ast.iter_child_nodes(node):
        _visit(child, via, env, bound, found)


def _argument(node: ast.expr, via: str, env: Env, bound: set[str], found: dict[tuple[str, str], None]) -> None:
    """An argument's own reads, and those of the locals in it that were bound before the `try`."""
    _visit(node, via, env, bound, found)
    todo = [(n.id, 0) for n in walk_own(node) if isinstance(n, ast.Name) and n.id not in bound]
    seen: set[str] = set()
    while todo:
        name, depth = todo.pop()
        binding = env.get(name)
        if binding is None or name in seen or depth > MAX_DEPTH:
            continue
        seen.add(name)
        for read in sorted(binding.reads):  # (a frozenset: its order would follow the hash seed)
            if read.startswith("self."):
                found[(read[5:], via)] = None
            else:
                todo.append((read, depth + 1))

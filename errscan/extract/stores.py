"""Where attributes are written, and what is done first with a new object: what tells that an
attribute set right after construction holds its value in every later method (`analysis/settled.py`).
"""

from __future__ import annotations

import ast

from errscan.extract.astutil import dotted, walk_breadth
from errscan.extract.dataflow import targets_of

_SETTERS = frozenset({"setattr", "delattr", "object.__setattr__", "object.__delattr__"})


def stored(stmt: ast.stmt) -> list[tuple[str, str, str]]:
    """(receiver, attribute, value) for each attribute the statement writes itself (nested blocks
    are read on their own): the receiver and a plain name's value as written, else ""; the
    attribute "*" for a write through `__dict__`."""
    value = stmt.value.id if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name) else ""
    found = []
    for target in targets_of(stmt):
        if type(target) is ast.Name:  # most are: a walk of one would find nothing
            continue
        for node in walk_breadth(target):  # (in order: `self.a, self.b = ...`)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                found.append((dotted(node.value) or "", node.attr, value))
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "__dict__":
                found.append((dotted(node.value.value) or "", "*", ""))
    return found


def set_by_call(callee: str, node: ast.Call) -> tuple[str, str] | None:
    """(receiver, attribute) a call writes: `setattr(x, "a", v)`, `super().__setattr__("a", v)`,
    `x.__dict__.update(...)`, `vars(x).update(...)`; the attribute "*" when its name is computed."""
    args = node.args
    if callee in _SETTERS or callee.endswith((".__setattr__", ".__delattr__")):
        explicit = callee in _SETTERS  # the object is the first argument, else the method's own
        owner = callee.rsplit(".", 1)[0]  # `obj.__setattr__(...)`; `super().__setattr__(...)` is the object's own
        receiver = (dotted(args[0]) or "" if args else "") if explicit else "self" if owner == "super()" else owner
        name = args[1 if explicit else 0] if len(args) > (1 if explicit else 0) else None
        written = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else "*"
        return receiver, written
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("update", "setdefault", "__setitem__"):
        holder = func.value
        if isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
            return dotted(holder.value) or "", "*"
        if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "vars" and holder.args:
            return dotted(holder.args[0]) or "", "*"
    return None


def first_call(stmt: ast.stmt, following: ast.stmt) -> tuple[int, str, int, str] | None:
    """`x = C(...)` and, as the very next statement, `x.m(...)`: (line of `C(...)`, C, line of the
    call, m). Nothing runs between the two that could hand the new object on."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.value, ast.Call):
        return None
    target, made = dotted(stmt.targets[0]), dotted(stmt.value.func)
    if not target or not made or not isinstance(following, ast.Expr) or not isinstance(following.value, ast.Call):
        return None
    call = following.value
    func = call.func
    if not isinstance(func, ast.Attribute) or dotted(func.value) != target:
        return None
    if not all(isinstance(a, (ast.Name, ast.Attribute, ast.Constant)) for a in [*call.args, *(k.value for k in call.keywords)]):
        return None  # an argument computed by a call runs code first
    return stmt.value.lineno, made, following.value.lineno, func.attr

"""What a `try` handler reacts to, for the term `raises(E, <sources>, other_than=<earlier>)`.

The sources are every statement of the `try` body that may raise what the handler catches: its
calls, imports and `raise` statements, in source order, and where it catches a `KeyError` or an
`IndexError` (or a class above them) its lookups `d[k]` and `del d[k]` (a lookup inside a call
named already is said by the call; a slice fails neither way). Which of them fails is not told by the
code, so none is picked: all are named (nested calls and statements a nested `try` already
catches are left out, and so are log calls and a few builtins that raise nothing in practice).
`other_than` names what earlier handlers of the same `try` catch: that never reaches this one.
Builtin exception classes are related by Python's own class tree; any other class is kept in
`other_than` (true either way); a handler whose classes earlier ones catch whole never runs.
"""

from __future__ import annotations

import ast
import builtins

from errscan.extract.astutil import SCOPES, dotted, rethrows
from errscan.extract.conditions import Term, pseudo_term
from errscan.extract.logcalls import LogCalls
from errscan.extract.unparse import fast_unparse

_SILENT = frozenset({"isinstance", "id", "len", "str", "repr", "time.time", "time.monotonic", "time.perf_counter"})
_FULL = 3  # up to this many sources are printed whole; more are printed as `name(...)`
_LOOKUP_ERRORS = ("KeyError", "IndexError")  # what `d[k]` raises when `k` is not there


def _builtin(name: str) -> type[BaseException] | None:
    found = getattr(builtins, name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def caught_names(handler: ast.ExceptHandler) -> tuple[str, ...]:
    """The classes a handler names (`Exception` for a bare `except:`)."""
    if handler.type is None:
        return ("Exception",)
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(dotted(n) or fast_unparse(n) for n in nodes)


def _may_catch(outer: tuple[str, ...], raised: str, instance: bool = False) -> bool:
    """Whether a handler of `outer` may catch an exception of class `raised` (unknown classes may):
    an `instance` of exactly that class, else any instance of it or of its subclasses."""
    kind = _builtin(raised)
    for name in outer:
        held = _builtin(name)
        if name == raised or kind is None or held is None or issubclass(kind, held):
            return True
        if not instance and issubclass(held, kind):
            return True
    return False


def _covers(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    """Whether a handler of `inner` catches everything a handler of `outer` does."""
    def within(name: str) -> bool:
        kind = _builtin(name)
        return name in inner or (kind is not None and any(
            (held := _builtin(n)) is not None and issubclass(kind, held) for n in inner))
    return all(within(name) for name in outer)


def other_than(earlier: list[tuple[str, ...]], caught: tuple[str, ...]) -> tuple[str, ...] | None:
    """What earlier handlers catch that this one could, a builtin left out under a builtin ancestor
    also named; None when they catch all this one does (it never runs)."""
    names = [n for types in earlier for n in types if _may_catch(caught, n)]
    if names and _covers(tuple(names), caught):
        return None
    kept = []
    for name in dict.fromkeys(names):
        kind = _builtin(name)
        if kind is not None and any((held := _builtin(o)) is not None and o != name and issubclass(kind, held) for o in names):
            continue
        kept.append(name)
    return tuple(kept)


class _Sources:
    def __init__(self, caught: tuple[str, ...], logs: LogCalls) -> None:
        self.caught = caught
        self.logs = logs
        self.found: list[tuple[int, int, ast.AST]] = []  # (line, column, node)
        self.lookups = any(_catches(caught, name) for name in _LOOKUP_ERRORS)

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, SCOPES):
            for decorator in getattr(stmt, "decorator_list", ()):
                self.expression(decorator)
            return
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if _may_catch(self.caught, "ImportError"):
                self.found.append((stmt.lineno, stmt.col_offset, stmt))
            return
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and not rethrows(stmt.exc):
            raised = dotted(stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc) or ""
            if _may_catch(self.caught, raised, instance=True):
                self.found.append((stmt.lineno, stmt.col_offset, stmt))
            return
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.nested_try(stmt)
            return
        if isinstance(stmt, ast.Delete) and self.lookups and any(_lookup(t) for t in stmt.targets):
            self.found.append((stmt.lineno, stmt.col_offset, stmt))
            return
        for name, value in ast.iter_fields(stmt):
            if name == "annotation":
                continue  # a local's annotation is never evaluated
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self.block(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.expression(item)
            elif isinstance(value, ast.AST) and name != "ctx":
                self.expression(value)

    def nested_try(self, stmt: ast.Try) -> None:
        """A nested `try`: its body counts unless a handler of its own catches all this one does
        (and does not raise it again); its handlers, `else` and `finally` count."""
        caught_inside = [caught_names(h) for h in stmt.handlers if not _reraises(h.body)]
        if not any(_covers(types, self.caught) for types in caught_inside):
            self.block(stmt.body)
        for handler in stmt.handlers:
            self.block(handler.body)
        self.block(stmt.orelse)
        self.block(stmt.finalbody)

    def expression(self, node: ast.AST) -> None:
        calls, lookups = [], []
        for inner in _walk(node):
            if isinstance(inner, ast.Call) and not self.silent(inner):
                calls.append(inner)
            elif self.lookups and _lookup(inner):
                lookups.append(inner)
        for found in calls + [n for n in lookups if not any(_inside(n, call) for call in calls)]:
            self.found.append((found.lineno, found.col_offset, found))

    def silent(self, call: ast.Call) -> bool:
        callee = dotted(call.func)
        return callee in _SILENT or self.logs.on_logger(callee)


def _catches(caught: tuple[str, ...], raised: str) -> bool:
    """Whether a handler of `caught` catches a builtin `raised` (the class or a builtin above it)."""
    kind = _builtin(raised)
    return any((held := _builtin(name)) is not None and kind is not None and issubclass(kind, held) for name in caught)


def _lookup(node: ast.AST) -> bool:
    """`d[k]` read or deleted, not a slice."""
    return isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Store) and not isinstance(node.slice, ast.Slice)


def _walk(node: ast.AST):
    """The nodes of an expression, without those of lambdas (they run later, if ever)."""
    yield node
    if isinstance(node, ast.Lambda):
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk(child)


def _reraises(body: list[ast.stmt]) -> bool:
    """Whether a handler raises what it caught again (a bare `raise`), outside nested scopes."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Raise) and node.exc is None:
            return True
        if not isinstance(node, SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _inside(node: ast.AST, other: ast.AST) -> bool:
    return node is not other and any(n is node for n in ast.walk(other))


def sources(body: list[ast.stmt], caught: tuple[str, ...], logs: LogCalls) -> str:
    """The `try` body's statements that may raise `caught`, printed for `raises(...)` (imports and
    raises as string literals, so that the term stays Python syntax)."""
    walker = _Sources(caught, logs)
    walker.block(body)
    found = [node for _, _, node in sorted(walker.found, key=lambda f: (f[0], f[1]))]
    if not found:
        return repr(fast_unparse(body[0])) if body else "..."
    if len(found) <= _FULL:
        outer = [n for n in found if not any(_inside(n, o) for o in found)]
        return ", ".join(fast_unparse(n) if isinstance(n, ast.expr) else repr(fast_unparse(n)) for n in outer)
    return ", ".join(dict.fromkeys(_short(n) for n in found))


def _short(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return f"{fast_unparse(node.func)}(...)"
    if isinstance(node, ast.Subscript):
        return f"{fast_unparse(node.value)}[...]"
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
        return repr(f"raise {fast_unparse(node.exc.func)}(...)")
    return repr(fast_unparse(node))


def handler_term(body: list[ast.stmt], caught: tuple[str, ...], earlier: list[tuple[str, ...]], logs: LogCalls) -> Term:
    """The term under which a handler runs: `False` when earlier handlers catch all it does."""
    excluded = other_than(earlier, caught)
    if excluded is None:
        return Term("False", "False", "False")
    shown = caught[0] if len(caught) == 1 else f"({', '.join(caught)})"
    text = f"raises({shown}, {sources(body, caught, logs)}"
    if excluded:
        text += f", other_than={excluded[0] if len(excluded) == 1 else '(' + ', '.join(excluded) + ')'}"
    return pseudo_term(text + ")")

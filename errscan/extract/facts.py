"""Definitions and imports of one module, from the stdlib `ast` (fast enough for a whole package).

These facts feed name resolution for raise sites and, later, the call graph. Scopes are named like
Python's `__qualname__`: `Class.method`, `outer.<locals>.inner`, and `""` for the module itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errscan.extract.names import ScopeStack, resolve_relative


@dataclass(frozen=True)
class ClassFact:
    qualname: str  # fully qualified: module.Class
    bases: tuple[str, ...]  # as written, dotted ("Base", "errors.KVError")
    line: int


SITE_KINDS = frozenset({"raise", "assert"})  # the statement kinds that are catalogued


@dataclass(frozen=True)
class StatementPosition:
    """Where a `raise` or `assert` statement sits; `kind` tells which and whether it is a site."""

    line: int
    col: int
    end_line: int
    kind: str  # "raise" | "reraise" | "assert" | "assert-nomsg"


@dataclass(frozen=True)
class ModuleFacts:
    module: str
    is_package: bool
    imports: dict[str, dict[str, str]]  # scope -> local name -> imported dotted target
    local_defs: frozenset[str]  # module-level names bound by def, class, assignment or import
    classes: tuple[ClassFact, ...]
    statements: tuple[StatementPosition, ...]  # every raise/assert, in source order

    def lookup(self, scope: str) -> dict[str, str]:
        """Imports visible in `scope`: the module's, overridden by enclosing functions' own."""
        visible = dict(self.imports.get("", {}))
        parts = scope.split(".") if scope else []
        for i in range(1, len(parts) + 1):
            visible.update(self.imports.get(".".join(parts[:i]), {}))
        return visible


class _FactCollector:
    """Walks statements only: definitions, imports and raise/assert never sit inside an expression,
    and skipping expressions makes this walk a small fraction of `ast.parse` (a NodeVisitor over
    every node costs more than the parse itself)."""

    def __init__(self, module: str, is_pkg: bool):
        self.module = module
        self.is_pkg = is_pkg
        self.scopes = ScopeStack()
        self.imports: dict[str, dict[str, str]] = {}
        self.local_defs: set[str] = set()
        self.classes: list[ClassFact] = []
        self.statements: list[StatementPosition] = []

    def walk(self, body: list[ast.stmt]) -> None:
        for node in body:
            handler = self._handlers.get(type(node))
            if handler is not None:
                handler(self, node)
            else:
                self._nested(node)

    def _nested(self, node: ast.stmt) -> None:
        """The statement blocks of a compound statement (if, for, while, with, try, match)."""
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if block:
                self.walk(block)
        for handler in getattr(node, "handlers", ()):
            self.walk(handler.body)
        for case in getattr(node, "cases", ()):
            self.walk(case.body)

    # scopes
    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, is_function: bool) -> None:
        if self.scopes.at_module:
            self.local_defs.add(node.name)
        self.scopes.push(node.name, is_function)
        self.walk(node.body)
        self.scopes.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._enter(node, True)

    def _class(self, node: ast.ClassDef) -> None:
        qualname = self.scopes.child(node.name)
        bases = tuple(d for d in (dotted_name(b) for b in node.bases) if d)
        self.classes.append(
            ClassFact(f"{self.module}.{qualname}" if self.module else qualname, bases, node.lineno)
        )
        self._enter(node, False)

    # bindings
    def _bind_import(self, local: str, target: str) -> None:
        self.imports.setdefault(self.scopes.current, {})[local] = target
        if self.scopes.at_module:
            self.local_defs.add(local)

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self._bind_import(alias.asname, alias.name)
            else:
                head = alias.name.split(".")[0]
                self._bind_import(head, head)

    def _import_from(self, node: ast.ImportFrom) -> None:
        base = resolve_relative(self.module, self.is_pkg, node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                continue
            target = f"{base}.{alias.name}" if base else alias.name
            self._bind_import(alias.asname or alias.name, target)

    def _assign(self, node: ast.Assign) -> None:
        if self.scopes.at_module:
            for target in node.targets:
                self.local_defs.update(_bound_names(target))

    def _ann_assign(self, node: ast.AnnAssign) -> None:
        if self.scopes.at_module:
            self.local_defs.update(_bound_names(node.target))

    # statements that may be error sites
    def _raise(self, node: ast.Raise) -> None:
        self._statement(node, "raise" if node.exc is not None else "reraise")

    def _assert(self, node: ast.Assert) -> None:
        self._statement(node, "assert" if node.msg is not None else "assert-nomsg")

    def _statement(self, node: ast.stmt, kind: str) -> None:
        end = node.end_lineno or node.lineno
        self.statements.append(StatementPosition(node.lineno, node.col_offset, end, kind))

    _handlers = {
        ast.FunctionDef: _function,
        ast.AsyncFunctionDef: _function,
        ast.ClassDef: _class,
        ast.Import: _import,
        ast.ImportFrom: _import_from,
        ast.Assign: _assign,
        ast.AnnAssign: _ann_assign,
        ast.Raise: _raise,
        ast.Assert: _assert,
    }


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.C` for a name or attribute chain (`Generic[T]` counts as `Generic`), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted_name(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Subscript):  # Generic[T] -> Generic
        return dotted_name(node.value)
    return None


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _bound_names(elt)]
    return []


def collect_facts(tree: ast.Module, module: str, is_pkg: bool) -> ModuleFacts:
    collector = _FactCollector(module, is_pkg)
    collector.walk(tree.body)
    return ModuleFacts(
        module=module,
        is_package=is_pkg,
        imports=collector.imports,
        local_defs=frozenset(collector.local_defs),
        classes=tuple(collector.classes),
        statements=tuple(sorted(collector.statements, key=lambda s: (s.line, s.col))),
    )

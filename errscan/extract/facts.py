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


class _FactCollector(ast.NodeVisitor):
    def __init__(self, module: str, is_pkg: bool):
        self.module = module
        self.is_pkg = is_pkg
        self.scopes = ScopeStack()
        self.imports: dict[str, dict[str, str]] = {}
        self.local_defs: set[str] = set()
        self.classes: list[ClassFact] = []
        self.statements: list[StatementPosition] = []

    # scopes
    def _enter(self, node: ast.AST, name: str, is_function: bool) -> None:
        if self.scopes.at_module:
            self.local_defs.add(name)
        self.scopes.push(name, is_function)
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._enter(node, node.name, True)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qualname = self.scopes.child(node.name)
        bases = tuple(d for d in (_dotted(b) for b in node.bases) if d)
        self.classes.append(
            ClassFact(f"{self.module}.{qualname}" if self.module else qualname, bases, node.lineno)
        )
        self._enter(node, node.name, False)

    # bindings
    def _bind_import(self, local: str, target: str) -> None:
        self.imports.setdefault(self.scopes.current, {})[local] = target
        if self.scopes.at_module:
            self.local_defs.add(local)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self._bind_import(alias.asname, alias.name)
            else:
                head = alias.name.split(".")[0]
                self._bind_import(head, head)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = resolve_relative(self.module, self.is_pkg, node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                continue
            target = f"{base}.{alias.name}" if base else alias.name
            self._bind_import(alias.asname or alias.name, target)

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.scopes.at_module:
            for target in node.targets:
                self.local_defs.update(_bound_names(target))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if self.scopes.at_module:
            self.local_defs.update(_bound_names(node.target))
        self.generic_visit(node)

    # statements that may be error sites
    def visit_Raise(self, node: ast.Raise) -> None:
        kind = "raise" if node.exc is not None else "reraise"
        self._statement(node, kind)

    def visit_Assert(self, node: ast.Assert) -> None:
        self._statement(node, "assert" if node.msg is not None else "assert-nomsg")

    def _statement(self, node: ast.stmt, kind: str) -> None:
        end = node.end_lineno or node.lineno
        self.statements.append(StatementPosition(node.lineno, node.col_offset, end, kind))
        self.generic_visit(node)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Subscript):  # Generic[T] -> Generic
        return _dotted(node.value)
    return None


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _bound_names(elt)]
    return []


def collect_facts(tree: ast.Module, module: str, is_pkg: bool) -> ModuleFacts:
    collector = _FactCollector(module, is_pkg)
    collector.visit(tree)
    return ModuleFacts(
        module=module,
        is_package=is_pkg,
        imports=collector.imports,
        local_defs=frozenset(collector.local_defs),
        classes=tuple(collector.classes),
        statements=tuple(sorted(collector.statements, key=lambda s: (s.line, s.col))),
    )

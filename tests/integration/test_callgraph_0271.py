"""The call graph of vLLM 0.27.1 checked against an independent oracle: a class hierarchy built here
with the stdlib `ast` alone (none of errscan's index), and the `self.m()`, `cls.m()`, `super().m()`
calls `ast` finds at each edge's line."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import package_graph

pytestmark = pytest.mark.integration


class Hierarchy:
    """Classes of a source tree, their bases resolved through imports (re-exports followed), and
    the class each function belongs to (a function nested in a method belongs to its class)."""

    def __init__(self, root: Path):
        self.modules: dict[str, dict[str, str]] = {}  # module -> local name -> imported dotted
        self.values: dict[str, dict[str, ast.expr]] = {}  # module -> `Name = value` at top level
        self.classes: set[str] = set()
        self.written: dict[str, tuple[str, list[ast.expr]]] = {}  # class -> (module, base nodes)
        self.function_class: dict[str, str | None] = {}
        self.trees: dict[str, ast.Module] = {}
        packages = set()
        for path in sorted(root.rglob("vllm/**/*.py")):
            rel = path.relative_to(root).as_posix()
            parts = rel[:-3].split("/")
            if parts[-1] == "__init__":
                parts.pop()
                packages.add(".".join(parts))
            self.trees[rel] = ast.parse(path.read_bytes())
        for rel, tree in self.trees.items():
            parts = rel[:-3].split("/")
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            package = module if module in packages else module.rpartition(".")[0]
            self.modules[module], self.values[module] = {}, {}
            for node in _top_level(tree.body):
                self._read_top(module, package, node)
            self._read_scope(module, tree.body, module, None)
        self.parents = {c: {p for p in (self.resolve(m, b, c) for b in bases) if p} for c, (m, bases) in self.written.items()}
        self.children: dict[str, set[str]] = defaultdict(set)
        for klass, parents in self.parents.items():
            for parent in parents:
                self.children[parent].add(klass)

    def _read_top(self, module: str, package: str, node: ast.stmt) -> None:
        imports = self.modules[module]
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                imports[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.values[module][node.targets[0].id] = node.value

    def _read_scope(self, module: str, body: list[ast.stmt], prefix: str, klass: str | None) -> None:
        for node in _top_level(body):
            if isinstance(node, ast.ClassDef):
                name = f"{prefix}.{node.name}"
                self.classes.add(name)
                self.written[name] = (module, node.bases)
                self._read_scope(module, node.body, name, name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{node.name}"
                self.function_class[name] = klass
                self._read_scope(module, node.body, f"{name}.<locals>", klass)

    def resolve(self, module: str, node: ast.expr, defining: str = "", hops: int = 0) -> str | None:
        """The class a name written in `module` stands for; `class X(X)` names an imported X (the
        class being defined is not bound yet)."""
        dotted = _dotted(node)
        if dotted is None or hops > 20:
            return None
        head, _, rest = dotted.partition(".")
        if f"{module}.{dotted}" in self.classes and f"{module}.{dotted}" != defining:
            return f"{module}.{dotted}"
        if head in self.modules.get(module, {}):
            return self._resolve_qualified(self.modules[module][head] + ("." + rest if rest else ""), hops + 1)
        value = self.values.get(module, {}).get(head)
        return self.resolve(module, value, "", hops + 1) if value is not None and not rest else None

    def _resolve_qualified(self, qualified: str, hops: int) -> str | None:
        if qualified in self.classes:
            return qualified
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return self.resolve(module, ast.parse(".".join(parts[cut:]), mode="eval").body, "", hops + 1)
        return None

    @lru_cache(maxsize=None)
    def related(self, klass: str) -> frozenset[str]:
        """The class, its ancestors and its descendants."""
        found = {klass}
        for links in (self.parents, self.children):
            stack = [klass]
            while stack:
                for other in links.get(stack.pop(), ()):
                    if other not in found:
                        found.add(other)
                        stack.append(other)
        return frozenset(found)

    def receiver_calls(self) -> dict[tuple[str, int], set[str]]:
        """(path, line) -> names `m` of the `self.m()`, `cls.m()` and `super().m()` calls there."""
        found: dict[tuple[str, int], set[str]] = defaultdict(set)
        for rel, tree in self.trees.items():
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                receiver = node.func.value
                if (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")) or (
                    isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
                ):
                    found[(rel, node.lineno)].add(node.func.attr)
        return found


def _top_level(body: list[ast.stmt]):
    """Statements of a body, also those under `if`/`try`/`with` (TYPE_CHECKING imports, fallbacks)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(node, field, []))
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def _dotted(node: ast.expr | None) -> str | None:
    """`a.b.C` as written (`Generic[T]` -> `Generic`); None for anything but a dotted name."""
    while isinstance(node, ast.Subscript):
        node = node.value
    text = ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""
    return text if text and all(part.isidentifier() for part in text.split(".")) else None


def test_self_cls_super_calls_stay_in_the_callers_hierarchy(release_0271):
    oracle = Hierarchy(release_0271)
    calls = oracle.receiver_calls()
    checked, unrelated = 0, []
    for edge in package_graph(release_0271).callgraph_document().edges:  # every edge, not those toward a scope
        if edge.callee.rsplit(".", 1)[1] not in calls.get((edge.path, edge.line), ()):
            continue
        caller, callee = oracle.function_class.get(edge.caller), oracle.function_class.get(edge.callee)
        if caller is None or callee is None:
            continue
        checked += 1
        if callee not in oracle.related(caller):
            unrelated.append(edge)
    assert checked > 10_000  # the oracle saw the edges it is meant to check
    assert len(unrelated) / checked <= 0.005, unrelated[:20]

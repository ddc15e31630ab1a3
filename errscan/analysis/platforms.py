"""Platforms along a chain: one process runs on one platform, so a chain whose steps need platforms
that exclude each other is never taken.

The profile (`Platforms`) names the platforms, the tests true on some of them only and the classes
whose methods run on some of them only. A step needs the platforms of the tests its call is made
under (`if current_platform.is_rocm():`, `not current_platform.is_cpu()`), of the class of the
method it calls (or of a base of that class the profile names), and of its module: one whose every
import runs under such a test, or in a module so loaded, is loaded on those platforms only (`from
.amd.model import M` in the `else` of `if not current_platform.is_rocm():`). A module no import
statement loads, or that a string names (loaded by name), may run anywhere. A method also needs
the platforms on which every object it runs on is made (`graph/made.py`): a class a function
returns only under `if current_platform.is_cuda():`. What no test, class, import or making decides
stays open: a chain is refused only when two steps leave no platform in common.
"""

from __future__ import annotations

import ast

from errscan.extract.conditions import conjuncts, parse_expression
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.profiles import Platforms

On = tuple[frozenset[str], str] | None  # the platforms the chain may still run on and the step that said so; None: any


class PlatformRules:
    def __init__(self, graph: CallGraph, platforms: Platforms | None):
        self.graph = graph
        self.names = frozenset(platforms.names) if platforms else frozenset()
        self.tests = {fast_unparse(parse_expression(code)): frozenset(names) for code, names in platforms.tests} if platforms else {}
        self.classes = {klass: frozenset(names) for klass, names in platforms.classes} if platforms else {}
        self._codes: dict[str, frozenset[str] | None] = {}
        self._nodes: dict[str, tuple[frozenset[str], str] | None] = {}
        self.modules = self._loaded() if self.tests else {}

    def node(self, node: str) -> tuple[frozenset[str], str] | None:
        """The platforms `node` runs on, as its class (or the nearest base the profile names) says, and why."""
        if node not in self._nodes:
            entry = self.graph.functions.get(node)
            klass = entry[0].class_qualname if entry is not None else None
            short = ".".join(node.rsplit(".", 2)[-2:])
            found = None
            for owner in (klass, *self.graph.index.bases(klass)) if klass and self.classes else ():
                if owner in self.classes:
                    found = (self.classes[owner], f"`{short}` runs only on {_names(self.classes[owner])}")
                    break
            module = entry[1].module if entry is not None else None
            loaded = self.modules.get(module)
            if loaded is not None and (found is None or loaded & found[0] and not found[0] <= loaded):
                names = loaded & found[0] if found else loaded
                found = (names, f"`{short}` runs only on {_names(names)} (where `{module}` is imported)")
            made = self._made_on(node, klass) if klass and self.tests else None
            if made is not None and (found is None or made & found[0] and not found[0] <= made):
                names = made & found[0] if found else made
                found = (names, f"`{short}` runs only on {_names(names)} (where its objects are made)")
            self._nodes[node] = found
        return self._nodes[node]

    def _made_on(self, node: str, klass: str) -> frozenset[str] | None:
        """The platforms on which the objects whose class resolves `node` are made (None: any): each
        made, or its class handed on, under a platform test or in a module loaded on some platforms
        only (`if current_platform.is_cuda(): return CudaImpl`). A class nothing makes may come
        from anywhere, unless it is a base no object of exactly which exists."""
        graph = self.graph
        name = node.rsplit(".", 1)[1]
        names: set[str] = set()
        for candidate in (klass, *graph.subclasses.get(klass, ())):
            if graph.lookup_method(candidate, name) != node:
                continue
            sites = graph.made.get(candidate)
            if not sites and graph.exists(candidate):
                return None
            for module, code in sites or ():
                tested, loaded = self.condition(code), self.modules.get(module)
                if tested is None and loaded is None:
                    return None
                names |= tested & loaded if tested is not None and loaded is not None else tested or loaded  # type: ignore[operator]
        return frozenset(names) if names else None

    def _loaded(self) -> dict[str, frozenset[str]]:
        """The platforms on which each module that only guarded imports load may be loaded (the
        least such sets: a module is loaded only through imports from modules loaded themselves)."""
        index = self.graph.index
        named = {text for m in index.modules.values() for call in m.calls
                 for text in (*call.literal_args, *(v for _, v in call.literal_keywords)) if text and "." in text}
        named |= {text for m in index.modules.values() for table in m.tables for strings in table.strings for text in strings if "." in text}
        importers: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for facts in index.modules.values():
            for target, code in facts.imported:
                module = target if target in index.modules else target.rpartition(".")[0]
                if module in index.modules and module != facts.module:
                    importers.setdefault(module, []).append((facts.module, self.condition(code) or self.names))
        named |= {text.rpartition(".")[0] for text in named}
        # (a module a string names, even relative to a prefix, may be loaded by name: anywhere)
        loaded = {m: frozenset[str]() for m in importers if not {m.split(".", i)[-1] for i in range(m.count("."))} & named}
        changed = True
        while changed:
            changed = False
            for module, into in importers.items():
                if module not in loaded:
                    continue
                names = frozenset().union(*(tested & loaded.get(importer, self.names) for importer, tested in into))
                if names != loaded[module]:
                    loaded[module], changed = names, True
        return {m: names for m, names in loaded.items() if names and names != self.names}

    def condition(self, code: str | None) -> frozenset[str] | None:
        """The platforms on which the condition `code` may hold, as its platform tests say (None: any)."""
        if not code or not self.tests:
            return None
        if code not in self._codes:
            tree = parse_expression(code)
            parts = conjuncts(tree) if tree is not None else []
            found = None
            for part in parts:
                negated = isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not)
                names = self.tests.get(fast_unparse(part.operand if negated else part))
                if names is not None:
                    names = self.names - names if negated else names
                    found = names if found is None else found & names
            self._codes[code] = found
        return self._codes[code]

    def step(self, on: On, code: str | None, callee: str, where: str) -> tuple[On, str]:
        """What the chain may run on after the call of `callee` (`where`, made under `code`); and,
        when no platform is left, why."""
        if not self.names:
            return on, ""
        tested = self.condition(code)
        needs = [(tested, f"{where} is made only on {_names(tested)}") if tested is not None else None, self.node(callee)]
        for need in needs:
            if need is None:
                continue
            if on is None:
                on = need
                continue
            both = on[0] & need[0]
            if not both:
                return on, f"{need[1]}, but {on[1]}: no platform runs both"
            on = (both, on[1] if both == on[0] else need[1])
        return on, ""


def _names(platforms: frozenset[str]) -> str:
    return " or ".join(sorted(platforms))

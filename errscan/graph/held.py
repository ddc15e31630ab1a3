"""What an object holds, or a function gives, where no annotation says: the objects the code builds.

- Elements: an attribute whose value builds objects inside a list, a dict, a comprehension or a
  lambda, or by a factory function handed along (`nn.ModuleList([Block() for _ in ...])`,
  `make_layers(n, lambda prefix: Block(prefix))`, `make_layers(n, get_layer)`), holds those objects.
  An element is reached by indexing the attribute (`self.layers[i](x)`, `layer = self.layers[i]`),
  iterating over it (`for layer in islice(self.layers, a, b)`: the walk writes such a local as
  `self.layers[]`) or calling it (`nn.Sequential`): a call goes to the element's `__call__` (or
  `forward`), a method call to that method, each with resolution `element`.
- Made returns: a function without a return annotation whose `return` statements all build one
  class (`return LlamaModel(...)`) gives an instance of it, so `self.model = self._init_model()`
  has that type. A function whose returns that can run under a call's keyword arguments each
  build a class (`make(async_mode=False)` reaching only `return Sync()` or `return Inproc()`)
  gives an object of exactly one of those classes there: `made_under`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from errscan.graph.resolve import Resolver

ELEMENT = "element"


class Held:
    def __init__(self, graph: Resolver):
        self.graph = graph
        self.made: dict[str, set[str]] = defaultdict(set)  # function -> classes its returns build
        self.unmade: set[str] = set()  # functions with a return that builds nothing known
        # function -> (the class a return builds (None: none known), its condition as code (None: unreadable))
        self.returns: dict[str, list[tuple[str | None, str | None]]] = defaultdict(list)
        for module in graph.index.modules.values():
            for ret in module.returns:
                node = f"{module.module}.{ret.scope}" if ret.scope else f"{module.module}.<module>"
                klass = graph.qualify(module, ret.scope, ret.made) if ret.made else None
                if klass in graph.index.classes:
                    self.made[node].add(klass)
                else:
                    klass = None
                    self.unmade.add(node)
                readable = not any(t.loop or t.pseudo for t in ret.condition)
                self.returns[node].append((klass, " and ".join(f"({t.code})" for t in ret.condition) or "True" if readable else None))
        self.elements: dict[str, dict[str, list[str]]] = defaultdict(dict)  # class -> attribute -> element classes

    def gather_elements(self) -> None:
        """The element classes of each attribute, once the graph can tell what functions return."""
        for module in self.graph.index.modules.values():
            for typed in module.attribute_types:
                if typed.element:
                    owner = f"{module.module}.{typed.class_scope}"
                    for klass in self._built(module, typed.scope, typed.type):
                        found = self.elements[owner].setdefault(typed.attribute, [])
                        if klass not in found:
                            found.append(klass)

    def made_class(self, function: str) -> str | None:
        """The class every `return` of `function` builds, when all build the same one."""
        found = self.made.get(function, ())
        return next(iter(found)) if len(found) == 1 and function not in self.unmade else None

    def made_under(self, function: str, keywords: dict[str, str]) -> tuple[str, ...]:
        """The classes `function`'s returns build where its parameters are given `keywords` (a
        return under a condition they make false is left out); () when a live return builds no
        class of the tree."""
        found: list[str] = []
        for klass, code in self.returns.get(function, ()):
            if code is not None and _truth(code, keywords) is False:
                continue
            if klass is None:
                return ()
            found.append(klass)
        return tuple(dict.fromkeys(found))

    def _built(self, module, scope: str, written: str) -> list[str]:
        """The classes `written` builds in `scope`: a class, or a function (a nested factory
        first) whose returns build one."""
        graph = self.graph
        nested = f"{module.module}.{scope}.<locals>.{written}" if scope else None
        target = nested if nested in graph.functions else graph.qualify(module, scope, written)
        if target in graph.index.classes:
            return [target]
        if target in graph.functions:
            klass = self.made_class(target) or graph.returned_class(target)
            return [klass] if klass else []
        return []

    def of(self, klass: str, attribute: str) -> list[str]:
        """The element classes of `attribute` on an object of `klass` (set in it or a base)."""
        for owner in self.graph.mro(klass):
            found = self.elements.get(owner, {}).get(attribute)
            if found:
                return found
        return []

    def reach(self, klass: str, attribute: str, rest: str) -> list[tuple[str, str]] | None:
        """An element of `attribute` (of a `klass`) called (`rest` ""), or `rest` (`.m`, `.a.m`) on it."""
        graph = self.graph
        targets: list[tuple[str, str]] = []
        for element in self.of(klass, attribute):
            if not rest:
                found = graph._call_instance(element, ELEMENT)
            elif "." not in rest:
                found = graph._method_with_overrides(element, rest, ELEMENT)
            else:
                found = graph._on_instance(element, rest, ELEMENT)
            targets += [(t, ELEMENT) for t, _ in found or ()]  # an object, never a function passed along
        return list(dict.fromkeys(targets)) or None


def _truth(code: str, values: dict[str, str]) -> bool | None:
    """`code` (`and`/`or`/`not` of names and constants) with `values` for names: True, False, or
    None when it is not decided."""
    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError:
        return None

    def truth(node: ast.expr) -> bool | None:
        if isinstance(node, ast.Constant):
            return bool(node.value)
        if isinstance(node, ast.Name) and node.id in values:
            value = ast.parse(values[node.id], mode="eval").body
            return bool(value.value) if isinstance(value, ast.Constant) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = truth(node.operand)
            return None if inner is None else not inner
        if isinstance(node, ast.BoolOp):
            parts = [truth(v) for v in node.values]
            decisive = isinstance(node.op, ast.Or)  # True decides an `or`, False an `and`
            return decisive if decisive in parts else (None if None in parts else not decisive)
        return None

    return truth(tree)

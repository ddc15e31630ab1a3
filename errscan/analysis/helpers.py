"""Settings read in helper functions: a condition that calls `is_conv_state_dim_first()` is decided by
the environment variable that function's helper reads.

What a function returns depends on its `return` values and on the conditions under which each
`return` is reached; so the settings read there are the function's, and, up to `MAX_DEPTH` calls
down, those of the functions called in them (on a `return` line, or in such a condition). What a
function does besides (logging, other work) decides nothing about its result and is not read, nor
is a setting it only passes on to another call (`make(cfg.x)`): errscan does not follow arguments.
"""

from __future__ import annotations

import ast

from errscan.analysis.knobs import KnobCatalog, knobs_in
from errscan.extract.conditions import parse_expression
from errscan.extract.facts import CallFact, ModuleFacts, ReturnFact
from errscan.graph.calls import CallGraph
from errscan.model import Knob
from errscan.profiles import Profile

MAX_DEPTH = 3


class HelperSettings:
    def __init__(self, graph: CallGraph, catalog: KnobCatalog, profile: Profile):
        self.graph = graph
        self.catalog = catalog
        self.profile = profile
        # module -> scope -> (its returns, its calls by line), built for a module when first needed
        self._bodies: dict[str, dict[str, tuple[list[ReturnFact], dict[int, list[CallFact]]]]] = {}
        self._known: dict[tuple[str, int], tuple[Knob, ...]] = {}
        self._called: dict[tuple[str, str, str, int], list[Knob]] = {}  # many conditions repeat

    def called_in(self, expression: str, module: ModuleFacts, scope: str, depth: int = 0) -> list[Knob]:
        """Settings read by the functions of the tree that `expression` (code of `scope`) calls."""
        if "(" not in expression or depth >= MAX_DEPTH:
            return []
        key = (expression, module.module, scope, depth)
        found = self._called.get(key)
        if found is None:
            tree = parse_expression(expression)
            calls = (_dotted(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)) if tree is not None else ()
            found = self._called[key] = [
                knob for callee in calls if callee
                for function in self._functions(module, scope, callee) for knob in self.read_by(function, depth)
            ]
        return found

    def read_by(self, function: str, depth: int = 0) -> tuple[Knob, ...]:
        """Settings `function`'s result depends on (see the module's docstring)."""
        key = (function, depth)
        if key in self._known:
            return self._known[key]
        self._known[key] = ()  # a recursive helper adds nothing more to itself
        fact, module = self.graph.functions[function]
        returns, calls = self._body(module).get(fact.scope, ([], {}))
        own: list[Knob] = []
        deeper: list[Knob] = []
        for ret in returns:
            for source in [t.deep for t in ret.condition if not t.pseudo] + [v for v in (ret.value, ret.deep) if v]:
                own.extend(knobs_in(source, self.catalog, self.profile, arguments=False))
                deeper.extend(self.called_in(source, module, fact.scope, depth + 1))
            for call in calls.get(ret.line, ()):  # what the returned expression is computed from
                if call.literal_args and call.literal_args[0] is not None:
                    own.extend(knobs_in(f"{call.callee}({call.literal_args[0]!r})", self.catalog, self.profile))
                if depth + 1 < MAX_DEPTH:
                    for callee in self._functions(module, fact.scope, call.callee):
                        deeper.extend(self.read_by(callee, depth + 1))
        name = function.rsplit(".", 1)[1]
        found = [Knob(k.kind, k.name, f"{k.detail}, read in {name}()" if k.detail else f"read in {name}()") for k in own]
        self._known[key] = tuple(dict.fromkeys(found + deeper))
        return self._known[key]

    def _functions(self, module: ModuleFacts, scope: str, callee: str) -> list[str]:
        targets = self.graph.resolve_callee(module, scope, callee, None) or []
        return [t for t, how in targets if t in self.graph.functions and how != "constructor"]

    def _body(self, module: ModuleFacts) -> dict[str, tuple[list[ReturnFact], dict[int, list[CallFact]]]]:
        bodies = self._bodies.get(module.module)
        if bodies is None:
            bodies = self._bodies[module.module] = {}
            for ret in module.returns:
                bodies.setdefault(ret.scope, ([], {}))[0].append(ret)
            for call in module.calls:
                if call.caller in bodies and call.kind == "call":
                    bodies[call.caller][1].setdefault(call.line, []).append(call)
        return bodies


def _dotted(node: ast.expr) -> str | None:
    """`f`, `mod.f`, `self.f` as text; None for any other callee (`f()()`, `x[0].f`)."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(names)]) if isinstance(node, ast.Name) else None

"""Attributes set right after construction: two-phase initialisation (`w = C(); w.set_engine(e)`).

An attribute of a class C that `__init__` leaves None (or anything) and a setter `S` of C sets
from its parameter holds that parameter's value in every other method of C when:

- every construction of C in the package is followed, as the very next statement, by a call of
  `S` on the new object (`extract/stores.py`: `FirstCall`), passing a value that is never None
  (an object a constructor made, or a constant other than None: `bindings.carried`, the path that
  proves a parameter never None along a chain), and C is only ever called (never handed on as a
  class), C has no subclasses, and `__init__` hands `self` to nothing;
- `S` is called nowhere else (a call resolved to another class's method of that name aside, or
  `self.S()` in a class unrelated to C), and sets the
  attribute as its first effect: no call and no raise that can fire before it, under no condition;
- nothing else writes the attribute: no write on any receiver but `self` anywhere, and
  `self.a = ...` only in C's `__init__` and in `S`, or in classes unrelated to C. A name written
  through `setattr` or `__dict__` counts as every name on `self`, and on any object in the modules
  that name C (its own and those importing it); elsewhere (`setattr(layer, name, w)` in code that
  never names C) it is taken to write other objects: the one limit of what is seen.

What `__init__` runs (its callees, in the call graph) runs before the setter; they and `S` are
left out. Anything the rules do not see makes no statement: the attribute is then not settled.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import networkx as nx

from errscan.analysis.bindings import carried
from errscan.analysis.solver import satisfiable
from errscan.extract.conditions import render
from errscan.extract.facts import AttributeStore, CallFact, FirstCall, ModuleFacts
from errscan.graph.calls import CallGraph, CallSite
from errscan.graph.index import function_node


_SELF = re.compile(r"\bself\b(?!\.)")  # the object itself, not one of its attributes


@dataclass(frozen=True)
class Settled:
    """`self.attribute` is never None in the methods of `klass` but `excluded`."""

    klass: str
    attribute: str
    setter: str
    value: str  # what every construction passes the setter: `an `IOEngine` object`, `` `5` ``
    places: tuple[str, ...]  # "made at f.py:932, given at f.py:937" per construction
    excluded: frozenset[str]  # `__init__`, what it calls, and the setter

    def why(self, function: str) -> str:
        short = self.klass.rsplit(".", 1)[-1]
        return (f"`self.{self.attribute}` is never None in `{function}`: every `{short}` is given {self.value} by "
                f"`{self.setter}` right after it is made ({'; '.join(self.places)}), and nothing else assigns it")


class SettledAttributes:
    """Per class, its settled attributes, found once for the whole package."""

    def __init__(self, graph: CallGraph):
        self.graph = graph
        self._stores: dict[str, list[tuple[ModuleFacts, AttributeStore]]] = defaultdict(list)  # attribute -> writes
        self._calls: dict[str, list[tuple[ModuleFacts, CallFact]]] = defaultdict(list)  # last name called -> calls
        self._firsts: dict[tuple[str, str, int], FirstCall] = {}  # (module, scope, line of `C(...)`)
        self._imported: dict[str, list[tuple[str, str]]] = defaultdict(list)  # class imported -> (module, local name)
        for module in graph.index.modules.values():
            for store in module.attribute_stores:
                self._stores[store.attribute].append((module, store))
            for call in module.calls:
                self._calls[call.callee.rsplit(".", 1)[-1]].append((module, call))
            for first in module.first_calls:
                self._firsts[(module.module, first.scope, first.line)] = first
            for names in module.imports.values():
                for local, target in names.items():
                    self._imported[graph.index.canonical(target)].append((module.module, local))
        self._found: dict[str, tuple[Settled, ...]] = {}

    def of(self, node: str) -> tuple[Settled, ...]:
        """The attributes settled in the function `node`: a method of their class run on `self`."""
        entry = self.graph.functions.get(node)
        if entry is None or entry[0].class_qualname is None or not entry[0].params or entry[0].params[0][0] != "self":
            return ()
        klass = entry[0].class_qualname
        if klass not in self._found:
            self._found[klass] = self._settle(klass)
        return tuple(s for s in self._found[klass] if node not in s.excluded)

    def _settle(self, klass: str) -> tuple[Settled, ...]:
        graph = self.graph
        if klass not in graph.index.classes or graph.subclasses.get(klass):
            return ()
        made = self._constructions(klass)
        init = graph.lookup_method(klass, "__init__") or f"{klass}.__init__"  # its own, or a base's
        if not made or init in graph.functions and self._hands_self(init):
            return ()
        before = nx.descendants(graph.graph, init) | {init} if init in graph.graph else {init}
        found = []
        for method in {first.method for _, _, first in made}:
            setter = f"{klass}.{method}"
            if setter not in graph.functions or any(first.method != method for _, _, first in made):
                continue
            fact, module = graph.functions[setter]
            for store in module.attribute_stores:
                if store.scope != fact.scope or store.receiver != "self" or not store.always or not store.value:
                    continue
                parameter = store.value
                if parameter not in dict(fact.params[1:]) or not self._first_effect(setter, store, parameter):
                    continue
                given = self._given(klass, made, method, parameter)
                if given is None or not self._only_writes(klass, store, setter):
                    continue
                value, places = given
                found.append(Settled(klass, store.attribute, method, value, places, frozenset(before | {setter})))
        return tuple(found)

    def _constructions(self, klass: str) -> list[tuple[ModuleFacts, CallFact, FirstCall]]:
        """Each call of the class, with the setter call that follows it; [] when one is not so."""
        graph, short = self.graph, klass.rsplit(".", 1)[-1]
        found = []
        for name in {short, *(local for _, local in self._imported.get(klass, ()))}:
            for module, call in self._calls.get(name, ()):
                qualified = graph.qualify(module, call.caller, call.callee)
                if qualified is not None and graph.index.canonical(qualified) != klass:
                    continue
                first = self._firsts.get((module.module, call.caller, call.line))
                if call.kind == "reference" and (call.passed_to or "").startswith(("isinstance:", "issubclass:")):
                    continue  # a test of what an object is: no object made
                if qualified is None or call.kind != "call" or first is None or first.made != call.callee:
                    return []  # handed on as a class, or not followed at once by a setter call
                found.append((module, call, first))
        return found

    def _hands_self(self, init: str) -> bool:
        """Whether `__init__` passes `self` to a call (`f(self)`, `args=(self,)`): the object may be
        used before the setter."""
        fact, module = self.graph.functions[init]
        return any(c.caller == fact.scope and any(_SELF.search(text) for text in [*c.arguments, *(v for _, v in c.keywords)])
                   for c in module.calls)

    def _first_effect(self, setter: str, store: AttributeStore, parameter: str) -> bool:
        """Whether the setter writes the attribute (in its own body) before any call, property read or
        `return`, and no raise before it can fire when the parameter is not None."""
        fact, module = self.graph.functions[setter]
        if any(c.caller == fact.scope and c.kind != "reference" and c.line < store.line for c in module.calls) or \
                any(r.scope == fact.scope and r.line < store.line for r in module.returns):
            return False
        mine = [s for s in module.statements if fact.line < s.line < store.line and s.kind != "log"]
        return all(satisfiable(render(s.condition, "deep") or "True", f"{parameter} is not None") is False for s in mine)

    def _given(self, klass: str, made: list[tuple[ModuleFacts, CallFact, FirstCall]], method: str, parameter: str) -> tuple[str, tuple[str, ...]] | None:
        """What every construction's setter call passes the parameter, when never None; and where.
        The setter is called nowhere else but by `self` in classes unrelated to `klass`."""
        graph, setter = self.graph, f"{klass}.{method}"
        expected = {(module.module, first.scope, first.call_line) for module, _, first in made}
        values, places = set(), []
        for module, call in self._calls.get(method, ()):
            if call.callee == f"self.{method}" and self._unrelated(klass, module, call.caller):
                continue
            targets = graph.resolve(module, call) if (module.module, call.caller, call.line) not in expected else None
            if targets is not None and all(target != setter for target, _ in targets):
                continue  # a method of that name of another class (or of another package)
            if (module.module, call.caller, call.line) not in expected or call.kind != "call":
                return None
            where = graph.paths.get(module.module, module.module)
            site = CallSite(where, call.line, (), "method", "object", call)
            bound = dict(carried(graph, (), site, function_node(module.module, call.caller), setter)).get(parameter)
            if bound is None or not bound.built and bound.value == "None":
                return None
            values.add(f"a `{bound.value}` object" if bound.built else f"`{bound.value}`")
            short = where.rsplit("/", 1)[-1]
            line = next(c.line for m, c, f in made if m is module and f.call_line == call.line)
            places.append(f"made at {short}:{line}, given at {short}:{call.line}")
        if len(values) != 1 or len(places) != len(expected):
            return None
        return values.pop(), tuple(places)

    def _only_writes(self, klass: str, store: AttributeStore, setter: str) -> bool:
        """Whether the setter's write and `__init__`'s are the only writes of the attribute that
        may reach an object of `klass`."""
        graph = self.graph
        init_scope = graph.functions[setter][0].scope.rsplit(".", 1)[0] + ".__init__"
        owner = graph.functions[setter][1].module
        naming = {owner} | {module for module, _ in self._imported.get(klass, ())}
        for module, other in [*self._stores.get(store.attribute, ()), *self._stores.get("*", ())]:
            if other is store or module.module == owner and other.scope == init_scope and other.receiver == "self":
                continue
            unknown = other.receiver != "self" or graph._instance_class(module, other.scope, "self") is None
            if other.attribute == "*" and module.module not in naming and unknown:
                continue  # a name computed where the class is not named (`setattr(layer, name, w)`)
            if other.receiver != "self" or not self._unrelated(klass, module, other.scope):
                return False
        return True

    def _unrelated(self, klass: str, module: ModuleFacts, scope: str) -> bool:
        """Whether `self` in `scope` (a method, or a function nested in one) is of a class that is
        neither `klass` nor one of its bases or subclasses."""
        owner = self.graph._instance_class(module, scope, "self")
        return owner is not None and owner not in self.graph.mro(klass) and klass not in self.graph.mro(owner)


def ruled_out(code: str | None, earlier: tuple[str, ...], settled: tuple[Settled, ...], function: str) -> str | None:
    """Why `code` (a site's own condition, deep, in `function`) cannot hold once its settled
    attributes are not None; None when it still can, or nothing is settled."""
    read = [s for s in settled if code and re.search(rf"\bself\.{s.attribute}\b", code)]
    if not read or satisfiable(code, *earlier, *(f"self.{s.attribute} is not None" for s in read)) is not False:
        return None
    needed = [s for s in read if satisfiable(code, *earlier, f"self.{s.attribute} is not None") is False] or read
    name = function.rsplit(".", 1)[-1]
    return f"`{code}` cannot hold, as " + "; and ".join(s.why(name) for s in needed)

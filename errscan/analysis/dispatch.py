"""Which plugins' objects can dispatch along a chain: `self.worker.m()` runs the `m` of the class
the plugin actually put in `self.worker`, and an override in that class hides the base method.

The backward search of `chains.py` carries, per state, what the object a method runs on must
dispatch to: `(path, method)`, the attributes read from that object (`()`: the object itself)
and the method their class must resolve a name to. A call on `self` (or `super()`) keeps the
object, so the demands go on; `self.a.b.m()` prefixes them with `a.b`; a call of a method that
has overrides below the class it resolved on adds its own. Any other call (a function, a local,
a parameter) loses track of the object, and with it every demand: nothing is ruled out that way.

At an entry point the plugin's class is known exactly, and so are the classes its attributes
hold when every value its classes' methods give them is an object they construct (or None):
a plugin none of whose classes resolves the method cannot run the chain. (An attribute set from
outside its class, `obj.x = ...` or `setattr`, is not seen: the graph types attributes alike.)
"""

from __future__ import annotations

from collections import defaultdict

from errscan.analysis.entries import Plugin
from errscan.graph.calls import CallGraph, CallSite, function_node

Demand = tuple[tuple[str, ...], str]  # attributes read from the object, and the method they must resolve to
Bound = frozenset[Demand]
_NOTHING: Bound = frozenset()
_UNSEEN = object()  # a step not looked at yet


class Dispatch:
    def __init__(self, graph: CallGraph):
        self.graph = graph
        self._steps: dict[tuple[str, str], tuple[tuple[str, ...], str | None] | None] = {}
        self._allowed: dict[tuple[str, int, str, Bound], bool] = {}  # chains of many sites retake the same calls
        self._reached: dict[tuple[str, tuple[str, ...]], set[str] | None] = {}
        # (class, attribute) -> the classes its methods construct for it; None: some other value too
        self._held: dict[tuple[str, str], set[str] | None] = defaultdict(set)
        for module in graph.index.modules.values():
            for typed in module.attribute_types:
                key = (function_node(module.module, typed.class_scope), typed.attribute)
                if typed.element or typed.type == "None" or self._held[key] is None:
                    continue  # a container's elements come with a value of their own; None has no methods
                klass = graph.qualify(module, typed.scope or typed.class_scope, typed.type) if typed.from_call else None
                if klass in graph.index.classes:
                    self._held[key].add(klass)  # type: ignore[union-attr]
                elif typed.from_call or not typed.type or typed.given or not typed.scope:
                    self._held[key] = None  # what a function returns, a parameter, a class field...
                # else: a method's annotation, whose value is written down beside it

    def step(self, caller: str, callee: str, bound: Bound) -> Bound:
        """What the caller's `self` must dispatch to, for the callee's `self` to dispatch to `bound`."""
        key = (caller, callee)
        how = self._steps.get(key, _UNSEEN)
        if how is _UNSEEN:
            found = {self._site(caller, callee, site) for site in self.graph.graph[caller][callee]["sites"]}
            how = self._steps[key] = found.pop() if len(found) == 1 else None
        if how is None:
            return _NOTHING
        path, added = how
        if not bound and not added:
            return _NOTHING
        demands = {(path + attributes, method) for attributes, method in bound}
        return frozenset(demands | {(path, added)} if added else demands)

    def _site(self, caller: str, callee: str, site: CallSite) -> tuple[tuple[str, ...], str | None] | None:
        """(attributes read from the caller's `self` to the callee's, and the method they must
        resolve to when the call could have gone to an override) or None: another object."""
        fact = self.graph.functions.get(caller, (None, None))[0]
        written = site.call.callee if site.call is not None and not site.call.aliases else ""
        if fact is None or fact.class_qualname is None or not fact.params or "(" in written.replace("super()", "") or "[" in written:
            return None
        head, *attributes, name = written.split(".") if "." in written else ("", "")
        if head == "super()" and site.resolution == "super":
            return (), None
        if name == "start" and site.resolution == "thread":
            name = "run"  # a thread's `start()` runs its `run` on the same object
        if head != fact.params[0][0] or callee.rsplit(".", 1)[-1] != name or site.resolution in ("constructor", "property"):
            return None
        klass = self.graph._through(fact.class_qualname, attributes)[0] if attributes else fact.class_qualname
        if klass is None:
            return None
        _, overrides = self.graph.dispatch(klass, name)
        return tuple(attributes), callee if overrides else None

    def site_allows(self, caller: str, site: CallSite, callee: str, bound: Bound) -> bool:
        """Whether the object `site` calls the callee on can dispatch as `bound` demands: of two
        calls of one pair (`self.sender.start()`, `receiver.start()`), only those whose object may
        be of a class that resolves the demanded methods. The caller's `self` may be of its class
        or of any subclass."""
        if not bound:
            return True
        key = (caller, id(site), callee, bound)  # the sites live as long as the graph
        if key not in self._allowed:
            self._allowed[key] = self._allows_site(caller, site, callee, bound)
        return self._allowed[key]

    def _allows_site(self, caller: str, site: CallSite, callee: str, bound: Bound) -> bool:
        how = self._site(caller, callee, site)
        if how is None:
            return True
        klass = self.graph.functions[caller][0].class_qualname
        for attributes, method in bound:
            name = method.rsplit(".", 1)[1]
            held = [self._classes(c, how[0] + attributes) for c in (klass, *self.graph.subclasses.get(klass, ()))]
            if None not in held and all(self.graph.lookup_method(c, name) != method for found in held for c in found):
                return False
        return True

    def allows(self, plugin: Plugin, bound: Bound) -> bool:
        """Whether an object of the plugin's class can dispatch as `bound` demands."""
        if plugin.klass not in self.graph.index.classes:
            return True
        for attributes, method in bound:
            classes = self._classes(plugin.klass, attributes)
            name = method.rsplit(".", 1)[1]
            if classes is not None and all(self.graph.lookup_method(c, name) != method for c in classes):
                return False
        return True

    def _classes(self, klass: str, attributes: tuple[str, ...]) -> set[str] | None:
        """The classes `attributes` read from an object of exactly `klass` may hold; None: unknown."""
        key = (klass, attributes)
        if key not in self._reached:
            self._reached[key] = self._held_by(klass, attributes)
        return self._reached[key]

    def _held_by(self, klass: str, attributes: tuple[str, ...]) -> set[str] | None:
        classes = {klass}
        for attribute in attributes:
            reached: set[str] = set()
            for current in classes:
                held = [self._held.get((c, attribute), set()) for c in self.graph.mro(current)]
                if any(h is None for h in held) or not any(held):
                    return None  # given some other value, or no value the classes' methods give it
                reached.update(*held)
            classes = reached
        return classes

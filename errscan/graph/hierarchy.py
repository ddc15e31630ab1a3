"""The package's classes, and where a call on an object of one of them goes.

A method call on an object of a known class goes to the method that class resolves to in its MRO
(C3, as Python does) and to each override in the class's own subclasses (the object may be one of
them), never to a class beside it; a property read runs its getter, `start()` of a thread class its
`run`, a called object its `__call__` (or `forward`), a constructor `__init__` and `__post_init__`.
A class's own method is no target when no object of exactly that class can exist and each of its
subclasses resolves the name elsewhere (`exists`).
"""

from __future__ import annotations

from collections import defaultdict

from errscan.extract.facts import FunctionFact, ModuleFacts
from errscan.graph.index import PackageIndex

# Classes whose `start()` runs the subclass's `run()` in a new thread or process.
THREAD_CLASSES = frozenset({"threading.Thread", "multiprocessing.Process", "multiprocessing.context.Process"})

# Classes whose instances, when called, run a method of theirs: `module(x)` runs `module.forward(x)`.
CALLED_INSTANCES = {"torch.nn.Module": "forward", "torch.nn.modules.module.Module": "forward"}
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "abstractproperty"})
_ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"})


def is_property(fact: FunctionFact) -> bool:
    """`@property`, `@functools.cached_property`, `@abc.abstractproperty`: reading it calls it."""
    return any(d.rsplit(".", 1)[-1] in _PROPERTY_DECORATORS for d in fact.decorators)


def _is_accessor(fact: FunctionFact) -> bool:
    """`@name.setter` / `@name.deleter`: defined under the getter's name, called on writes."""
    name = fact.qualname.rsplit(".", 1)[-1]
    return any(d in (f"{name}.setter", f"{name}.deleter") for d in fact.decorators)


class ClassHierarchy:
    """Functions and classes of the package by qualified name, and their MRO."""

    def __init__(self, index: PackageIndex):
        self.index = index
        self.functions: dict[str, tuple[FunctionFact, ModuleFacts]] = {}
        for module in index.modules.values():
            for fact in module.functions:
                # A property's setter has the getter's name; the getter is what a read calls.
                if fact.qualname not in self.functions or not _is_accessor(fact):
                    self.functions[fact.qualname] = (fact, module)
        self.methods: dict[str, dict[str, str]] = defaultdict(dict)
        for qualname, (fact, _) in self.functions.items():
            if fact.class_qualname:
                self.methods[fact.class_qualname][qualname.rsplit(".", 1)[1]] = qualname
        self.subclasses: dict[str, set[str]] = defaultdict(set)
        for klass in index.classes:
            for base in index.bases(klass):
                self.subclasses[base].add(klass)
        self._mro: dict[str, list[str]] = {}
        self._linearized: dict[str, list[str]] = {}
        self._dispatch: dict[tuple[str, str], tuple[str | None, tuple[str, ...]]] = {}
        # class -> where objects of it are made or it is handed on (`made.py`; filled by the resolver)
        self.made: dict[str, list[tuple[str, str | None]]] = {}
        self.dropped: set[tuple[str, str]] = set()  # (class, name) whose own method `dispatch` left out
        self.calls_narrowed = 0  # calls resolved without such a method (`dispatch`, `Resolver._on_result`)

    def mro(self, klass: str) -> list[str]:
        """The class and its tree bases in Python's method resolution order."""
        order = self._mro.get(klass)
        if order is None:
            order = self._mro[klass] = [c for c in self._linear(klass) if c == klass or c in self.index.classes]
        return order

    def ancestry(self, klass: str) -> list[str]:
        """The class and all its bases, those outside the tree (`ValueError`) included, in MRO order."""
        return self._linear(self.index.canonical(klass))

    def _linear(self, klass: str) -> list[str]:
        """C3 linearization, bases outside the tree included (each on its own); where C3 has no
        answer (an inconsistent or cyclic hierarchy as resolved), breadth-first, each class once."""
        if klass not in self.index.classes:
            return [klass]
        linear = self._linearized.get(klass)
        if linear is None:
            self._linearized[klass] = [klass]  # a cycle back to this class stops here
            linear = self._linearized[klass] = self._c3(klass) or [klass, *self.index.bases(klass)]
        return linear

    def _c3(self, klass: str) -> list[str] | None:
        bases = [b for b in self.index.direct_bases(klass) if b != klass]
        sequences = [self._linear(b) for b in bases] + [list(bases)]
        merged = [klass]
        while True:
            sequences = [s for s in sequences if s]
            if not sequences:
                return merged
            head = next((s[0] for s in sequences if not any(s[0] in t[1:] for t in sequences)), None)
            if head is None:
                return None
            merged.append(head)
            sequences = [s[1:] if s[0] == head else s for s in sequences]

    def lookup_method(self, klass: str, name: str, after: str | None = None) -> str | None:
        order = self.mro(klass)
        if after is not None:
            order = order[order.index(after) + 1 :] if after in order else []
        for candidate in order:
            found = self.methods.get(candidate, {}).get(name)
            if found:
                return found
        return None

    def dispatch(self, klass: str, name: str) -> tuple[str | None, tuple[str, ...]]:
        """Where `obj.name()` may go when `obj` is a `klass` or a subclass of it: the method the
        class itself resolves to, and each other method a subclass resolves to (its override, or
        a mixin's ahead of `klass` in its MRO). Never a method of a class beside `klass`, nor the
        class's own when no object of exactly `klass` exists and every subclass resolves elsewhere."""
        key = (klass, name)
        found = self._dispatch.get(key)
        if found is None:
            own = self.lookup_method(klass, name)
            others = {self.lookup_method(sub, name) for sub in self.subclasses.get(klass, ())}
            if own and others and own not in others and not self.exists(klass):
                self.dropped.add(key)
                own = None
            found = self._dispatch[key] = (own, tuple(sorted(o for o in others if o and o != own)))
        return found

    def exists(self, klass: str) -> bool:
        """Whether an object of exactly `klass` may exist: a class with no subclass, or one the
        package makes (`made`) that Python lets be built (no abstract method left). A base nothing
        makes is only ever an object of one of its subclasses."""
        return not self.subclasses.get(klass) or klass in self.made and not self.abstract(klass)

    def flows(self, klass: str) -> bool:
        """Whether the class object `klass` itself may be a value somewhere (`type[X]`)."""
        return not self.subclasses.get(klass) or klass in self.made

    def abstract(self, klass: str) -> bool:
        """An `abc.ABC` subclass with a method still abstract, which Python refuses to build."""
        if "abc.ABC" not in self._linear(klass):
            return False
        names = {n for c in self.mro(klass) for n in self.methods.get(c, {})}
        return any(
            _ABSTRACT_DECORATORS.intersection(d.rsplit(".", 1)[-1] for d in self.functions[m][0].decorators)
            for n in names if (m := self.lookup_method(klass, n))
        )

    def getters(self, klass: str, attribute: str) -> list[str]:
        """The property getters reading `attribute` of a `klass` runs: the class's own, and the
        overrides in its subclasses; none when the attribute is not a property of the class."""
        found, overrides = self.dispatch(klass, attribute)
        first = found or next(iter(overrides), None)
        if first is None or not is_property(self.functions[first][0]):
            return []
        return [g for g in (found, *overrides) if g and is_property(self.functions[g][0])]

    def _method_with_overrides(self, klass: str, method: str, how: str) -> list[tuple[str, str]] | None:
        found, overrides = self.dispatch(klass, method)
        self.calls_narrowed += (klass, method) in self.dropped
        if found is None and not overrides and method == "start":
            return self._thread_run(klass)
        # When the class itself has no such method, whichever subclass the object is must have it.
        targets = ([(found, how)] if found else []) + [(o, "override") for o in overrides]
        return targets or None

    def _call_instance(self, klass: str, how: str) -> list[tuple[str, str]] | None:
        """An object of `klass` called: its `__call__`, or the method `CALLED_INSTANCES` names for
        a base outside the tree (`forward` of a torch module), with the overrides of either."""
        method = "__call__" if self.lookup_method(klass, "__call__") else next(
            (m for base, m in CALLED_INSTANCES.items() if base in self._linear(klass)), None)
        return self._method_with_overrides(klass, method, "called-instance") if method else None

    def _thread_run(self, klass: str) -> list[tuple[str, str]] | None:
        """`start()` of a `threading.Thread` (or process) subclass runs its `run` in a new thread."""
        if not THREAD_CLASSES.intersection(self._linear(klass)):
            return None
        found, overrides = self.dispatch(klass, "run")
        return [(t, "thread") for t in ([found] if found else []) + list(overrides)] or None

    def _construct(self, klass: str) -> list[tuple[str, str]]:
        """`Class(...)` runs `__init__`, and a dataclass's generated one runs `__post_init__`."""
        found = [self.lookup_method(klass, "__init__"), self.lookup_method(klass, "__post_init__")]
        return [(f, "constructor") for f in found if f]

"""The call graph of the whole package: who calls whom, where, and under what condition.

Nodes are functions by qualified name (`module.Class.method`; module-level code is
`module.<module>`). An edge holds the call sites behind it, each with how it was resolved. A call
is resolved only when the code says where it goes — through imports, `self`/`cls` and the class
hierarchy, `super()`, a constructor, a local alias, an attribute, parameter or return value whose
type is written down, or a class a function returns. A method call on an object of a known class
goes to the method that class resolves to in its MRO and to each override in the class's own
subclasses (the object may be one of them), never to a class beside it. Code run other than by a
plain call is followed too: property getters, `Thread.start()` -> `run`, and functions handed to
threads, executors and event loops. Anything else is counted as unresolved, never guessed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from errscan.extract.conditions import Condition
from errscan.extract.facts import CallFact, FunctionFact, ModuleFacts
from errscan.extract.names import qualify
from errscan.graph.index import PackageIndex
from errscan.model import CallEdge, CallGraphDocument

MODULE_CODE = "<module>"


@dataclass(frozen=True)
class CallSite:
    path: str
    line: int
    condition: Condition
    resolution: str  # how the callee was found: import, module, local, self, cls, super, override, ...
    receiver: str  # what the call is made on, as written: see `receiver_kind`
    call: CallFact | None = field(default=None, compare=False, repr=False)  # its arguments (`analysis/bindings.py`)


# Classes whose `start()` runs the subclass's `run()` in a new thread or process.
THREAD_CLASSES = frozenset({"threading.Thread", "multiprocessing.Process", "multiprocessing.context.Process"})
# Callables that run a function given to them (or a coroutine made for them) later, elsewhere:
# (qualified name, or `.method` on an object of a type outside the tree; argument) -> resolution.
RUNNERS: dict[tuple[str, str], str] = {
    ("threading.Thread", "target"): "thread", ("threading.Thread", "1"): "thread",
    ("threading.Timer", "function"): "thread", ("threading.Timer", "1"): "thread",
    ("multiprocessing.Process", "target"): "process", (".Process", "target"): "process",
    (".submit", "0"): "executor", (".run_in_executor", "1"): "executor", ("asyncio.to_thread", "0"): "executor",
    ("asyncio.create_task", "0"): "task", (".create_task", "0"): "task",
    ("asyncio.ensure_future", "0"): "task", ("asyncio.run_coroutine_threadsafe", "0"): "task",
}
# Classes whose instances, when called, run a method of theirs: `module(x)` runs `module.forward(x)`.
CALLED_INSTANCES = {"torch.nn.Module": "forward", "torch.nn.modules.module.Module": "forward"}
_RUNNER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name, _ in RUNNERS)
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "abstractproperty"})


def is_property(fact: FunctionFact) -> bool:
    """`@property`, `@functools.cached_property`, `@abc.abstractproperty`: reading it calls it."""
    return any(d.rsplit(".", 1)[-1] in _PROPERTY_DECORATORS for d in fact.decorators)


def _is_accessor(fact: FunctionFact) -> bool:
    """`@name.setter` / `@name.deleter`: defined under the getter's name, called on writes."""
    name = fact.qualname.rsplit(".", 1)[-1]
    return any(d in (f"{name}.setter", f"{name}.deleter") for d in fact.decorators)


def function_node(module: str, scope: str) -> str:
    return f"{module}.{scope}" if scope else f"{module}.{MODULE_CODE}"


class CallGraph:
    def __init__(self, index: PackageIndex, paths: dict[str, str]):
        self.index = index
        self.paths = paths  # module -> repo-relative path
        self.graph = nx.DiGraph()
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
        self._visible: dict[tuple[str, str], dict[str, str]] = {}
        self._mro: dict[str, list[str]] = {}
        self._linearized: dict[str, list[str]] = {}
        self._dispatch: dict[tuple[str, str], tuple[str | None, tuple[str, ...]]] = {}
        self._results: dict[tuple[str, str, str], tuple[str, tuple[str, ...]]] = {}  # see `_result_of`
        self._returned: dict[str, list[tuple[str, ModuleFacts]]] = defaultdict(list)  # function -> returned names
        for module in index.modules.values():
            for ret in module.returns:
                if ret.value is not None:
                    self._returned[function_node(module.module, ret.scope)].append((ret.value, module))
        self.attribute_types = self._attribute_types()
        self._property_names = frozenset(q.rsplit(".", 1)[1] for q, (f, _) in self.functions.items() if is_property(f))
        self.unresolved: Counter[str] = Counter()
        self.external = 0
        for module in index.modules.values():
            for call in module.calls:
                self._add_call(module, call)

    # hierarchy
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
        a mixin's ahead of `klass` in its MRO). Never a method of a class beside `klass`."""
        key = (klass, name)
        found = self._dispatch.get(key)
        if found is None:
            own = self.lookup_method(klass, name)
            others = {self.lookup_method(sub, name) for sub in self.subclasses.get(klass, ())}
            found = self._dispatch[key] = (own, tuple(sorted(o for o in others if o and o != own)))
        return found

    def _attribute_types(self) -> dict[str, dict[str, str]]:
        types: dict[str, dict[str, str]] = defaultdict(dict)
        for module in self.index.modules.values():
            for attr in module.attribute_types:
                klass = function_node(module.module, attr.class_scope)
                resolved = self.qualify(module, attr.scope or attr.class_scope, attr.type)
                if attr.from_call:
                    resolved = self.returned_class(resolved) if resolved not in self.index.classes else resolved
                if resolved in self.index.classes:
                    types[klass].setdefault(attr.attribute, resolved)
        return types

    def returned_class(self, function: str | None) -> str | None:
        """The class a function's return annotation names, when it is a class of the tree."""
        entry = self.functions.get(function) if function else None
        if entry is None:
            owner, _, method = (function or "").rpartition(".")
            found = self.lookup_method(owner, method) if owner in self.index.classes else None
            entry = self.functions.get(found) if found else None
        if entry is None or not entry[0].returns:
            return None
        fact, module = entry
        klass = self.qualify(module, fact.scope, entry[0].returns)
        return klass if klass in self.index.classes else None

    # resolution
    def visible(self, module: ModuleFacts, scope: str) -> dict[str, str]:
        """The imports visible in a scope, built once per scope (many calls share one)."""
        key = (module.module, scope)
        if key not in self._visible:
            self._visible[key] = module.lookup(scope)
        return self._visible[key]

    def qualify(self, module: ModuleFacts, scope: str, dotted: str) -> str | None:
        found = qualify(dotted, self.visible(module, scope), module.module, module.local_defs)
        if found is None:  # a name only a `from .mod import *` binds
            head, dot, rest = dotted.partition(".")
            starred = self.index.starred(module, head)
            found = f"{starred}{dot}{rest}" if starred else None
        return self.index.canonical(found) if found else None

    def _add_call(self, module: ModuleFacts, call: CallFact) -> None:
        if call.kind == "read":
            self._add_read(module, call)
            return
        caller = function_node(module.module, call.caller)
        if call.aliases:
            # A local passed along that holds what a call returned (`f()`) is a value, not code.
            value = call.kind == "reference"
            resolved = [
                (self.resolve_callee(module, call.caller, text, "alias"), when)
                for text, when in call.aliases
                if text is not None and not (value and text.endswith("()"))
            ]
        else:
            resolved = [(self.resolve(module, call), ())]
        known = [targets for targets, _ in resolved if targets is not None]
        if not any(known):
            if not known and call.kind != "reference":  # ([]: the call leaves the package)
                self.unresolved[call.callee.split(".")[0]] += 1
            return
        runner = self._runner(module, call.caller, call.passed_to) if call.passed_to else None
        if call.kind == "reference":
            # A value passed along is only an edge when it names a function of the tree; a class
            # passed along (`isinstance(x, Cls)`, a registry) is not constructed there, and a
            # property passed along is its value (its read is an edge of its own).
            runs = runner if runner in ("thread", "process", "executor") else "callback"
            resolved = [
                ([(t, runs) for t, how in targets or () if self._passable(t, how)], when)
                for targets, when in resolved
            ]
        elif runner == "task":  # `asyncio.create_task(self.work())`: the coroutine runs as a task
            resolved = [([(t, "task") for t, _ in targets or ()], when) for targets, when in resolved]
        receiver = None
        for targets, when in resolved:
            for callee, how in targets or ():
                receiver = receiver or self.receiver_kind(module, call.caller, call.callee, bool(call.aliases), callee, how)
                site = CallSite(self.paths[module.module], call.line, when + call.condition, how, receiver, call)
                self.add_edge(caller, callee, site)

    def _passable(self, target: str, how: str) -> bool:
        """Whether a value resolving to `target` is that function itself, handed on to be called."""
        entry = self.functions.get(target)
        return entry is not None and how != "constructor" and not is_property(entry[0])

    def _runner(self, module: ModuleFacts, scope: str, passed_to: str) -> str | None:
        """The kind of runner (`RUNNERS`) a value or a call's result is handed to, if it is one."""
        callee, _, key = passed_to.rpartition(":")
        name = callee.rsplit(".", 1)[-1]
        if name not in _RUNNER_NAMES:
            return None
        found = RUNNERS.get((self.qualify(module, scope, callee) or "", key))
        if found or "." not in callee or self.resolve_callee(module, scope, callee, None):
            return found  # a method of the tree that happens to have the name is no runner
        return RUNNERS.get(("." + name, key))

    def receiver_kind(self, module: ModuleFacts, scope: str, callee: str, aliased: bool, target: str, how: str) -> str:
        """What a call is made on, as written: `super`, `self`, `cls` (`self.m()`), `attribute`
        (`self.x.m()`), `local` (a local bound to a known value), `result` (`f().m()`),
        `parameter`, `class` (`Class.m()`, `Class()`), `module` (`mod.f()`) or `function` (`f()`);
        `target` is a function the call resolved to, and `how`, how."""
        head, _, rest = callee.partition(".")
        if head == "super()":
            return "super"
        if aliased:
            return "local"
        if head.endswith("()"):
            return "result"
        if head in ("self", "cls"):
            return "attribute" if "." in rest else head
        fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
        if fact is not None and any(name == head for name, _ in fact.params):
            return "parameter"
        if how == "constructor" or target.rpartition(".")[0] in self.index.classes:
            return "class"
        return "module" if rest else "function"

    def add_edge(self, caller: str, callee: str, site: CallSite) -> None:
        if self.graph.has_edge(caller, callee):
            self.graph[caller][callee]["sites"].append(site)
        else:
            self.graph.add_edge(caller, callee, sites=[site])

    def resolve(self, module: ModuleFacts, call: CallFact) -> list[tuple[str, str]] | None:
        """(callee, how) pairs; [] for a call leaving the package; None when it cannot be told."""
        return self.resolve_callee(module, call.caller, call.callee, None)

    def _instance_class(self, module: ModuleFacts, scope: str, name: str) -> str | None:
        """The class `self`/`cls` stands for in `scope`, also inside functions nested in a method."""
        while True:
            fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
            if fact is None:
                return None
            if fact.class_qualname:
                return fact.class_qualname if fact.params and fact.params[0][0] == name else None
            if name in dict(fact.params) or ".<locals>." not in scope:
                return None
            scope = scope.rsplit(".<locals>.", 1)[0]

    def resolve_callee(self, module: ModuleFacts, scope: str, callee: str, how: str | None) -> list[tuple[str, str]] | None:
        fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
        head, _, rest = callee.partition(".")
        if callee.startswith("super()."):
            klass = self._instance_class(module, scope, fact.params[0][0]) if fact and fact.params else None
            method = callee.split(".", 1)[1]
            found = self.lookup_method(klass, method, after=klass) if klass else None
            if found is None and klass and method == "start":
                return self._thread_run(klass)
            return [(found, "super")] if found else None
        if "()." in callee or callee.endswith("()"):
            made, _, rest = callee.rpartition("().") if "()." in callee else (callee[:-2], "", "")
            return self._on_result(module, scope, made, rest, how)
        instance = self._instance_class(module, scope, head) if head in ("self", "cls") else None
        if instance:
            return self._on_instance(instance, rest, how or head)
        nested = function_node(module.module, f"{scope}.<locals>.{callee}" if scope else callee)
        if not rest and scope and nested in self.functions:
            return [(nested, how or "local")]
        if fact and rest and "." not in rest:
            annotated = dict(fact.params).get(head)
            if annotated:
                klass = self.qualify(module, scope, annotated)
                if klass in self.index.classes:
                    return self._method_with_overrides(klass, rest, how or "annotation")
        how = how or ("import" if head in self.visible(module, scope) else "module")
        return self.resolve_text(module, scope, callee, how)

    def _on_result(self, module: ModuleFacts, scope: str, made: str, rest: str, how: str | None) -> list[tuple[str, str]] | None:
        """`made().rest`, and `made()()` when `rest` is empty: on what the call `made()` returns,
        an instance of a known class, or a class itself (`-> type[X]`, `return SomeClass`)."""
        key = (module.module, scope, made)
        gives = self._results.get(key)
        if gives is None:
            gives = self._results[key] = self._result_of(module, scope, made)
        kind, classes = gives
        if kind == "external":
            self.external += 1  # a method of what an outside function returns
            return []
        if kind == "instance":
            return self._on_instance(classes[0], rest, how or "return-type") if rest else self._call_instance(classes[0], how or "return-type")
        if kind != "classes" or "." in rest:
            return None
        if rest:
            targets = [t for klass in classes if (t := self.lookup_method(klass, rest))]
        else:  # the class is called: one of them is constructed
            targets = [t for klass in classes for t, _ in self._construct(klass)]
        return [(t, "returned-class") for t in dict.fromkeys(targets)] or None

    def _result_of(self, module: ModuleFacts, scope: str, made: str) -> tuple[str, tuple[str, ...]]:
        """What the call `made()` gives: `("instance", (C,))`, `("classes", (C1, ...))` (class
        objects), `("external", ())` (something from outside the tree), or `("", ())`."""
        qualified = self.qualify(module, scope, made)
        if qualified in self.index.classes:
            return "instance", (qualified,)
        if qualified is not None and qualified.split(".")[0] not in self.index.top_packages:
            return "external", ()
        head, dot, _ = made.partition(".")
        if qualified is None and dot and head not in ("self", "cls") and not head.endswith(")"):
            fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
            if fact is None or not dict(fact.params).get(head):
                return "", ()  # a method of a local value of unknown type
        found = [t for t, _ in self.resolve_callee(module, scope, made, None) or () if t in self.functions]
        classes = self.returned_classes(found[0]) if found else []
        if classes:
            return "classes", tuple(classes)
        klass = self.returned_class(found[0]) if found else None
        return ("instance", (klass,)) if klass else ("", ())

    def returned_classes(self, function: str) -> list[str]:
        """The classes (class objects, not instances) a function returns: X and its subclasses for
        `-> type[X]`, else the classes its `return` statements name."""
        fact, module = self.functions[function]
        if fact.returns_class:
            klass = self.qualify(module, fact.scope, fact.returns_class)
            return [klass, *sorted(self.subclasses.get(klass, ()))] if klass in self.index.classes else []
        found = (self.qualify(facts, fact.scope, value) for value, facts in self._returned.get(function, ()))
        return list(dict.fromkeys(k for k in found if k in self.index.classes))

    def resolve_text(self, module: ModuleFacts, scope: str, dotted: str, how: str) -> list[tuple[str, str]] | None:
        target = self.qualify(module, scope, dotted)
        return self._on_name(target, how) if target else None

    def _on_instance(self, klass: str, rest: str, how: str) -> list[tuple[str, str]] | None:
        """`self.m`, `self.a.b.m`: through the attributes' known types to the method."""
        if not rest:
            return self._construct(klass) if how == "cls" else None
        *attributes, method = rest.split(".")
        reached, typed, getters = self._through(klass, attributes)
        if reached is None:
            return getters or None
        found = self._method_with_overrides(reached, method, typed or how)
        if found is None and self.lookup_method(reached, method) is None:  # `self.layer(x)`: an attribute called
            held, held_how, more = self._through(reached, [method])
            found = more + (self._call_instance(held, held_how) or []) if held else None
        return getters + (found or []) or None

    def _through(self, klass: str, attributes: list[str]) -> tuple[str | None, str, list[tuple[str, str]]]:
        """`.a.b` read on an object of `klass`: the class reached (None when not known), how the last
        type was known (`attribute`, `return-type`, "" for none read), and the property getters
        run on the way (a property's type is what its getter's return annotation names)."""
        getters: list[tuple[str, str]] = []
        how = ""
        for attribute in attributes:
            typed = next((self.attribute_types[o][attribute] for o in self.mro(klass)
                          if attribute in self.attribute_types.get(o, {})), None)
            how = "attribute"
            if typed is None:
                found = self.getters(klass, attribute)
                getters += [(g, "property") for g in found]
                typed = self.returned_class(found[0]) if found else None
                how = "return-type"
            if typed is None:
                return None, how, getters
            klass = typed
        return klass, how, getters

    def _add_read(self, module: ModuleFacts, call: CallFact) -> None:
        """`self.a.b` read: an edge to each property getter it runs."""
        head, _, rest = call.callee.partition(".")
        if self._property_names.isdisjoint(rest.split(".")):
            return
        klass = self._instance_class(module, call.caller, head)
        getters = self._through(klass, rest.split("."))[2] if klass else []
        receiver = head if "." not in rest else "attribute"
        for getter, how in getters:
            site = CallSite(self.paths[module.module], call.line, call.condition, how, receiver)
            self.add_edge(function_node(module.module, call.caller), getter, site)

    def getters(self, klass: str, attribute: str) -> list[str]:
        """The property getters reading `attribute` of a `klass` runs: the class's own, and the
        overrides in its subclasses; none when the attribute is not a property of the class."""
        found, overrides = self.dispatch(klass, attribute)
        if found is None or not is_property(self.functions[found][0]):
            return []
        return [found, *(o for o in overrides if is_property(self.functions[o][0]))]

    def _method_with_overrides(self, klass: str, method: str, how: str) -> list[tuple[str, str]] | None:
        found, overrides = self.dispatch(klass, method)
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

    def _on_name(self, target: str, how: str) -> list[tuple[str, str]] | None:
        if target in self.functions:
            return [(target, how)]
        if target in self.index.classes:
            return self._construct(target)
        owner, _, method = target.rpartition(".")
        if owner in self.index.classes:  # Class.method, e.g. a classmethod or a static call
            found = self.lookup_method(owner, method)
            return [(found, how)] if found else None
        made = self._module_instance(owner)
        if made is not None:  # `REGISTRY.get(...)`, `REGISTRY = Registry()` at a module's top level
            return self._method_with_overrides(made, method, "module-instance")
        if target.split(".")[0] in self.index.top_packages:
            return None  # in the package, but not a function errscan knows (a module attribute...)
        self.external += 1
        return []

    def _module_instance(self, dotted: str) -> str | None:
        """The class of a module-level `NAME = Class(...)`, named `module.NAME`."""
        module, _, name = dotted.rpartition(".")
        facts = self.index.modules.get(module)
        made = (facts.module_values or {}).get(name, "") if facts else ""
        klass = self.qualify(facts, "", made[:-2]) if made.endswith("()") else None
        return klass if klass in self.index.classes else None

    def _construct(self, klass: str) -> list[tuple[str, str]]:
        """`Class(...)` runs `__init__`, and a dataclass's generated one runs `__post_init__`."""
        found = [self.lookup_method(klass, "__init__"), self.lookup_method(klass, "__post_init__")]
        return [(f, "constructor") for f in found if f]

    def callgraph_document(self, toward: Iterable[str] | None = None) -> CallGraphDocument:
        """`api/callgraph.json`: every call site of every edge, or with `toward` (function nodes)
        of the edges on a way to one of them: the part of the graph chains can take."""
        graph = self.graph
        if toward is not None:
            reaching = set(n for n in toward if n in graph)
            stack = list(reaching)
            while stack:
                for caller in graph.predecessors(stack.pop()):
                    if caller not in reaching:
                        reaching.add(caller)
                        stack.append(caller)
            graph = graph.subgraph(reaching)
        edges = [
            CallEdge(caller, callee, site.path, site.line, site.resolution, site.receiver)
            for caller, callee, data in sorted(graph.edges(data=True))
            for site in data["sites"]
        ]
        return CallGraphDocument.of_edges(
            edges,
            nodes=self.graph.number_of_nodes(),
            graph_edges=self.graph.number_of_edges(),
            unresolved_calls=sum(self.unresolved.values()),
            external_calls=self.external,
        )

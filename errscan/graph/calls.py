"""The call graph of the whole package: who calls whom, where, and under what condition.

Nodes are functions by qualified name (`module.Class.method`; module-level code is
`module.<module>`). An edge holds the call sites behind it, each with how it was resolved
(`resolve.py`, along the class hierarchy of `hierarchy.py`). Code run other than by a plain call is
followed too: property getters, `Thread.start()` -> `run`, functions handed to threads, executors
and event loops, kernels handed to a JIT compiler that runs them, and the elements of containers
(`held.py`). Anything else is counted as unresolved, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from errscan.extract.conditions import Condition
from errscan.extract.facts import CallFact, ModuleFacts
from errscan.graph.hierarchy import is_property
from errscan.graph.index import PackageIndex, function_node
from errscan.graph.resolve import Resolver
from errscan.model import CallEdge, CallGraphDocument

@dataclass(frozen=True)
class CallSite:
    path: str
    line: int
    condition: Condition
    resolution: str  # how the callee was found: import, module, local, self, cls, super, override, ...
    receiver: str  # what the call is made on, as written: see `receiver_kind`
    call: CallFact | None = field(default=None, compare=False, repr=False)  # its arguments (`analysis/bindings.py`)


# Callables that run a function given to them (or a coroutine made for them) later, elsewhere:
# (qualified name, or `.method` on an object of a type outside the tree; argument) -> resolution.
RUNNERS: dict[tuple[str, str], str] = {
    ("threading.Thread", "target"): "thread", ("threading.Thread", "1"): "thread",
    ("threading.Timer", "function"): "thread", ("threading.Timer", "1"): "thread",
    ("multiprocessing.Process", "target"): "process", (".Process", "target"): "process",
    (".submit", "0"): "executor", (".run_in_executor", "1"): "executor", ("asyncio.to_thread", "0"): "executor",
    ("asyncio.create_task", "0"): "task", (".create_task", "0"): "task",
    # CuTe DSL's JIT compiles a kernel (a function, or an object it calls) by running its Python code.
    ("cutlass.cute.compile", "0"): "trace",
    ("asyncio.ensure_future", "0"): "task", ("asyncio.run_coroutine_threadsafe", "0"): "task",
}
_RUNNER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name, _ in RUNNERS)


class CallGraph(Resolver):
    """`keeps`: (a function's last name, an argument as keyword or position) where a function handed
    over is stored, not called (a registrar: the profile's `keeps`); handing it over is no edge."""

    def __init__(self, index: PackageIndex, paths: dict[str, str], keeps: Iterable[tuple[str, str]] = ()):
        super().__init__(index)
        self.paths = paths  # module -> repo-relative path
        self.keeps = frozenset(keeps)
        self.graph = nx.DiGraph()
        self._property_names = frozenset(q.rsplit(".", 1)[1] for q, (f, _) in self.functions.items() if is_property(f))
        self.unresolved: Counter[str] = Counter()
        # Per last name (`zmq_ctx`, `Worker`): the calls that name it and go where the graph says
        # (an edge, or out of the package), so that another function's calls of the same name do
        # not keep one from being closed (`chains._closed`).
        self.resolved_names: Counter[str] = Counter()
        for module in index.modules.values():
            for call in module.calls:
                self._add_call(module, call)
        # The package's calls that leave it. Counted now: the analysis resolves more (how many
        # depends on what its processes remembered), which must not change the figure.
        self.external_calls = self.external
        self.base_calls_narrowed = self.calls_narrowed

    def _add_call(self, module: ModuleFacts, call: CallFact) -> None:
        if call.kind == "read":
            self._add_read(module, call)
            return
        if call.kind == "reference" and self._kept(call.passed_to):
            return
        caller = function_node(module.module, call.caller)
        runner = self._runner(module, call.caller, call.passed_to) if call.passed_to else None
        if call.aliases:
            # A local passed along that holds what a call returned (`f()`) is a value, not code,
            # unless it goes to a runner that calls the object itself (`cute.compile(kernel)`).
            value = call.kind == "reference" and runner != "trace"
            resolved = [
                (self._past_binding(module, call, text, self.resolve_callee(module, call.caller, text, "alias")), when, text)
                for text, when in call.aliases
                if text is not None and not (value and text.endswith(("()", "[]")))
            ]
        else:
            resolved = [(self.resolve(module, call), (), call.callee)]
        known = [targets for targets, _, _ in resolved if targets is not None]
        if known and all(targets is not None for targets, _, _ in resolved) and call.kind == "call":
            self.resolved_names[call.callee.rsplit(".", 1)[-1]] += 1
        if not any(known):
            if not known and call.kind != "reference":  # ([]: the call leaves the package)
                self.unresolved[call.callee.split(".")[0]] += 1
            return
        if call.kind == "reference":
            # A value passed along is only an edge when it names a function of the tree; a class
            # passed along (`isinstance(x, Cls)`, a registry) is not constructed there, and a
            # property passed along is its value (its read is an edge of its own).
            runs = runner if runner in ("thread", "process", "executor", "trace") else \
                "registered" if call.passed_to and call.passed_to.rpartition(":")[0].endswith("()") else "callback"
            resolved = [
                ([(t, runs) for t, how in targets or () if self._passable(t, how)], when, text)
                for targets, when, text in resolved
            ]
        elif runner == "task":  # `asyncio.create_task(self.work())`: the coroutine runs as a task
            resolved = [([(t, "task") for t, _ in targets or ()], when, text) for targets, when, text in resolved]
        receiver = None
        for targets, when, text in resolved:
            for callee, how in targets or ():
                receiver = receiver or self.receiver_kind(module, call.caller, call.callee, bool(call.aliases), callee, how)
                # what the alias was bound under, the call's own terms, and what chose the class of
                # the attribute it is made on, each term once
                terms = dict.fromkeys((*when, *call.condition, *self.chosen(module, call.caller, text, callee)))
                site = CallSite(self.paths[module.module], call.line, tuple(terms), how, receiver, call)
                self.add_edge(caller, callee, site)

    def _past_binding(
        self, module: ModuleFacts, call: CallFact, text: str, targets: list[tuple[str, str]] | None,
    ) -> list[tuple[str, str]] | None:
        """`targets` of a call through a local (`r = self.registry` ... `r.f()`, `text` being
        `self.registry.f`) without the property getters its value ran where it was bound."""
        rest = call.callee.partition(".")[2]
        head, _, attributes = (text[: -len(rest) - 1] if rest else text).partition(".")
        klass = self._instance_class(module, call.caller, head) if attributes and head in ("self", "cls") else None
        if klass is None or not targets:
            return targets
        ran = {getter for getter, _ in self._through(klass, attributes.split("."))[2]}
        return [(t, how) for t, how in targets if not (how == "property" and t in ran)] or None

    def _passable(self, target: str, how: str) -> bool:
        """Whether a value resolving to `target` is that function itself, handed on to be called."""
        entry = self.functions.get(target)
        return entry is not None and how not in ("constructor", "element") and not is_property(entry[0])

    def _kept(self, passed_to: str | None) -> bool:
        """Whether a value handed to `passed_to` (`callee:key`) is stored there, not called."""
        callee, _, key = (passed_to or "").rpartition(":")
        return (callee.rsplit(".", 1)[-1], key) in self.keeps

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
            external_calls=self.external_calls,
            base_calls_narrowed=self.base_calls_narrowed,
        )

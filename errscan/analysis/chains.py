"""Call chains: the shortest ways from entry points to a raising function.

An error may be reached from many entry points, and by several ways into its function (each call
site of each caller). Up to `MAX_CHAINS` chains are kept: first the shortest chain through each
call site into the function (from the nearest entry point), then the shortest chain from each
other entry point that does not pass through an entry point of another kind, shortest first. Each step of a chain is the call site of its caller/callee
pair with the fewest conditions.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from errscan.analysis.entries import BUILTIN_KINDS, Entry
from errscan.extract.conditions import Condition
from errscan.graph.calls import CallGraph, CallSite

MAX_CHAINS = 8
MAX_DEPTH = 12


@dataclass(frozen=True)
class FoundChain:
    entry: Entry
    nodes: tuple[str, ...]  # entry first, raising function last
    sites: tuple[CallSite, ...]  # sites[i]: the call from nodes[i] to nodes[i + 1]

    @property
    def condition(self) -> Condition:
        return conjoin(*(site.condition for site in self.sites))


@dataclass(frozen=True)
class Reach:
    chains: tuple[FoundChain, ...]  # up to MAX_CHAINS, shortest first
    entries: tuple[Entry, ...]  # every entry the function is reachable from, nearest first


def conjoin(*conditions: Condition) -> Condition:
    """All terms of all conditions, in order, each once."""
    seen, terms = set(), []
    for condition in conditions:
        for term in condition:
            if term not in seen:
                seen.add(term)
                terms.append(term)
    return tuple(terms)


def reach(graph: CallGraph, target: str, entries: dict[str, Entry], lookups: frozenset[tuple[str, str]] = frozenset()) -> Reach:
    """Every entry that reaches `target` within MAX_DEPTH calls, and the chains worth showing.

    `lookups` are the edges that call a method on the plugin class looked up at run time for the
    configured plugin name: through one, an entry of plugin P reaches only the method P's class
    resolves to (`get_kv_connector_cache_layout` -> `NixlConnector.get_required_kvcache_layout`
    for Nixl's entry points, not every connector's)."""
    search = _Search(graph, entries, lookups)
    toward, found = search.run(target, avoid=None, first_only=False)
    nearest: dict[str, tuple[State, Entry]] = {}
    for state, entry in found:
        nearest.setdefault(entry.node, (state, entry))
    per_entry = [
        chain for chain in (_chain(graph, entry, toward, state, ()) for state, entry in nearest.values())
        if not _through_other_kind(chain, entries)
    ]
    per_way = []
    if found and target in graph.graph:  # (a way in reaches no entry the first search did not)
        for caller in sorted(graph.graph.predecessors(target)):
            if caller == target:
                continue
            required = target if (caller, target) in lookups else None
            near, first = search.run(caller, avoid=target, first_only=True, required=required, depth=1)
            for site in sorted(graph.graph[caller][target]["sites"], key=lambda s: (s.line, s.resolution)):
                per_way += [_chain(graph, entry, near, state, (target, site)) for state, entry in first]
    chosen: dict[tuple, FoundChain] = {}
    per_way = [chain for chain in per_way if not _through_other_kind(chain, entries)]
    for chain in [*sorted(per_way, key=_length), *per_entry]:
        key = (chain.nodes, tuple((s.path, s.line) for s in chain.sites))
        if len(chosen) < MAX_CHAINS:
            chosen.setdefault(key, chain)
    reached: dict[str, Entry] = {}
    for _, entry in found:  # one entry may count for some plugins on one way, others on another
        known = reached.get(entry.node)
        plugins = (known.plugins if known else ()) + tuple(p for p in entry.plugins if not known or p not in known.plugins)
        reached[entry.node] = replace(entry, plugins=plugins)
    return Reach(tuple(sorted(chosen.values(), key=_length)), tuple(reached.values()))


State = tuple[str, "str | None"]  # a node, and the method a looked-up plugin class must resolve to


class _Search:
    def __init__(self, graph: CallGraph, entries: dict[str, Entry], lookups: frozenset[tuple[str, str]]):
        self.graph = graph
        self.entries = entries
        self.lookups = lookups
        self.looked_up = frozenset(callee for _, callee in lookups)

    def run(
        self, start: str, avoid: str | None, first_only: bool, required: str | None = None, depth: int = 0
    ) -> tuple[dict[State, State | None], list[tuple[State, Entry]]]:
        """Backward breadth-first search from `start` (never through `avoid`): for each state
        reached, the next one toward `start`; and the entries reached, nearest first, ties by
        name (only the nearest when `first_only`), each with the plugins it holds on that way.
        `start` is `depth` calls from the raising function already."""
        first: State = (start, required)
        toward: dict[State, State | None] = {first: None}
        queue = deque([(first, depth)])
        found: list[tuple[State, Entry]] = []
        predecessors = self.graph.graph.pred
        while queue:
            state, depth = queue.popleft()
            node, needed = state
            entry = self._entry(node, needed) if node in self.entries else None
            if entry is not None:
                found.append((state, entry))
                if first_only:
                    break
            if depth >= MAX_DEPTH or node not in predecessors:
                continue
            lookup = needed is None and node in self.looked_up
            for caller in sorted(predecessors[node]):
                if caller == avoid:
                    continue
                previous = (caller, node if lookup and (caller, node) in self.lookups else needed)
                if previous not in toward:
                    toward[previous] = state
                    queue.append((previous, depth + 1))
        return toward, found

    def _entry(self, node: str, needed: str | None) -> Entry | None:
        """The entry at `node`, keeping the plugins whose class resolves to the `needed` method."""
        entry = self.entries.get(node)
        if entry is None or needed is None or not entry.plugins:
            return entry
        method = needed.rsplit(".", 1)[1]
        plugins = tuple(p for p in entry.plugins if self.graph.lookup_method(p.klass, method) == needed)
        return replace(entry, plugins=plugins) if plugins else None


def _chain(graph: CallGraph, entry: Entry, toward: dict[State, State | None], state: State, last: tuple) -> FoundChain:
    """The chain from `entry` (at `state`) along `toward`, then through `last` (the raising
    function and the call site into it) when given."""
    states = [state]
    while toward[states[-1]] is not None:
        states.append(toward[states[-1]])
    nodes = [node for node, _ in states]
    sites = [_fewest_conditions(graph, a, b) for a, b in zip(nodes, nodes[1:])]
    if last:
        nodes.append(last[0])
        sites.append(last[1])
    return FoundChain(entry, tuple(nodes), tuple(sites))


def _through_other_kind(chain: FoundChain, entries: dict[str, Entry]) -> bool:
    """Whether the chain passes through an entry point of another kind: where another path of the
    program begins (a plugin's method, a route), whose own chain is this one's tail, and which
    tells better when and where the error fires (the engine's step reaches a connector's
    `start_load_kv` in each worker). The entry still counts as reaching the error. Only chains
    from the user paths' entry points are so left (the plugins' own, config validation and
    `__main__` entries show how the core calls into a plugin, which is what they are for)."""
    if chain.entry.kind in BUILTIN_KINDS:
        return False
    return any(node in entries and entries[node].kind != chain.entry.kind for node in chain.nodes[1:])


def _length(chain: FoundChain) -> tuple[int, str]:
    return len(chain.nodes), chain.entry.node


def _fewest_conditions(graph: CallGraph, caller: str, callee: str) -> CallSite:
    return min(graph.graph[caller][callee]["sites"], key=lambda s: (len(s.condition), s.line))

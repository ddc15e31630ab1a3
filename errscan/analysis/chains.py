"""Call chains: the shortest ways from an entry point to a raising function."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from errscan.analysis.entries import Entry
from errscan.extract.conditions import Condition
from errscan.graph.calls import CallGraph, CallSite

MAX_CHAINS = 3
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
    chains: tuple[FoundChain, ...]  # up to MAX_CHAINS, shortest first, distinct entries
    entries: tuple[Entry, ...]  # every entry the function is reachable from


def conjoin(*conditions: Condition) -> Condition:
    """All terms of all conditions, in order, each once."""
    seen, terms = set(), []
    for condition in conditions:
        for term in condition:
            if term not in seen:
                seen.add(term)
                terms.append(term)
    return tuple(terms)


def reach(graph: CallGraph, target: str, entries: dict[str, Entry]) -> Reach:
    """Backward breadth-first search from `target`: nearest entries first, ties by name."""
    toward: dict[str, str | None] = {target: None}
    queue = deque([(target, 0)])
    found: list[str] = []
    while queue:
        node, depth = queue.popleft()
        if node in entries:
            found.append(node)
        if depth >= MAX_DEPTH or node not in graph.graph:
            continue
        for caller in sorted(graph.graph.predecessors(node)):
            if caller not in toward:
                toward[caller] = node
                queue.append((caller, depth + 1))
    chains = []
    for start in found[:MAX_CHAINS]:
        nodes = [start]
        while toward[nodes[-1]] is not None:
            nodes.append(toward[nodes[-1]])
        sites = tuple(_first_site(graph, a, b) for a, b in zip(nodes, nodes[1:]))
        chains.append(FoundChain(entries[start], tuple(nodes), sites))
    return Reach(tuple(chains), tuple(entries[n] for n in found))


def _first_site(graph: CallGraph, caller: str, callee: str) -> CallSite:
    return min(graph.graph[caller][callee]["sites"], key=lambda s: (len(s.condition), s.line))

"""Call chains: the shortest ways from entry points to a raising function.

An error may be reached from many entry points, and by several ways into its function (each call
site of each caller). Up to `MAX_CHAINS` chains are kept: first the shortest chain through each
call site into the function (from the nearest entry point), then the shortest chain from each
other entry point, shortest first. Each step of a chain is the call site of its caller/callee
pair with the fewest conditions.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from errscan.analysis.entries import Entry
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


def reach(graph: CallGraph, target: str, entries: dict[str, Entry]) -> Reach:
    """Every entry that reaches `target` within MAX_DEPTH calls, and the chains worth showing."""
    toward, found = _search(graph, target, entries, avoid=None, first_only=False)
    per_entry = [_chain(graph, entries[start], toward, ()) for start in found]
    per_way = []
    if target in graph.graph:
        for caller in sorted(graph.graph.predecessors(target)):
            if caller == target:
                continue
            near, first = _search(graph, caller, entries, avoid=target, first_only=True)
            for site in sorted(graph.graph[caller][target]["sites"], key=lambda s: (s.line, s.resolution)):
                per_way += [_chain(graph, entries[start], near, (target, site)) for start in first]
    chosen: dict[tuple, FoundChain] = {}
    for chain in [*sorted(per_way, key=_length), *per_entry]:
        key = (chain.nodes, tuple((s.path, s.line) for s in chain.sites))
        if len(chosen) < MAX_CHAINS:
            chosen.setdefault(key, chain)
    return Reach(tuple(sorted(chosen.values(), key=_length)), tuple(entries[n] for n in found))


def _search(
    graph: CallGraph, start: str, entries: dict[str, Entry], avoid: str | None, first_only: bool
) -> tuple[dict[str, str | None], list[str]]:
    """Backward breadth-first search from `start` (never through `avoid`): for each node reached,
    the next node toward `start`; and the entries reached, nearest first, ties by name (only the
    nearest when `first_only`)."""
    toward: dict[str, str | None] = {start: None}
    queue = deque([(start, 0)])
    found: list[str] = []
    while queue:
        node, depth = queue.popleft()
        if node in entries:
            found.append(node)
            if first_only:
                break
        if depth >= MAX_DEPTH or node not in graph.graph:
            continue
        for caller in sorted(graph.graph.predecessors(node)):
            if caller not in toward and caller != avoid:
                toward[caller] = node
                queue.append((caller, depth + 1))
    return toward, found


def _chain(graph: CallGraph, entry: Entry, toward: dict[str, str | None], last: tuple) -> FoundChain:
    """The chain from `entry` along `toward`, then through `last` (the raising function and the
    call site into it) when given."""
    nodes = [entry.node]
    while toward[nodes[-1]] is not None:
        nodes.append(toward[nodes[-1]])
    sites = [_fewest_conditions(graph, a, b) for a, b in zip(nodes, nodes[1:])]
    if last:
        nodes.append(last[0])
        sites.append(last[1])
    return FoundChain(entry, tuple(nodes), tuple(sites))


def _length(chain: FoundChain) -> tuple[int, str]:
    return len(chain.nodes), chain.entry.node


def _fewest_conditions(graph: CallGraph, caller: str, callee: str) -> CallSite:
    return min(graph.graph[caller][callee]["sites"], key=lambda s: (len(s.condition), s.line))

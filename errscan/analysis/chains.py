"""Call chains: the shortest feasible way from each entry point into a raising function.

Every entry point that reaches the function within MAX_DEPTH calls is found by a backward search.
From each, the shortest chain is then searched forward over every call site of every caller/callee
pair, carrying the arguments each call passes (`bindings.py`): a step whose condition cannot hold
under them is not taken, so the chain kept is the shortest feasible one. (The backward search's own
shortest path is tried first, its tails shared by the entry points; an A* search only where a step
of it is ruled out.) When every chain from an
entry point is infeasible (the search went through all of them), the entry does not reach the
error: its shortest chain is kept with the reason, for the JSON only. The raising site's own
condition is checked last, per site (`select`), as sites of one function share the search.

Shown per error: one chain per entry point (up to MAX_CHAINS, shortest first), then up to MAX_WAYS
more for the other ways into the function (another caller, or a call under another condition),
each from the nearest entry point that takes it. A search takes at most MAX_STEPS paths per entry
point and MAX_TARGET_STEPS per function: what it did not decide stays unknown, never infeasible.
"""

from __future__ import annotations

import heapq
import itertools
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace
from typing import Callable

from errscan.analysis.bindings import Values, carried, conditions_hold
from errscan.analysis.dispatch import Bound, Dispatch
from errscan.analysis.entries import BUILTIN_KINDS, Entry
from errscan.analysis.platforms import On, PlatformRules
from errscan.extract.conditions import Condition, render
from errscan.graph.calls import CallGraph, CallSite

MAX_CHAINS = 8  # entry points whose shortest feasible chain is shown
MAX_WAYS = 4  # further chains shown, each through another way into the raising function
MAX_DEPTH = 12
MAX_STEPS = 200  # paths taken up per entry point before its search gives up (unknown)
MAX_TARGET_STEPS = 4000  # and per raising function, all entry points together
MAX_CANDIDATES = 3  # chains kept per entry point with distinct values of the function's parameters
MAX_WAY_ENTRIES = 3  # nearest entry points tried for each way in
# Dispatch demands a backward search keeps apart per function; past that, a caller's demands are
# dropped (nothing ruled out), so recursion through `self.a.m()` cannot multiply the states.
MAX_BOUNDS = 4

# A node, the method a looked-up plugin class must resolve to, and what the object the node runs
# on must dispatch to (`dispatch.py`).
State = tuple[str, "str | None", Bound]
Verdict = tuple["bool | None", str]  # satisfiable (True, False, None: unknown), and why not


@dataclass(frozen=True)
class FoundChain:
    entry: Entry
    nodes: tuple[str, ...]  # entry first, raising function last
    sites: tuple[CallSite, ...]  # sites[i]: the call from nodes[i] to nodes[i + 1]
    values: Values = ()  # the raising function's parameters bound on the way
    satisfiable: bool | None = True  # of the calls' conditions, under the arguments carried
    why: str = ""  # when not satisfiable: why

    @property
    def condition(self) -> Condition:
        return conjoin(*(site.condition for site in self.sites))


@dataclass(frozen=True)
class Reach:
    """What the search from a function's entry points found; `select` picks per site."""

    entries: tuple[Entry, ...]  # every entry the function is reachable from, nearest first
    candidates: dict[str, list[FoundChain]] = field(default_factory=dict)  # entry node -> feasible so far
    refused: dict[str, FoundChain] = field(default_factory=dict)  # entry node -> its shortest infeasible chain
    ways: tuple[FoundChain, ...] = ()  # the shortest feasible chain through each way into the function
    turned: tuple[FoundChain, ...] = ()  # ways into the function that the nearest entry points cannot take
    # Whether every call that may run the function is known: each of its callers is reached from
    # an entry point, and no call the graph left unresolved names it. Only then do infeasible
    # chains from every entry point prove it never runs.
    closed: bool = False
    chains: tuple[FoundChain, ...] = ()  # filled by `select`: the chains shown
    infeasible: tuple[FoundChain, ...] = ()  # filled by `select`: entries' chains that cannot be taken


def conjoin(*conditions: Condition) -> Condition:
    """All terms of all conditions, in order, each once."""
    seen, terms = set(), []
    for condition in conditions:
        for term in condition:
            if term not in seen:
                seen.add(term)
                terms.append(term)
    return tuple(terms)


def reach(
    graph: CallGraph, target: str, entries: dict[str, Entry], lookups: frozenset[tuple[str, str]] = frozenset(),
    relevant: frozenset[str] = frozenset(), named: Callable[[str], int] = lambda name: 0, dispatch: Dispatch | None = None,
    platforms: PlatformRules | None = None,
) -> Reach:
    """Every entry that reaches `target` within MAX_DEPTH calls, and its feasible chains.

    `lookups` are the edges that call a method on the plugin class looked up at run time for the
    configured plugin name: through one, an entry of plugin P reaches only the method P's class
    resolves to. `relevant` names the target's parameters its sites test: chains that bind them
    differently are kept apart, as a site may hold under one and not the other. `named` counts the
    calls in the package that name a function or class (resolved or not); `dispatch`, what the
    graph's objects hold (built here when not given); `platforms`, the steps that run on some
    platforms only (`platforms.py`)."""
    search = _Search(graph, entries, lookups, dispatch or Dispatch(graph), platforms)
    tree = search.run(target)
    nearest: dict[str, tuple[State, Entry]] = {}
    for state, entry in tree.found:
        nearest.setdefault(entry.node, (state, entry))
    candidates, refused = {}, {}
    turned: list[FoundChain] = []
    for node, (state, entry) in nearest.items():
        found, refusals, exhausted = search.forward(tree, state, entry, relevant)
        if found:
            candidates[node] = found
            taken = {_way(chain) for chain in found}
            turned += [chain for chain in refusals if _way(chain) not in taken]
        elif refusals and exhausted:
            refused[node] = refusals[0]
    ways = []
    if tree.found and target in graph.graph:  # (a way in reaches no entry the first search did not)
        for caller in sorted(graph.graph.predecessors(target)):
            if caller == target:
                continue
            required = target if (caller, target) in lookups else None
            near = search.run(caller, target, required, 1, search.dispatch.step(caller, target, frozenset()))
            for site, _ in search.distinct_sites(caller, target):
                for state, entry in near.found[:MAX_WAY_ENTRIES]:
                    way, refusals, _ = search.forward(near, state, entry, frozenset(), (target, site))
                    ways += way[:1]
                    turned += refusals[:1]
                    if way:
                        break
    reached: dict[str, Entry] = {}
    for _, entry in tree.found:  # one entry may count for some plugins on one way, others on another
        known = reached.get(entry.node)
        plugins = (known.plugins if known else ()) + tuple(p for p in entry.plugins if not known or p not in known.plugins)
        reached[entry.node] = replace(entry, plugins=plugins)
    # A chain refused for its platforms leaves the function to the platform it needs, which may
    # reach it by a call the graph does not resolve: never proof that it cannot run.
    closed = _closed(graph, target, tree, named) and not search.platform_refused
    return Reach(tuple(reached.values()), candidates, refused, tuple(sorted(ways, key=_length)), tuple(turned), closed)


def _closed(graph: CallGraph, target: str, tree: _Tree, named: Callable[[str], int]) -> bool:
    """Whether every call that may run `target` is a resolved one from a caller an entry reaches."""
    if target not in graph.graph:
        return False
    owner, _, name = target.rpartition(".")
    sites = sum(len(graph.graph[caller][target]["sites"]) for caller in graph.graph.predecessors(target))
    if named(owner.rsplit(".", 1)[-1] if name == "__init__" else name) > sites:
        return False
    reached, frontier = set(), [state for state, _ in tree.found]
    while frontier:
        state = frontier.pop()
        if state not in reached:
            reached.add(state)
            frontier += tree.nexts.get(state, ())
    return all(state in reached for state, following in tree.toward.items() if following == (target, None, frozenset()))


def select(found: Reach, final: Callable[[Values], Verdict]) -> Reach:
    """The chains of one site: per entry point, the shortest whose last step `final` (the site's
    own condition, under the values carried) does not rule out; the entries none of whose chains
    can be taken are left out of `entries` and their chain kept in `infeasible`."""
    chosen, infeasible = [], []
    for node, candidates in found.candidates.items():
        verdicts = [(chain, final(chain.values)) for chain in candidates]
        taken = next(((c, v) for c, v in verdicts if v[0] is not False), None)
        if taken is not None:
            chosen.append(_judged(*taken))
        else:
            infeasible.append(_judged(*verdicts[0]))
    infeasible += found.refused.values()
    shown = sorted(chosen, key=_length)[:MAX_CHAINS]
    covered = {_way(chain) for chain in shown}
    ways = 0
    for way in found.ways:
        judged = _judged(way, final(way.values))
        if ways < MAX_WAYS and judged.satisfiable is not False and _way(way) not in covered:
            covered.add(_way(way))
            shown.append(judged)
            ways += 1
    dropped = {chain.entry.node for chain in infeasible} - {chain.entry.node for chain in shown}
    entries = tuple(e for e in found.entries if e.node not in dropped)
    unique = {(chain.entry.node, _way(chain)): chain for chain in [*found.turned[::-1], *infeasible[::-1]]}
    kept = tuple(sorted(unique.values(), key=_length)[:MAX_CHAINS])
    return replace(found, entries=entries, chains=tuple(shown), infeasible=kept)


def _judged(chain: FoundChain, verdict: Verdict) -> FoundChain:
    holds, why = verdict
    if holds is False:
        return replace(chain, satisfiable=False, why=chain.why or why)
    if chain.satisfiable is False:
        return chain
    return replace(chain, satisfiable=True if holds and chain.satisfiable else None)


def _own_condition(site: CallSite) -> str | None:
    """The condition the call itself is made under. A site reached through a local alias also
    holds the condition under which the alias was assigned, which may no longer hold at the call
    (`stats = m` when `stats is None`, then `stats.aggregate()` when it is not): never checked."""
    return render(site.call.condition if site.call is not None else site.condition, "deep")


def _where(site: CallSite, callee: str) -> str:
    return f"the call of `{callee.rsplit('.', 1)[-1]}` at {site.path.rsplit('/', 1)[-1]}:{site.line}"


def _way(chain: FoundChain) -> tuple[str, str | None]:
    """The caller through which a chain enters the function, and under what condition."""
    return (chain.nodes[-2], render(chain.sites[-1].condition)) if chain.sites else (chain.nodes[0], None)


@dataclass
class _Tree:
    """A backward search's result: for each state reached, its first successor toward the start,
    all its successors, and its distance in calls; and the entries reached, nearest first."""

    toward: dict[State, State | None]
    nexts: dict[State, list[State]]
    dist: dict[State, int]
    found: list[tuple[State, Entry]]
    direct: dict[tuple, tuple | None] = field(default_factory=dict)  # see `_Search.direct`


class _Search:
    def __init__(self, graph: CallGraph, entries: dict[str, Entry], lookups: frozenset[tuple[str, str]], dispatch: Dispatch,
                 platforms: PlatformRules | None = None):
        self.graph = graph
        self.platforms = platforms or PlatformRules(graph, None)
        self.platform_refused = False  # whether some step was refused for its platforms
        self.entries = entries
        self.lookups = lookups
        self.looked_up = frozenset(callee for _, callee in lookups)
        self._sites: dict[tuple[str, str], list[tuple[CallSite, str | None]]] = {}
        self.dispatch = dispatch
        self.budget = MAX_TARGET_STEPS

    def run(self, start: str, avoid: str | None = None, required: str | None = None, depth: int = 0,
            bound: Bound = frozenset()) -> _Tree:
        """Backward breadth-first search from `start` (never through `avoid`), which is `depth`
        calls from the raising function already (and whose object must dispatch as `bound`
        demands for the call into it); entries ties by name."""
        first: State = (start, required, bound)
        tree = _Tree({first: None}, {}, {first: 0}, [])
        queue = deque([(first, depth)])
        predecessors = self.graph.graph.pred
        bounds: dict[tuple[str, str | None], set[Bound]] = defaultdict(set)
        while queue:
            state, level = queue.popleft()
            node, needed, bound = state
            entry = self._entry(node, needed, bound) if node in self.entries else None
            if entry is not None:
                tree.found.append((state, entry))
            if level >= MAX_DEPTH or node not in predecessors:
                continue
            lookup = needed is None and node in self.looked_up
            for caller in sorted(predecessors[node]):
                if caller == avoid:
                    continue
                wanted = node if lookup and (caller, node) in self.lookups else needed
                demands = self.dispatch.step(caller, node, bound)
                kept = bounds[caller, wanted]
                if demands not in kept and len(kept) >= MAX_BOUNDS:
                    demands = frozenset()
                kept.add(demands)
                previous = (caller, wanted, demands)
                tree.nexts.setdefault(previous, []).append(state)
                if previous not in tree.toward:
                    tree.toward[previous] = state
                    tree.dist[previous] = tree.dist[state] + 1
                    queue.append((previous, level + 1))
        return tree

    def forward(
        self, tree: _Tree, origin: State, entry: Entry, relevant: frozenset[str], last: tuple[str, CallSite] | None = None,
    ) -> tuple[list[FoundChain], list[FoundChain], bool]:
        """The shortest feasible chains from `origin` to the tree's start (then through `last`),
        up to MAX_CANDIDATES with distinct values of the `relevant` parameters; the shortest
        infeasible chain of each way into the function met on the way; and whether the search
        went through every chain."""
        kind = entry.kind if entry.kind not in BUILTIN_KINDS else None
        on, _ = self.platforms.step(None, None, origin[0], "")
        direct = self.direct(tree, origin, (), kind, on) if not relevant else None
        if direct is not None:  # the backward search's own shortest path can be taken
            nodes, sites, values, holds, ends = direct
            chain = FoundChain(entry, (origin[0], *nodes), sites, values, holds)
            if last is None:
                return [chain], [], False
            verdict = self._holds(_own_condition(last[1]), values, last[1], last[0], ends)[0]
            if verdict[0] is not False:
                passed = carried(self.graph, values, last[1], chain.nodes[-1], last[0])
                return [FoundChain(entry, (*chain.nodes, last[0]), (*sites, last[1]), passed, True if verdict[0] and holds else None)], [], False
        order = itertools.count()
        heap = [(tree.dist[origin], 0, next(order), origin, (origin[0],), (), (), True, on)]
        closed: set[tuple[State, Values, frozenset[str] | None]] = set()
        found: list[FoundChain] = []
        keys: set[Values] = set()
        refused: dict[tuple[str, str | None], FoundChain] = {}
        steps = 0
        while heap and steps < MAX_STEPS and self.budget > 0:
            _, length, _, state, nodes, sites, values, holds, on = heapq.heappop(heap)
            taken = (state, values, on and on[0])  # (the platforms left, whichever step named them)
            if taken in closed:
                continue
            closed.add(taken)
            steps += 1
            self.budget -= 1
            if tree.dist[state] == 0:
                chain = FoundChain(entry, nodes, sites, values, holds)
                if last is not None:
                    verdict = self._holds(_own_condition(last[1]), values, last[1], last[0], on)[0]
                    chain = FoundChain(entry, (*nodes, last[0]), (*sites, last[1]), carried(self.graph, values, last[1], nodes[-1], last[0]), holds)
                    if verdict[0] is False:
                        refused.setdefault(_way(chain), replace(chain, satisfiable=False, why=verdict[1]))
                        continue
                    chain = replace(chain, satisfiable=True if verdict[0] and holds else None)
                key = tuple(v for v in chain.values if v[0] in relevant)
                if key not in keys:
                    keys.add(key)
                    found.append(chain)
                if not relevant or len(found) >= MAX_CANDIDATES:
                    return found, list(refused.values()), False
                continue
            caller = state[0]
            for following in tree.nexts.get(state, ()):
                callee = following[0]
                if callee in nodes or length + 1 + tree.dist[following] > MAX_DEPTH or self._other_kind(entry, callee):
                    continue
                for site, code in self.distinct_sites(caller, callee):
                    if not self.dispatch.site_allows(caller, site, callee, following[2]):
                        continue
                    (step_holds, why), ends = self._holds(code, values, site, callee, on)
                    if step_holds is False:
                        chain = self._completed(tree, entry, nodes, sites, site, following, why, last)
                        refused.setdefault(_way(chain), chain)
                        continue
                    passed = carried(self.graph, values, site, caller, callee)
                    both = True if step_holds and holds else None
                    heapq.heappush(heap, (length + 1 + tree.dist[following], length + 1, next(order), following,
                                          (*nodes, callee), (*sites, site), passed, both, ends))
        return found, list(refused.values()), not heap

    def direct(self, tree: _Tree, state: State, values: Values, kind: str | None, on: On) -> tuple | None:
        """The backward search's shortest path from `state` to its start, taking for each pair the
        first site whose condition is not ruled out: (nodes after `state`, sites, the values at
        the end, satisfiable, the platforms at the end); None when a step is ruled out or passes
        through an entry point of another kind than `kind`. Kept per state, values and platforms:
        entry points share their tails."""
        key = (state, values, kind, on)
        if key in tree.direct:
            return tree.direct[key]
        following = tree.toward[state]
        result = None
        if following is None:
            result = ((), (), values, True, on)
        elif not (kind and following[0] in self.entries and self.entries[following[0]].kind != kind):
            callee = following[0]
            for site, code in self.distinct_sites(state[0], callee):
                if not self.dispatch.site_allows(state[0], site, callee, following[2]):
                    continue
                (holds, _), ends = self._holds(code, values, site, callee, on)
                if holds is False:
                    continue
                rest = self.direct(tree, following, carried(self.graph, values, site, state[0], callee), kind, ends)
                if rest is not None:
                    result = ((callee, *rest[0]), (site, *rest[1]), rest[2], True if holds and rest[3] else None, rest[4])
                break
        tree.direct[key] = result
        return result

    def _holds(self, code: str | None, values: Values, site: CallSite, callee: str, on: On) -> tuple[Verdict, On]:
        """Whether the call of `callee` at `site` (under `code`) can be taken, with `values` bound
        and on the platforms `on`; and the platforms after it."""
        where = _where(site, callee)
        ends, why = self.platforms.step(on, code, callee, where)
        if why:
            self.platform_refused = True
            return (False, f"{where} is never reached on this way: {why}"), ends
        return conditions_hold(code, values, where), ends

    def distinct_sites(self, caller: str, callee: str) -> list[tuple[CallSite, str | None]]:
        """The call sites of a pair that differ in condition or arguments, fewest conditions first."""
        key = (caller, callee)
        if key not in self._sites:
            sites = sorted(self.graph.graph[caller][callee]["sites"], key=lambda s: (len(s.condition), s.line, s.resolution))
            seen, kept = set(), []
            for site in sites:
                code = _own_condition(site)
                call = site.call
                mark = (code, call.callee if call else None, call.arguments if call else None, call.keywords if call else None, call.passed_to if call else None)
                if mark not in seen:
                    seen.add(mark)
                    kept.append((site, code))
            self._sites[key] = kept
        return self._sites[key]

    def _other_kind(self, entry: Entry, node: str) -> bool:
        """Whether a chain from `entry` would pass through an entry point of another kind: where
        another path of the program begins (a plugin's method, a route), whose own chain tells
        better when and where the error fires. Only chains from the user paths' entry points are
        so kept apart (the plugins' own, config validation and `__main__` entries show how the
        core calls into a plugin, which is what they are for)."""
        if entry.kind in BUILTIN_KINDS or node not in self.entries:
            return False
        return self.entries[node].kind != entry.kind

    def _completed(
        self, tree: _Tree, entry: Entry, nodes: tuple[str, ...], sites: tuple[CallSite, ...], site: CallSite,
        following: State, why: str, last: tuple[str, CallSite] | None,
    ) -> FoundChain:
        """The chain that takes `site` (which cannot be taken) and goes on the shortest way."""
        states = [following]
        while tree.toward[states[-1]] is not None:
            states.append(tree.toward[states[-1]])
        rest = [state[0] for state in states]
        more = [self.distinct_sites(a, b)[0][0] for a, b in zip(rest, rest[1:])]
        if last is not None:
            rest.append(last[0])
            more.append(last[1])
        return FoundChain(entry, (*nodes, *rest), (*sites, site, *more), (), False, why)

    def _entry(self, node: str, needed: str | None, bound: Bound) -> Entry | None:
        """The entry at `node`, keeping the plugins whose class resolves to the `needed` method
        and whose objects dispatch as `bound` demands."""
        entry = self.entries.get(node)
        if entry is None or needed is None and not bound or not entry.plugins:
            return entry
        method = needed.rsplit(".", 1)[1] if needed else ""
        plugins = tuple(p for p in entry.plugins if (needed is None or self.graph.lookup_method(p.klass, method) == needed)
                        and self.dispatch.allows(p, bound))
        return replace(entry, plugins=plugins) if plugins else None


def _length(chain: FoundChain) -> tuple[int, str]:
    return len(chain.nodes), chain.entry.node

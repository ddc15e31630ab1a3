"""The two searches behind call chains (`chains.py`): backward, breadth-first, from a function to
every entry point that reaches it within MAX_DEPTH calls; then forward from an entry point, for the
shortest chains whose calls' conditions can hold under the arguments carried (`bindings.py`), on
one platform (`platforms.py`), with objects that dispatch as the chain needs (`dispatch.py`).
"""

from __future__ import annotations

import heapq
import itertools
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace

from errscan.analysis.bindings import Values, carried, conditions_hold
from errscan.analysis.configured import Configured
from errscan.analysis.dispatch import Bound, Dispatch
from errscan.analysis.entries import BUILTIN_KINDS, Entry
from errscan.analysis.platforms import On, PlatformRules
from errscan.extract.conditions import Condition, render
from errscan.graph.calls import CallGraph, CallSite

MAX_DEPTH = 12
MAX_STEPS = 200  # paths taken up per entry point before its search gives up (unknown)
MAX_TARGET_STEPS = 4000  # and per raising function, all entry points together
MAX_CANDIDATES = 3  # chains kept per entry point with distinct values of the function's parameters
# Dispatch demands a backward search keeps apart per function; past that, a caller's demands are
# dropped (nothing ruled out), so recursion through `self.a.m()` cannot multiply the states.
MAX_BOUNDS = 4

# A node, the method a looked-up plugin class must resolve to, and what the object the node runs
# on must dispatch to (`dispatch.py`).
State = tuple[str, "str | None", Bound]
Verdict = tuple["bool | None", str]  # satisfiable (True, False, None: unknown), and why not


def conjoin(*conditions: Condition) -> Condition:
    """All terms of all conditions, in order, each once."""
    seen, terms = set(), []
    for condition in conditions:
        for term in condition:
            if term not in seen:
                seen.add(term)
                terms.append(term)
    return tuple(terms)


@dataclass(frozen=True)
class FoundChain:
    entry: Entry
    nodes: tuple[str, ...]  # entry first, raising function last
    sites: tuple[CallSite, ...]  # sites[i]: the call from nodes[i] to nodes[i + 1]
    values: Values = ()  # the raising function's parameters bound on the way
    satisfiable: bool | None = True  # of the calls' conditions, under the arguments carried
    why: str = ""  # when not satisfiable: why
    # The calls' conditions and the raise's own, under a loop said in the looping function's names
    # (`quantified.py`); None: as each function states them.
    stated: tuple[Condition, Condition] | None = field(default=None, compare=False)

    @property
    def condition(self) -> Condition:
        return conjoin(self.stated[0] if self.stated is not None else conjoin(*(site.condition for site in self.sites)))


def own_condition(site: CallSite) -> str | None:
    """The condition the call itself is made under. A site reached through a local alias also
    holds the condition under which the alias was assigned, which may no longer hold at the call
    (`stats = m` when `self.fresh`, then `self.fresh = False` and `stats.aggregate()`): never checked."""
    return render(site.call.condition if site.call is not None else site.condition, "deep")


def call_place(site: CallSite, callee: str) -> str:
    return f"the call of `{callee.rsplit('.', 1)[-1]}` at {site.path.rsplit('/', 1)[-1]}:{site.line}"


def way_in(chain: FoundChain) -> tuple[str, str | None]:
    """The caller through which a chain enters the function, and under what condition."""
    return (chain.nodes[-2], render(chain.sites[-1].condition)) if chain.sites else (chain.nodes[0], None)


@dataclass
class Tree:
    """A backward search's result: for each state reached, its first successor toward the start,
    all its successors, and its distance in calls; and the entries reached, nearest first."""

    toward: dict[State, State | None]
    nexts: dict[State, list[State]]
    dist: dict[State, int]
    found: list[tuple[State, Entry]]
    direct: dict[tuple, tuple | None] = field(default_factory=dict)  # see `Search.direct`


@dataclass
class Kept:
    """What every search over one graph works out alike, whichever function it starts from: kept
    as long as the graph (its call sites, whose identities key it, live as long)."""

    callers: dict[str, list[str]] = field(default_factory=dict)  # each node's callers, sorted
    sites: dict[tuple[str, str], list[tuple[CallSite, str | None]]] = field(default_factory=dict)  # `Search.distinct_sites`
    carried: dict[tuple[Values, int, str, str, bool], Values] = field(default_factory=dict)  # `Search.carried`


class Search:
    def __init__(self, graph: CallGraph, entries: dict[str, Entry], lookups: frozenset[tuple[str, str]], dispatch: Dispatch,
                 platforms: PlatformRules | None = None, configured: Configured | None = None, kept: Kept | None = None):
        self.graph = graph
        self.configured = configured
        self.platforms = platforms or PlatformRules(graph, None)
        self.platform_refused = False  # whether some step was refused for its platforms
        self.entries = entries
        self.lookups = lookups
        self.looked_up = frozenset(callee for _, callee in lookups)
        self.kept = kept or Kept()  # the forward searches retake the same steps, searches of other functions too
        self.dispatch = dispatch
        self.budget = MAX_TARGET_STEPS

    def run(self, start: str, avoid: str | None = None, required: str | None = None, depth: int = 0,
            bound: Bound = frozenset()) -> Tree:
        """Backward breadth-first search from `start` (never through `avoid`), which is `depth`
        calls from the raising function already (and whose object must dispatch as `bound`
        demands for the call into it); entries ties by name."""
        first: State = (start, required, bound)
        tree = Tree({first: None}, {}, {first: 0}, [])
        queue = deque([(first, depth)])
        predecessors = self.graph.graph.pred
        bounds: dict[tuple[str, str | None], set[Bound]] = defaultdict(set)
        entries, lookups, step, callers = self.entries, self.lookups, self.dispatch.step, self._callers
        toward, nexts, dist = tree.toward, tree.nexts, tree.dist
        while queue:
            state, level = queue.popleft()
            node, needed, bound = state
            entry = self._entry(node, needed, bound) if node in entries else None
            if entry is not None:
                tree.found.append((state, entry))
            if level >= MAX_DEPTH or node not in predecessors:
                continue
            lookup = needed is None and node in self.looked_up
            further = dist[state] + 1
            for caller in callers(node):
                if caller == avoid:
                    continue
                wanted = node if lookup and (caller, node) in lookups else needed
                demands = step(caller, node, bound)
                kept = bounds[caller, wanted]
                if demands not in kept and len(kept) >= MAX_BOUNDS:
                    demands = frozenset()
                kept.add(demands)
                previous = (caller, wanted, demands)
                following = nexts.get(previous)
                if following is None:
                    nexts[previous] = [state]
                else:
                    following.append(state)
                if previous not in toward:
                    toward[previous] = state
                    dist[previous] = further
                    queue.append((previous, level + 1))
        return tree

    def _callers(self, node: str) -> list[str]:
        callers = self.kept.callers
        found = callers.get(node)
        if found is None:
            found = callers[node] = sorted(self.graph.graph.pred[node])
        return found

    def forward(
        self, tree: Tree, origin: State, entry: Entry, relevant: frozenset[str], last: tuple[str, CallSite] | None = None,
        start: Values = (),
    ) -> tuple[list[FoundChain], list[FoundChain], bool]:
        """The shortest feasible chains from `origin` to the tree's start (then through `last`),
        up to MAX_CANDIDATES with distinct values of the `relevant` parameters; the shortest
        infeasible chain of each way into the function met on the way; and whether the search
        went through every chain. `start` binds the entry's own parameters (`entry.declared` when not given)."""
        kind = entry.kind if entry.kind not in BUILTIN_KINDS else None
        on, _ = self.platforms.step(None, None, origin[0], "")
        start = start or entry.declared
        direct = self.direct(tree, origin, start, kind, on) if not relevant else None
        if direct is not None:  # the backward search's own shortest path can be taken
            nodes, sites, values, holds, ends = direct
            chain = FoundChain(entry, (origin[0], *nodes), sites, values, holds)
            if last is None:
                return [chain], [], False
            verdict = self._holds(own_condition(last[1]), values, last[1], last[0], ends)[0]
            if verdict[0] is not False:
                passed = self.carried(values, last[1], chain.nodes[-1], last[0])
                return [FoundChain(entry, (*chain.nodes, last[0]), (*sites, last[1]), passed, True if verdict[0] and holds else None)], [], False
        order = itertools.count()
        heap = [(tree.dist[origin], 0, next(order), origin, (origin[0],), (), start, True, on)]
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
                    verdict = self._holds(own_condition(last[1]), values, last[1], last[0], on)[0]
                    chain = FoundChain(entry, (*nodes, last[0]), (*sites, last[1]), self.carried(values, last[1], nodes[-1], last[0]), holds)
                    if verdict[0] is False:
                        refused.setdefault(way_in(chain), replace(chain, satisfiable=False, why=verdict[1]))
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
                apart = self._apart(caller, following)
                for site, code in self.distinct_sites(caller, callee):
                    if not self.dispatch.site_allows(caller, site, callee, following[2]):
                        continue
                    (step_holds, why), ends = self._holds(code, values, site, callee, on, apart)
                    if step_holds is False:
                        chain = self._completed(tree, entry, nodes, sites, site, following, why, last)
                        refused.setdefault(way_in(chain), chain)
                        continue
                    passed = self.carried(values, site, caller, callee)
                    both = True if step_holds and holds else None
                    heapq.heappush(heap, (length + 1 + tree.dist[following], length + 1, next(order), following,
                                          (*nodes, callee), (*sites, site), passed, both, ends))
        return found, list(refused.values()), not heap

    def direct(self, tree: Tree, state: State, values: Values, kind: str | None, on: On) -> tuple | None:
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
            apart = self._apart(state[0], following)
            for site, code in self.distinct_sites(state[0], callee):
                if not self.dispatch.site_allows(state[0], site, callee, following[2]):
                    continue
                (holds, _), ends = self._holds(code, values, site, callee, on, apart)
                if holds is False:
                    continue
                rest = self.direct(tree, following, self.carried(values, site, state[0], callee), kind, ends)
                if rest is not None:
                    result = ((callee, *rest[0]), (site, *rest[1]), rest[2], True if holds and rest[3] else None, rest[4])
                break
        tree.direct[key] = result
        return result

    def carried(self, values: Values, site: CallSite, caller: str, callee: str, typed: bool = False) -> Values:
        """`bindings.carried`, kept per step."""
        key = (values, id(site), caller, callee, typed)
        found = self.kept.carried.get(key)
        if found is None:
            found = self.kept.carried[key] = carried(self.graph, values, site, caller, callee, typed)
        return found

    def _holds(self, code: str | None, values: Values, site: CallSite, callee: str, on: On,
               apart: str | None = None) -> tuple[Verdict, On]:
        """Whether the call of `callee` at `site` (under `code`) can be taken, with `values` bound
        and on the platforms `on` (never when `apart` says why, `_apart`); and the platforms after it."""
        where = call_place(site, callee)
        if apart:
            return (False, f"{where} is never reached on this way: {apart}"), on
        given = dict(values).get(site.call.callee) if site.resolution == "alias" and site.call is not None else None
        if given is not None and given.given:  # `merge_fn(...)` reaches `merge_fn`'s default, which the caller replaced
            return (False, f"{where} is never reached on this way: `{site.call.callee}` is {given.origin}, so it "
                           f"is not its default"), on
        ends, why = self.platforms.step(on, code, callee, where)
        if why:
            self.platform_refused = True
            return (False, f"{where} is never reached on this way: {why}"), ends
        return conditions_hold(code, values, where), ends

    def _apart(self, caller: str, following: State) -> str | None:
        """Why the class looked up for the call into `following`'s node cannot be the configured
        plugin's that a later lookup on the way needs (`configured.py`); None when it may be."""
        node, needed, _ = following
        if self.configured is None or needed is None or needed == node or (caller, node) not in self.lookups:
            return None
        return self.configured.apart(node, needed)

    def distinct_sites(self, caller: str, callee: str) -> list[tuple[CallSite, str | None]]:
        """The call sites of a pair that differ in condition or arguments, fewest conditions first."""
        key, kept_sites = (caller, callee), self.kept.sites
        if key not in kept_sites:
            sites = sorted(self.graph.graph[caller][callee]["sites"], key=lambda s: (len(s.condition), s.line, s.resolution))
            seen, kept = set(), []
            for site in sites:
                code = own_condition(site)
                call = site.call
                mark = (code, call.callee if call else None, call.arguments if call else None, call.keywords if call else None, call.passed_to if call else None)
                if mark not in seen:
                    seen.add(mark)
                    kept.append((site, code))
            kept_sites[key] = kept
        return kept_sites[key]

    def through_other_kind(self, tree: Tree, origin: State, entry: Entry) -> bool:
        """Whether every way from `origin` to the tree's start passes through an entry point of
        another kind than `entry`'s (and at least one does)."""
        seen, frontier, passes = {origin}, [origin], False
        while frontier:
            state = frontier.pop()
            if tree.dist[state] == 0:
                return False
            for following in tree.nexts.get(state, ()):
                if self._other_kind(entry, following[0]):
                    passes = True
                elif following not in seen:
                    seen.add(following)
                    frontier.append(following)
        return passes

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
        self, tree: Tree, entry: Entry, nodes: tuple[str, ...], sites: tuple[CallSite, ...], site: CallSite,
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

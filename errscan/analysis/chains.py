"""Call chains: the shortest feasible way from each entry point into a raising function.

Every entry point that reaches the function within MAX_DEPTH calls is found by a backward search
(`search.py`, which holds both searches).
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

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable

from errscan.analysis.bindings import Values
from errscan.analysis.configured import Configured
from errscan.analysis.declared import short_name
from errscan.analysis.dispatch import Dispatch
from errscan.analysis.entries import Entry
from errscan.analysis.platforms import PlatformRules
from errscan.analysis.search import FoundChain, Kept, Search, State, Tree, Verdict, way_in
from errscan.graph.calls import CallGraph

MAX_CHAINS = 8  # entry points whose shortest feasible chain is shown
MAX_WAYS = 4  # further chains shown, each through another way into the raising function
MAX_WAY_ENTRIES = 3  # nearest entry points tried for each way in
MAX_CALLS = 8  # calls of a core-call entry point searched each under its own arguments


@dataclass(frozen=True)
class Called:
    """A call the package makes of a core-call entry point, and the chains from the entry point
    under the arguments that call passes."""

    place: str  # "`Scheduler.__init__` (scheduler.py:140)"
    chains: tuple[FoundChain, ...]  # feasible on the way, under its arguments
    refused: str  # when no chain could be taken: why the first one cannot
    exhausted: bool  # whether the search went through every chain


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
    # Entries none of whose chains leaves the way through an entry point of another kind (where
    # another path of the program begins, `search._other_kind`): they reach the function only as
    # that entry does, so when every other entry's chains are infeasible, theirs are too.
    deferred: frozenset[str] = frozenset()
    # Per core-call entry whose every call is known and binds some argument: each call (`Called`).
    # A function the core calls is entered only so: when no call allows a chain, none can be taken.
    by_callers: dict[str, tuple[Called, ...]] = field(default_factory=dict)
    chains: tuple[FoundChain, ...] = ()  # filled by `select`: the chains shown
    infeasible: tuple[FoundChain, ...] = ()  # filled by `select`: entries' chains that cannot be taken


def reach(
    graph: CallGraph, target: str, entries: dict[str, Entry], lookups: frozenset[tuple[str, str]] = frozenset(),
    relevant: frozenset[str] = frozenset(), named: Callable[[str], int] = lambda name: 0, dispatch: Dispatch | None = None,
    platforms: PlatformRules | None = None, configured: Configured | None = None, kept: Kept | None = None,
) -> Reach:
    """Every entry that reaches `target` within MAX_DEPTH calls, and its feasible chains.

    `lookups` are the edges that call a method on the plugin class looked up at run time for the
    configured plugin name: through one, an entry of plugin P reaches only the method P's class
    resolves to. `relevant` names the target's parameters its sites test: chains that bind them
    differently are kept apart, as a site may hold under one and not the other. `named` counts the
    calls in the package that name a function or class, but for the calls the graph resolved;
    `dispatch`, what the
    graph's objects hold (built here when not given); `platforms`, the steps that run on some
    platforms only (`platforms.py`); `configured`, which lookups of one chain can name one plugin;
    `kept`, what the searches for other functions of the graph worked out alike (`Kept`)."""
    search = Search(graph, entries, lookups, dispatch or Dispatch(graph), platforms, configured, kept)
    tree = search.run(target)
    nearest: dict[str, tuple[State, Entry]] = {}
    for state, entry in tree.found:
        nearest.setdefault(entry.node, (state, entry))
    candidates, refused, deferred, by_callers = {}, {}, set(), {}
    turned: list[FoundChain] = []
    for node, (state, entry) in nearest.items():
        found, refusals, exhausted = search.forward(tree, state, entry, relevant)
        if found:
            candidates[node] = found
            called = _by_callers(search, tree, state, entry, relevant, named) if entry.kind == "core-call" else ()
            if called:
                by_callers[node] = called
            taken = {way_in(chain) for chain in found}
            turned += [chain for chain in refusals if way_in(chain) not in taken]
        elif refusals and exhausted:
            refused[node] = refusals[0]
        elif exhausted and search.through_other_kind(tree, state, entry):
            deferred.add(node)
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
    return Reach(tuple(reached.values()), candidates, refused, tuple(sorted(ways, key=_length)), tuple(turned), closed,
                 frozenset(deferred), by_callers)


def _by_callers(search: Search, tree: Tree, state: State, entry: Entry, relevant: frozenset[str],
                named: Callable[[str], int]) -> tuple[Called, ...]:
    """Each call of `entry`'s function with the chains from it under that call's arguments; none
    when a call binds nothing (its chains are the entry's own), or may run it unseen, or there are
    more than MAX_CALLS."""
    graph, node = search.graph, entry.node
    if not _all_calls_known(graph, node, named):
        return ()
    calls = [(caller, site) for caller in sorted(graph.graph.predecessors(node)) for site, _ in search.distinct_sites(caller, node)]
    if len(calls) > MAX_CALLS:
        return ()
    called = []
    for caller, site in calls:
        values = search.carried((), site, caller, node, typed=True)
        if not values:
            return ()
        found, refusals, exhausted = search.forward(tree, state, entry, relevant, start=values)
        place = f"`{short_name(caller)}` ({site.path.rsplit('/', 1)[-1]}:{site.line})"
        called.append(Called(place, tuple(found), refusals[0].why if refusals and not found else "", exhausted))
    return tuple(called)


def _ruled_by_callers(node: str, calls: tuple[Called, ...], judge: Callable[[FoundChain], Verdict]) -> str | None:
    """Why no call of a core-call entry point allows a chain to the site; None when one may."""
    whys = []
    for call in calls:
        verdicts = [judge(chain) for chain in call.chains]
        if not call.exhausted or any(holds is not False for holds, _ in verdicts) or not (verdicts or call.refused):
            return None
        whys.append(f"from {call.place}, {verdicts[0][1] if verdicts else call.refused}")
    return f"every call of `{short_name(node)}` rules it out: {'; '.join(whys)}"


def unresolved_names(graph: CallGraph) -> Counter[str]:
    """Per last name, the package's calls naming it that the graph did not resolve (references and
    reads included): what may run a function of that name without an edge saying so."""
    named = Counter(call.callee.rsplit(".", 1)[-1] for module in graph.index.modules.values() for call in module.calls)
    named.subtract(graph.resolved_names)
    return named


def _all_calls_known(graph: CallGraph, target: str, named: Callable[[str], int]) -> bool:
    """Whether every call that may run `target` is one the graph resolved into it."""
    if target not in graph.graph:
        return False
    owner, _, name = target.rpartition(".")
    short = owner.rsplit(".", 1)[-1] if name == "__init__" else name
    sites = [site for caller in graph.graph.predecessors(target) for site in graph.graph[caller][target]["sites"]]
    # `named` leaves out the calls the graph resolved; those resolved into this function count
    # again, so that what another function's calls of the same name are does not count.
    into = sum(1 for site in sites if site.call is not None and site.call.kind == "call" and site.call.callee.rsplit(".", 1)[-1] == short)
    return named(short) + into <= len(sites)


def _closed(graph: CallGraph, target: str, tree: Tree, named: Callable[[str], int]) -> bool:
    """Whether every call that may run `target` is a resolved one from a caller an entry reaches."""
    if not _all_calls_known(graph, target, named):
        return False
    reached, frontier = set(), [state for state, _ in tree.found]
    while frontier:
        state = frontier.pop()
        if state not in reached:
            reached.add(state)
            frontier += tree.nexts.get(state, ())
    return all(state in reached for state, following in tree.toward.items() if following == (target, None, frozenset()))


def select(found: Reach, final: Callable[[Values], Verdict], along: Callable[[FoundChain], str | None] | None = None) -> Reach:
    """The chains of one site: per entry point, the shortest whose last step `final` (the site's
    own condition, under the values carried) does not rule out, nor `along` (why the checks made
    on the way contradict the site's, if they do: `along.py`); the entries none of whose chains
    can be taken are left out of `entries` and their chain kept in `infeasible`."""
    judge = _with_along(final, along)
    ruled = {node: why for node, calls in found.by_callers.items() if (why := _ruled_by_callers(node, calls, judge))}
    chosen, infeasible = [], []
    for node, candidates in found.candidates.items():
        verdicts = [(chain, judge(chain)) for chain in candidates]
        taken = next(((c, v) for c, v in verdicts if v[0] is not False), None)
        if taken is not None and node in ruled:
            infeasible.append(replace(taken[0], satisfiable=False, why=ruled[node]))
        elif taken is not None:
            chosen.append(_judged(*taken))
        else:
            infeasible.append(_judged(*verdicts[0]))
    infeasible += found.refused.values()
    shown = sorted(chosen, key=_length)[:MAX_CHAINS]
    covered = {way_in(chain) for chain in shown}
    ways, ruled_out = 0, []
    for way in found.ways:
        judged = _judged(way, (False, ruled[way.entry.node]) if way.entry.node in ruled else judge(way))
        if judged.satisfiable is False and judged.why:
            ruled_out.append(judged)  # a way in that the site's condition rules out: kept with why (its entry may reach otherwise)
        elif ways < MAX_WAYS and judged.satisfiable is not False and way_in(way) not in covered:
            covered.add(way_in(way))
            shown.append(judged)
            ways += 1
    dropped = {chain.entry.node for chain in infeasible} - {chain.entry.node for chain in shown}
    if dropped and not shown and all(e.node in dropped or e.node in found.deferred for e in found.entries):
        dropped |= found.deferred
    entries = tuple(e for e in found.entries if e.node not in dropped)
    unique = {(chain.entry.node, way_in(chain)): chain for chain in [*found.turned[::-1], *ruled_out[::-1], *infeasible[::-1]]}
    kept = tuple(sorted(unique.values(), key=_length)[:MAX_CHAINS])
    return replace(found, entries=entries, chains=tuple(shown), infeasible=kept)


def _with_along(final: Callable[[Values], Verdict], along: Callable[[FoundChain], str | None] | None) -> Callable[[FoundChain], Verdict]:
    def verdict(chain: FoundChain) -> Verdict:
        own = final(chain.values)
        why = along(chain) if own[0] is not False and along is not None else None
        return (False, why) if why else own

    return verdict


def _judged(chain: FoundChain, verdict: Verdict) -> FoundChain:
    holds, why = verdict
    if holds is False:
        return replace(chain, satisfiable=False, why=chain.why or why)
    if chain.satisfiable is False:
        return chain
    return replace(chain, satisfiable=True if holds and chain.satisfiable else None)


def _length(chain: FoundChain) -> tuple[int, str]:
    return len(chain.nodes), chain.entry.node

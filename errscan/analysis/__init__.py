"""Analysis: when each catalogued error fires, from the call graph and the facts of every file.

For each error: the path condition at the raise (locals substituted, accumulate-then-raise read as
the disjunction of its guarded appends), the shortest call chains from entry points, the plugins
that reach it, the settings that decide it, solutions and related errors.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Sequence

import msgspec

from errscan.analysis.bynames import add_calls_by_name
from errscan.analysis.bindings import conditions_hold
from errscan.analysis.chains import Reach, reach, select, unresolved_names
from errscan.analysis.search import FoundChain, Kept, conjoin
from errscan.analysis.chunks import ChunkMap, chunk_sites, in_order
from errscan.analysis.dispatch import Dispatch
from errscan.analysis.along import Along
from errscan.analysis.configured import Configured
from errscan.analysis.entries import Entry, find_entries, find_plugins, plugin_lookups
from errscan.analysis.explain import Explainer
from errscan.analysis.helpers import HelperSettings
from errscan.analysis.knobs import KnobCatalog, flags_in_message, knobs_in
from errscan.analysis.members import enum_domains, ruled_out as members_ruled_out
from errscan.analysis.passed import Passed, completed, parameters_read
from errscan.analysis.plain import plain_words
from errscan.analysis.quantified import quantified
from errscan.analysis.reads import Source, attribute_reads, class_reads, held_codes, made_reads, plugin_reads, read_knobs
from errscan.analysis.platforms import PlatformRules
from errscan.analysis.related import related_errors
from errscan.analysis.emptied import EmptyAttributes
from errscan.analysis.settled import SettledAttributes, ruled_out
from errscan.analysis.solutions import solutions
from errscan.analysis.solver import satisfiable
from errscan.analysis.tables import table_plugins
from errscan.analysis.userpaths import class_plugins, request_fields, route_plugins
from errscan.analysis.surfaces import SurfaceFinder, message_template
from errscan.extract.conditions import Condition, Term, conjuncts, make_term, negate, parse_expression, render
from errscan.extract.facts import ModuleFacts
from errscan.extract.sites import RawSite
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph, function_node
from errscan.model import Chain, ChainStep, Contribution, ErrorSite, Knob, Trigger
from errscan.profiles import Profile


@dataclass(frozen=True)
class AnalysisStats:
    entries: int
    plugins: int
    with_chain: int


def analyze(
    sites: list[tuple[ErrorSite, RawSite, ModuleFacts]], graph: CallGraph, profile: Profile, map_chunks: ChunkMap = in_order,
) -> tuple[list[ErrorSite], AnalysisStats]:
    """Every site analysed, in the order given. The sites are split by raising function into chunks
    that `map_chunks` may run in other processes (forked after the shared structures are built);
    the result does not depend on how, or in which order, the chunks run."""
    analysis = _Analysis(sites, graph, profile)
    chunks = chunk_sites([_node(raw, module) for _, raw, module in sites], analysis.cost)
    analyzed: list[ErrorSite] = [error for error, _, _ in sites]
    for chunk, done in zip(chunks, map_chunks(analysis.chunk, chunks)):
        for position, error in zip(chunk, done):
            analyzed[position] = error
    related = related_errors(analyzed)
    analyzed = [msgspec.structs.replace(e, trigger=msgspec.structs.replace(e.trigger, related=related[e.id])) for e in analyzed]
    with_chain = sum(1 for e in analyzed if e.trigger.chains)
    parse_expression.cache_clear()  # its trees are only for this analysis, and not small
    return analyzed, AnalysisStats(len(analysis.entries), len(analysis.plugins), with_chain)


def _node(raw: RawSite, module: ModuleFacts) -> str:
    """The raising function's graph node."""
    return function_node(module.module, "" if raw.function == "<module>" else raw.function)


class _Analysis:
    """What every site's analysis reads, built once: forked workers share it as it is."""

    def __init__(self, sites: list[tuple[ErrorSite, RawSite, ModuleFacts]], graph: CallGraph, profile: Profile):
        add_calls_by_name(graph, profile)
        self.sites, self.graph, self.profile = sites, graph, profile
        self.plugins = find_plugins(graph, profile)
        others = table_plugins(graph, profile) + class_plugins(graph, profile) + route_plugins(graph, profile.routes)
        self.entries = find_entries(graph, profile, self.plugins + others)
        self.lookups = plugin_lookups(graph, profile)
        self.configured = Configured(graph, self.plugins, profile)
        catalog = KnobCatalog.build(graph, profile)
        self.explainer = Explainer(catalog, profile, graph)
        self.helpers = HelperSettings(graph, catalog, profile)
        self.along = Along(graph, self.helpers, self.plugins, profile.plugin_setting, self.lookups, self._raises())
        self.reads = attribute_reads(graph)
        self.passed = Passed(graph, catalog, profile, self.reads)
        self.dispatch = Dispatch(graph)
        self.kept = Kept()  # what the searches of every raising function work out alike
        self.settled = SettledAttributes(graph)
        self.emptied = EmptyAttributes(graph)
        self.platforms = PlatformRules(graph, profile.platforms)
        self.finder = SurfaceFinder(graph, profile, [error for error, _, _ in sites])
        self.per_function: dict[str, tuple[Reach, dict[str, list[Source]]]] = {}  # many sites share a function
        self.tested = _tested_names(sites)
        self.named = unresolved_names(graph)
        self.plugin_count = len({p.name for p in self.plugins})

    def _raises(self) -> dict[str, list[tuple[Condition, int, str]]]:
        """Per function, the condition (helpers inlined), line and file of each raise and assert it makes
        itself: what a call of it that returned has passed (`returned.py`)."""
        found: dict[str, list[tuple[Condition, int, str]]] = {}
        for error, raw, module in self.sites:
            terms, contributions = self._local_terms(raw, module)
            if raw.kind in ("raise", "assert") and terms and not contributions and not raw.partial:
                found.setdefault(_node(raw, module), []).append((terms, raw.line, error.path))
        return found

    def _local_terms(self, raw: RawSite, module: ModuleFacts, keep_settings: bool = False) -> tuple[Condition, list[tuple[str, str, str]]]:
        """The site's own condition, its helpers inlined (but calls read off settings alone, with
        `keep_settings`: `HelperSettings.inlined`); an accumulate-then-raise's appends."""
        terms, contributions = _site_terms(raw, module)
        scope = "" if raw.function == "<module>" else raw.function
        return self.helpers.inlined(terms, module, scope, keep_settings), contributions

    def cost(self, node: str) -> int:
        """About how much searching the chains to `node` costs: one search, and one per caller."""
        return 1 + (self.graph.graph.in_degree(node) if node in self.graph.graph else 0)

    def chunk(self, positions: Sequence[int]) -> list[ErrorSite]:
        return [self.site(*self.sites[position]) for position in positions]

    def site(self, error: ErrorSite, raw: RawSite, module: ModuleFacts) -> ErrorSite:
        graph, profile, helpers = self.graph, self.profile, self.helpers
        node = _node(raw, module)
        if node not in self.per_function:
            searched = reach(graph, node, self.entries, self.lookups, self.tested[node], self.named.__getitem__, self.dispatch,
                             self.platforms, self.configured, self.kept)
            self.per_function[node] = (searched, class_reads(graph, node, self.reads))
        searched, settings = self.per_function[node]
        terms, contributions = self._local_terms(raw, module)
        local = render(terms, "deep")
        settings = completed(self.passed, node, settings, local or "")
        forms = (local, render(self._local_terms(raw, module, keep_settings=True)[0], "deep"))
        domains = enum_domains(graph, node)
        found = select(searched, lambda values: conditions_hold(local, values, f"line {raw.line}", domains),
                       lambda chain: self.along.contradicted(chain, forms, node))
        terms = parameters_read(self.passed, node, terms)  # a setting every caller passes in
        found = replace(found, chains=_stated(graph, found.chains, terms), infeasible=_stated(graph, found.infeasible, terms))
        settled = self.settled.of(node)
        trigger = _trigger(error, raw, module, terms, contributions, found, helpers, self.plugin_count, settings,
                           lambda code, earlier: ruled_out(code, earlier, settled, error.function) or self.emptied.ruled_out(code, earlier, node)
                           or members_ruled_out(code, earlier, domains))
        if error.kind != "log" and error.exception:
            exception = graph.qualify(module, "" if raw.function == "<module>" else raw.function, error.exception) or error.exception
            trigger = msgspec.structs.replace(trigger, http_status=http_status(graph, profile, exception, found))
        with_trigger = msgspec.structs.replace(error, trigger=trigger, surfaces_as=self.finder.find(error, node, found.chains))
        by_plugins = plugin_reads(graph, self.plugins, trigger.connectors, self.reads)
        explanation = self.explainer.explain(with_trigger, terms, contributions, found, held_codes(settings, helpers), module,
                                             held_codes(by_plugins, helpers), held_codes(made_reads(graph, by_plugins, self.reads), helpers))
        if explanation.kind == "usage" and explanation.fixes and profile.plugin_module_setting and \
                explanation.fixes[0].setting.endswith(profile.plugin_module_setting):
            # raised for a class of the user's own module: the built-in plugins on the way are not it
            with_trigger = msgspec.structs.replace(with_trigger, trigger=msgspec.structs.replace(trigger, connectors=()))
        return msgspec.structs.replace(with_trigger, explanation=explanation)


def _tested_names(sites: list[tuple[ErrorSite, RawSite, ModuleFacts]]) -> dict[str, frozenset[str]]:
    """Per raising function, the names its sites' conditions read (its parameters among them)."""
    names: dict[str, set[str]] = {}
    for _, raw, module in sites:
        names.setdefault(_node(raw, module), set()).update(name for term in raw.condition for name in term.names)
    return {node: frozenset(found) for node, found in names.items()}


def _reachability(local: bool | None, found: Reach) -> tuple[bool | None, str | None]:
    """Whether the error can fire at all, and why not: its own condition cannot hold, or every
    chain from every entry point that reaches its function is infeasible."""
    if local is False:
        return False, "what must hold at the raise contradicts itself or the checks before it on the same path"
    if found.entries:
        return True, None
    if found.infeasible and found.closed:
        count = len({chain.entry.node for chain in found.infeasible})
        first = found.infeasible[0]
        points = f"{count} entry points that reach" if count > 1 else "1 entry point that reaches"
        return False, f"every chain from the {points} its function is infeasible: from `{first.entry.node}`, {first.why}"
    return None, None


def http_status(graph: CallGraph, profile: Profile, exception: str, found: Reach) -> int | None:
    """The status the profile's routes answer with when one of them reaches the error: the first
    of `statuses` the exception's class is (along all its bases), else the default."""
    routes = profile.routes
    if routes is None or not any(p.kind == "route" for entry in found.entries for p in entry.plugins):
        return None
    names = {c.rsplit(".", 1)[-1] for c in graph.ancestry(exception)}
    status = next((s for name, s in routes.statuses if name in names), routes.default_status)
    return status or None  # 0: the exception carries its own status


def _site_terms(raw: RawSite, module: ModuleFacts) -> tuple[Condition, list[tuple[str, str, str]]]:
    """The site's own condition, an accumulate-then-raise's appends, and an assert's failing test."""
    terms, contributions = _accumulated(raw, module)
    if raw.kind == "assert" and raw.assert_test and not terms:
        # An assert fires when its own test fails, on top of the path that reaches it. A condition
        # the walk read ends with that test already, its locals stated as they are there (a local
        # bound anew from itself by its value): never empty, so only an unread one needs it.
        try:
            terms = tuple(make_term(c, {}) for c in conjuncts(negate(ast.parse(raw.assert_test, mode="eval").body)))
        except SyntaxError:
            pass  # the test is kept as written in `assert_test`
    return terms, contributions


def _trigger(
    error: ErrorSite, raw: RawSite, module: ModuleFacts, terms: Condition, contributions: list[tuple[str, str, str]],
    found: Reach, helpers: HelperSettings, plugin_count: int, settings: dict[str, list[Source]],
    never: Callable[[str | None, tuple[str, ...]], str | None],
) -> Trigger:
    """The site's trigger; `never` says why its own condition cannot hold given what the package
    settles of its attributes (set at construction, never filled), if it cannot."""
    catalog, profile = helpers.catalog, helpers.profile
    condition = render(terms)
    parts = _conjuncts(condition)
    # Guards of other errors raised earlier on the way belong to those errors: they decide
    # neither this error's knobs nor its solutions.
    own = tuple(t for t in terms if not t.other_error)
    own_parts = _conjuncts(render(own))
    deep_parts = _conjuncts(render(own, "deep"))
    chains = tuple(_chain(c, terms) for c in found.chains)
    own_deep = render(own, "deep")
    earlier = tuple(t.deep for t in terms if t.other_error and not t.pseudo)
    holds = satisfiable(own_deep, *earlier) if own_deep else True
    why = never(own_deep, earlier) if holds is not False else None
    reachable, unreachable = (False, why) if why else _reachability(holds, found)
    registered = {r.kind for r in profile.registries}
    reached = {(p.name, p.kind, p.setting) for entry in found.entries for p in entry.plugins}
    plugin_names = sorted({name for name, kind, _ in reached if kind in registered})
    # the user paths' picks: those of the entries the chains shown start from
    reached = {(p.name, p.kind, p.setting) for chain in found.chains for p in chain.entry.plugins}
    knobs: list[Knob] = [Knob("connector", name, "kv_connector") for name in plugin_names]
    knobs += [
        Knob("route", name) if kind == "route" else Knob("plugin", name, setting)
        for name, kind, setting in reached if kind not in registered and (kind == "route" or setting)
    ]
    scope = "" if raw.function == "<module>" else raw.function
    per_conjunct = [
        (c, knobs_in(deep, catalog, profile) + helpers.called_in(deep, module, scope) + read_knobs(deep, settings, helpers))
        for c, deep in zip(own_parts, _align(own_parts, deep_parts))
        if not (contributions and c == own_parts[-1])
    ]
    # Accumulate-then-raise: each guarded append is a way in, with its own settings and remedy.
    per_conjunct += [(condition, knobs_in(deep, catalog, profile)) for condition, deep, _ in contributions]
    for _, found_knobs in per_conjunct:
        knobs.extend(found_knobs)
    path_conditions = []
    for chain in found.chains:
        path = conjoin(_plugin_condition(chain.entry), chain.condition)
        path_knobs = [k for t in path if not t.other_error for k in knobs_in(t.deep, catalog, profile)]
        knobs.extend(path_knobs)
        if path:
            path_conditions.append((render(path), path_knobs))
    knobs.extend(request_fields(helpers.graph, profile, function_node(module.module, scope), render(own, "deep") or ""))
    message_flags = flags_in_message(error.message, catalog)
    knobs.extend(message_flags)
    return Trigger(
        condition=condition,
        conjuncts=tuple(parts),
        raw_condition=render(raw.condition, "raw"),
        plain=plain_words(condition) if condition else None,
        partial=bool(raw.partial),
        unknown=raw.partial,
        contributions=tuple(Contribution(c, text) for c, _, text in contributions),
        chains=chains,
        connectors=tuple(plugin_names),
        knobs=tuple(sorted(set(knobs), key=lambda k: (k.kind, k.name, k.detail))),
        solutions=solutions(per_conjunct, path_conditions, message_flags, plugin_names, plugin_count),
        satisfiable=holds,
        reachable=reachable,
        unreachable=unreachable,
        infeasible_chains=tuple(_chain(c, terms) for c in found.infeasible),
    )


def _accumulated(raw: RawSite, module: ModuleFacts) -> tuple[Condition, list[tuple[str, str, str]]]:
    """`if problems: raise ...`: the last term becomes the disjunction of the guarded appends."""
    terms = raw.condition
    if not terms:
        return terms, []
    name = terms[-1].raw
    scope = "" if raw.function == "<module>" else raw.function
    appends = [a for a in module.appends if a.scope == scope and a.target == name and a.line < raw.line]
    if not name.isidentifier() or not appends:
        return terms, []
    contributions = [(render(a.condition) or "True", render(a.condition, "deep") or "True", _template(a.argument)) for a in appends]
    code = " or ".join(f"({c})" if len(contributions) > 1 else c for c, _, _ in contributions)
    deep = " or ".join(f"({d})" if len(contributions) > 1 else d for _, d, _ in contributions)
    return terms[:-1] + (Term(code, name, deep),), contributions


def _template(source: str) -> str:
    return message_template(source)


@lru_cache(maxsize=1 << 16)
def _conjuncts(condition: str | None) -> tuple[str, ...]:
    node = parse_expression(condition) if condition else None
    if node is None:
        return (condition,) if condition else ()
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return tuple(fast_unparse(v) for v in node.values)
    return (condition,)


def _align(conjuncts: list[str], deep: list[str]) -> list[str]:
    """The deep form of each conjunct (the two renderings split alike unless substitution merged)."""
    return deep if len(deep) == len(conjuncts) else conjuncts


def _plugin_condition(entry: Entry) -> Condition:
    conditions = {p.condition for p in entry.plugins}
    return conditions.pop() if len(conditions) == 1 else ()


def _stated(graph: CallGraph, chains: tuple[FoundChain, ...], site_terms: Condition) -> tuple[FoundChain, ...]:
    """The chains with their conditions under loops said in the looping function's names."""
    return tuple(replace(c, stated=quantified(graph, c.nodes, c.sites, site_terms)) for c in chains)


def _chain(found: FoundChain, site_terms: Condition) -> Chain:
    path_condition = conjoin(_plugin_condition(found.entry), found.condition)
    site_terms = found.stated[1] if found.stated is not None else site_terms
    steps = tuple(
        ChainStep(caller, callee, site.path, site.line, render(site.condition))
        for caller, callee, site in zip(found.nodes, found.nodes[1:], found.sites)
    )
    return Chain(
        entry_kind=found.entry.kind,
        path=found.nodes,
        steps=steps,
        condition=render(path_condition),
        trigger=render(conjoin(path_condition, site_terms)),
        satisfiable=found.satisfiable,
        infeasible=found.why or None,
    )

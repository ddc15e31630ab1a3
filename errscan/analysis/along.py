"""What the calls of a chain have checked, read where the error is raised.

Each step's condition is a check the program made on the way; when the callee is passed the values
it tested (`connector_cls(config, ...)` after `if hma and not cls.supports_hma_config(config.kv)`),
the same check holds of the callee's parameters (`vllm_config`). So each step's condition is
carried along the chain, rewritten into the next function's parameters where it reads only what
is passed on (a local passed is read as the conditions write it, by its value, and a name both
functions import alike, such as an outside class an `isinstance` tests, means the same in either;
a part that reads anything else is dropped: what is left says less, never more),
and read with the site's own condition: a chain whose carried checks contradict it cannot end in
the error (`contradicted`). Names of the package are written qualified, so that one class read
from two modules is one term. A call of a helper of the package with arguments is replaced by what
it returns (`HelperSettings.applied`), its arguments substituted; and a class looked up in the
plugin registry is the configured plugin's: the lookup's argument holds its name in the profile's
plugin setting (`config.kv_connector == 'MultiConnector'` where the factory builds MultiConnector).
A plugin's constructor reached as an entry point runs only through the registry's lookups: the
checks of those calls come first.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import TYPE_CHECKING

from errscan.analysis.bindings import _implicit, _short
from errscan.analysis.helpers import _BUILTINS
from errscan.analysis.members import distinct_members
from errscan.analysis.returned import Returned
from errscan.analysis.search import FoundChain, call_place, own_condition
from errscan.analysis.solver import satisfiable
from errscan.extract.astutil import UNKNOWN_ARGUMENT, walk
from errscan.extract.conditions import free_names, parse_expression
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph, CallSite

if TYPE_CHECKING:
    from errscan.analysis.entries import Plugin
    from errscan.analysis.helpers import HelperSettings
    from errscan.extract.conditions import Condition

Carried = tuple[tuple[str, str], ...]  # (a check, in the current function's parameters; where it was made)


class Along:
    def __init__(self, graph: CallGraph, helpers: HelperSettings, plugins: list[Plugin], setting: str,
                 lookups: frozenset[tuple[str, str]], raises: dict[str, list[tuple[Condition, int, str]]] | None = None):
        self.graph, self.helpers, self.plugins, self.setting, self.lookups = graph, helpers, plugins, setting, lookups
        self.returned = Returned(graph, raises or {}, self.canonical)  # the checks of calls whose values a step uses
        self._steps: dict[tuple, Carried] = {}  # chains of one function share their steps
        self._canonical: dict[tuple[str, str], str | None] = {}  # and sites of one function their conditions
        self._own: dict[tuple[str, str], str | None] = {}  # a call's condition, helpers applied, per caller
        self._facts: dict[tuple[int, str, str], tuple] = {}  # see `_step_facts`
        self._moves: dict[tuple, tuple[str, ...]] = {}  # see `_moved`

    def contradicted(self, chain: FoundChain, site_codes: tuple[str | None, ...], target: str) -> str | None:
        """Why the checks carried along `chain` contradict the site's condition (in `target`), in the
        first of its forms `site_codes` that they contradict: its helpers inlined, then with the
        calls read off settings alone kept as calls, which the checks carried also make (the caller
        asserts `layout_is_dim_first()` before the callee asserts it again); None when they do not
        (or nothing is proved)."""
        for site_code in dict.fromkeys(site_codes):
            why = self._contradicted(chain, site_code, target)
            if why:
                return why
        return None

    def _contradicted(self, chain: FoundChain, site_code: str | None, target: str) -> str | None:
        if not site_code:
            return None
        lookups = self._lookups_into(chain.nodes[0])
        if not chain.sites and not lookups:
            return None
        site = self.canonical(site_code, target)
        if site is None or satisfiable(site) is False:
            return None
        # The chain's own checks first: a contradiction they make needs nothing said of how the
        # entry point's class is built (other plugins may build it too, past the registry's checks).
        own = self._contradiction((), chain, site)
        if own is not None or not lookups:
            return own and f"the raise is never reached on this way: what it needs contradicts the check made on the way: {own}"
        prefixes = [self._carried((), s, c, chain.nodes[0]) for c, s in lookups]
        reasons = []
        for prefix in prefixes:
            reason = self._contradiction(prefix, chain, site)
            if reason is None:
                return None
            reasons.append(reason)
        said = "; ".join(dict.fromkeys(reasons))
        places = ", ".join(dict.fromkeys(call_place(s, chain.nodes[0]) for _, s in lookups))
        built = f"`{chain.nodes[0].rsplit('.', 2)[-2]}` is built only by the registry lookup of the configured class ({places}); "
        return f"{built}the raise is never reached on this way: what it needs contradicts the check made on the way: {said}"

    def _contradiction(self, prefix: Carried, chain: FoundChain, site: str) -> str | None:
        """Where a check carried along `chain` (after `prefix`) contradicts the site's condition."""
        carried = prefix
        for caller, callee, step in zip(chain.nodes, chain.nodes[1:], chain.sites):
            carried = self._carried(carried, step, caller, callee)
        carried = _touching(site, carried)
        facts = distinct_members(self.graph, (site, *(code for code, _ in carried)))
        if not carried or satisfiable(site, *(code for code, _ in carried), *facts) is not False:
            return None
        return next((where for code, where in carried if satisfiable(site, code, *facts) is False), carried[-1][1])

    def _lookups_into(self, node: str) -> list[tuple[str, CallSite]]:
        """The registry lookups that construct `node`'s class, when `node` is a plugin's constructor."""
        if not node.endswith(".__init__"):
            return []
        return [(caller, site) for caller in sorted(self.graph.graph.pred.get(node, ())) if (caller, node) in self.lookups
                for site in self.graph.graph[caller][node]["sites"]]

    def _carried(self, carried: Carried, site: CallSite, caller: str, callee: str) -> Carried:
        """The checks known in `callee` once `caller` calls it at `site` (none where either is no
        function: module-level code)."""
        if caller not in self.graph.functions or callee not in self.graph.functions:
            return ()
        key = (carried, id(site), caller, callee)  # (a site lives as long as the graph: `_step_facts`)
        if key not in self._steps:
            self._steps[key] = self._step(carried, site, caller, callee)
        return self._steps[key]

    def _step(self, carried: Carried, site: CallSite, caller: str, callee: str) -> Carried:
        where, lookup, qualified, returned, mapping = self._step_facts(site, caller, callee)
        checks = list(carried)
        if lookup:
            checks.append((lookup, where))
        if qualified:
            checks.append((_settled(qualified, tuple(c for c, _ in checks)), where))
        checks += returned
        moved = [(part, made) for check, made in checks for part in self._moved(check, caller, callee, mapping)]
        return tuple(dict.fromkeys(moved))

    def _step_facts(self, site: CallSite, caller: str, callee: str) -> tuple[str, str | None, str | None, list, tuple[tuple[str, str], ...]]:
        """What a step adds whatever was carried to it: where it is made, its lookup's fact, its own
        condition applied, the checks of the calls it used that returned, and what it passes as
        which parameter. Kept per site (they live as long as the graph): chains share steps after
        different prefixes."""
        key = (id(site), caller, callee)
        if key not in self._facts:
            code = own_condition(site)
            where = f"{call_place(site, callee)}, made only if `{_short(code, 240)}`" if code else call_place(site, callee)
            qualified = self._applied(code, caller) if code else None
            mapping = tuple(self._passed(site, caller, callee).items())
            self._facts[key] = (where, self._lookup_fact(site, caller, callee), qualified, self.returned.after(site, caller), mapping)
        return self._facts[key]

    def _moved(self, check: str, caller: str, callee: str, mapping: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
        """The parts of `check` (in `caller`) that say something of `callee`, in its parameters
        (`mapping`: what is passed as which): kept, as the same checks cross the same steps."""
        key = (check, caller, callee, mapping)
        if key not in self._moves:
            known = self._params(callee) | self.graph.index.top_packages | _BUILTINS
            self._moves[key] = tuple(part for part in _conjuncts(_renamed(check, mapping))
                                     if free_names(part) - known <= self._imported(caller, callee, free_names(part) - known))
        return self._moves[key]

    def _applied(self, code: str, caller: str) -> str | None:
        """`code` (of `caller`) with its helpers' results in (`HelperSettings.applied`), qualified:
        kept, as every chain through the caller asks again."""
        key = (code, caller)
        if key not in self._own:
            applied = self.helpers.applied(code, *self._home(caller), self.canonical)
            self._own[key] = self.canonical(applied, caller) if applied else None
        return self._own[key]

    def canonical(self, code: str, function: str) -> str | None:
        """`code` (of `function`) with each name of the package written qualified."""
        key = (code, function)
        if key not in self._canonical:
            self._canonical[key] = self._qualified(code, function)
        return self._canonical[key]

    def _qualified(self, code: str, function: str) -> str | None:
        tree = _fresh(code)
        if tree is None or function not in self.graph.functions:
            return None
        module, scope = self._home(function)
        params = self._params(function)
        graph = self.graph

        class _Qualify(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.expr:
                if node.id in params or not isinstance(node.ctx, ast.Load):
                    return node
                qualified = graph.qualify(module, scope, node.id)
                known = qualified in graph.index.classes or qualified in graph.functions or qualified in graph.index.modules
                if known and qualified != node.id:
                    return ast.parse(qualified, mode="eval").body
                return node

        return fast_unparse(_Qualify().visit(tree))

    def _lookup_fact(self, site: CallSite, caller: str, callee: str) -> str | None:
        """`arg.<setting> in (names)` for a call of a class looked up in the registry by `arg`."""
        call = site.call
        if (caller, callee) not in self.lookups or call is None or not self.setting or len(call.aliases) != 1:
            return None
        made = call.aliases[0][0]
        if not made or not made.endswith("()"):
            return None
        lookup = next((c for c in self._home(caller)[0].calls if c.caller == call.caller and c.callee == made[:-2]
                       and c.kind == "call" and c.arguments), None)
        method = callee.rsplit(".", 1)[1]
        names = sorted({p.name for p in self.plugins if self.graph.lookup_method(p.klass, method) == callee})
        if lookup is None or not names or lookup.arguments[0].startswith("*"):
            return None
        argument = _deep_name(lookup.arguments[0], call.condition)
        return f"{argument}.{self.setting} in ({', '.join(repr(n) for n in names)},)"

    def _passed(self, site: CallSite, caller: str, callee: str) -> dict[str, str]:
        """Code of the caller (as its conditions' deep form writes it) -> the callee's parameter it is passed as."""
        call, entry = site.call, self.graph.functions.get(callee)
        if call is None or entry is None or call.kind != "call":
            return {}
        fact = entry[0]
        params = [name for name, _ in fact.params]
        skip = _implicit(fact.decorators, fact.class_qualname, site)
        found: dict[str, str] = {}
        positional = call.arguments[: call.arguments.index("*")] if "*" in call.arguments else call.arguments  # `*args`: the rest unknown
        built = dict(call.built)  # `config` passed, written `make_config(...)`: read by its name
        for key, name, text in [*((str(i), n, t) for i, (n, t) in enumerate(zip(params[skip:fact.positional], positional))),
                                *((k, k, t) for k, t in call.keywords)]:
            text = built.get(key, text)
            if name in params and name not in fact.rebound and text not in ("*", "**", UNKNOWN_ARGUMENT) and parse_expression(text) is not None:
                deep = _deep_name(text, call.condition)
                found.setdefault(self.canonical(deep, caller) or deep, name)  # as the conditions carried write it
        return found

    def _imported(self, caller: str, callee: str, names: frozenset[str]) -> frozenset[str]:
        """The `names` both functions import as the same thing (`isinstance(config, CacheConfig)`
        of a class from outside the package is the same test in either)."""
        if not names:
            return names
        (caller_fact, caller_module), (callee_fact, callee_module) = self.graph.functions[caller], self.graph.functions[callee]
        seen, sees = self.graph.visible(caller_module, caller_fact.scope), self.graph.visible(callee_module, callee_fact.scope)
        return frozenset(name for name in names if name in seen and seen[name] == sees.get(name))

    def _params(self, function: str) -> frozenset[str]:
        entry = self.graph.functions.get(function)
        return frozenset(name for name, _ in entry[0].params) if entry else frozenset()

    def _home(self, function: str):
        fact, module = self.graph.functions[function]
        return module, fact.scope


def _deep_name(text: str, condition) -> str:
    """A local `text` as the condition's deep form writes it (`kv` -> `config.kv` where `kv =
    config.kv`), read off a term that names it; else `text`."""
    for term in condition:
        raw, deep = parse_expression(term.raw), parse_expression(term.deep)
        if raw is None or deep is None:
            continue
        found = _aligned(raw, deep, text)
        if found:
            return found
    return text


def _aligned(raw: ast.AST, deep: ast.AST, name: str) -> str | None:
    """What the name `name` of `raw` stands for at the same place of `deep`."""
    if isinstance(raw, ast.Name) and raw.id == name:
        return fast_unparse(deep) if isinstance(deep, ast.expr) else None
    if type(raw) is not type(deep):
        return None
    for (_, a), (_, b) in zip(ast.iter_fields(raw), ast.iter_fields(deep)):
        pairs = zip(a, b) if isinstance(a, list) and isinstance(b, list) else [(a, b)]
        for x, y in pairs:
            if isinstance(x, ast.AST) and isinstance(y, ast.AST):
                found = _aligned(x, y, name)
                if found:
                    return found
    return None


@lru_cache(maxsize=1 << 14)
def _renamed(code: str, pairs: tuple[tuple[str, str], ...]) -> str:
    """`code` with each part written as a key of `pairs` replaced by the name it maps to."""
    tree = _fresh(code)
    if tree is None or not pairs:
        return code
    mapping = dict(pairs)

    class _Rename(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if isinstance(node, ast.expr) and not isinstance(node, ast.Constant):
                name = mapping.get(fast_unparse(node))
                if name is not None:
                    return ast.Name(name, ast.Load())
            return self.generic_visit(node)

    return fast_unparse(_Rename().visit(tree))


@lru_cache(maxsize=1 << 14)
def _conjuncts(code: str) -> tuple[str, ...]:
    tree = parse_expression(code)
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        return tuple(part for value in tree.values for part in _conjuncts(fast_unparse(value)))
    return (code,)


@lru_cache(maxsize=1 << 12)
def _settled(code: str, known: tuple[str, ...]) -> str:
    """`code` with each `a if test else b` whose test the `known` checks decide replaced by its
    branch: a helper's result on this chain, one expression of what it was given."""
    tree = _fresh(code)
    if tree is None or not any(isinstance(n, ast.IfExp) for n in walk(tree)):
        return code

    class _Settle(ast.NodeTransformer):
        def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
            self.generic_visit(node)
            test = fast_unparse(node.test)
            if satisfiable(*known, f"not ({test})") is False:
                return node.body
            if satisfiable(*known, test) is False:
                return node.orelse
            return node

    return fast_unparse(_Settle().visit(tree))


def _fresh(code: str) -> ast.expr | None:
    """A tree of `code` of its own, to be rewritten (`parse_expression`'s are shared)."""
    try:
        return ast.parse(code, mode="eval").body
    except SyntaxError:
        return None


def _touching(site: str, carried: Carried) -> Carried:
    """The checks that share a value with the site's condition, or with a check that does. Leaving
    the others out only proves less (they can contradict the site only together with each other,
    which the search's own step checks mostly rule out), and spares the solver most of its work."""
    reads = [(_values(code), (code, where)) for code, where in carried]
    seen = _values(site)
    kept: set[int] = set()
    grew = True
    while grew:
        grew = False
        for position, (values, _) in enumerate(reads):
            if position not in kept and values & seen:
                kept.add(position)
                seen |= values
                grew = True
    return tuple(check for position, (_, check) in enumerate(reads) if position in kept)


@lru_cache(maxsize=1 << 14)
def _values(code: str) -> frozenset[str]:
    """The values `code` reads, each as its whole dotted path (`cfg.a.b`, not `cfg`)."""
    tree = parse_expression(code)
    if tree is None:
        return frozenset()
    inner = {id(n.value) for n in walk(tree) if isinstance(n, ast.Attribute)}
    return frozenset(fast_unparse(n) for n in walk(tree) if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner)

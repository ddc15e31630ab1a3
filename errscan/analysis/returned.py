"""What a call that returned tells: the checks of the called function that test only what it is given passed.

A function whose raise (or failing assert) fires whenever its condition C holds, C reading only its
parameters (`self` among them) and nothing that may change from one call to the next (no call but of a
function of the package or a pure builtin), in no loop and no `try` of its own, returns only when C was
false. So where a chain's step is made under a term that uses the value of such a call `recv.f(a)` (the
call was made and returned), `not C` with `self := recv` and each parameter := its argument holds there;
likewise for the checks of what `f` calls first, under no condition. `along.py` carries these facts as it
carries the step's own checks: a later raise of the same check on the same values cannot fire
(`handshake_target_ranks(r)` returned, so `tp_ratio(r)`'s assert passed, and the same assert later fails
no more). An attribute the caller assigns between the call and the step leaves a fact on it out. A field
of an object the caller holds, read on the callee's `self`, is written as the caller's attribute it is sure
to equal (`built.py`: `self.transfer_topo.tp_size` as `self.tp_size`), so the fact reaches a later callee
passed that attribute.
"""

from __future__ import annotations

import ast
import copy
from typing import Callable

from errscan.analysis.bindings import _implicit, substitute
from errscan.analysis.built import BuiltFields
from errscan.analysis.helpers import _BUILTINS
from errscan.extract.astutil import UNKNOWN_ARGUMENT, walk
from errscan.extract.conditions import Condition, Term, free_names, parse_expression, render
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph, CallSite

Fact = tuple[str, str]  # (`not C` in the caller's terms, where the check is)

MAX_DEPTH = 3  # calls followed into what a returned call ran first
_PURE = frozenset({"len", "isinstance", "issubclass", "hasattr", "int", "str", "float", "bool", "abs", "min", "max", "tuple"})
_UNEVALUATED = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


class Returned:
    def __init__(self, graph: CallGraph, raises: dict[str, list[tuple[Condition, int, str]]],
                 canonical: Callable[[str, str], str | None]):
        """`raises`: per function node, each raise's condition (helpers inlined), line and path."""
        self.graph, self.raises, self.canonical = graph, raises, canonical
        self.fields = BuiltFields(graph)  # what the fields of an object the caller holds equal
        self._checks: dict[tuple[str, int], tuple[Fact, ...]] = {}

    def after(self, site: CallSite, caller: str) -> list[Fact]:
        """The checks passed by the calls whose values the condition of `site` (in `caller`) uses."""
        terms = site.call.condition if site.call is not None else site.condition
        entry = self.graph.functions.get(caller)
        if entry is None:
            return []
        found: list[Fact] = []
        for position, term in enumerate(terms):
            if term.loop or term.pseudo or _rebound_later(term, terms[position + 1:]):
                continue
            tree = parse_expression(term.deep)
            for call in _evaluated_calls(tree) if tree is not None else ():
                found += self._of_call(call, caller, site.line)
        return list(dict.fromkeys(found + self._made_first(site, caller)))

    def _made_first(self, site: CallSite, caller: str) -> list[Fact]:
        """The checks passed by the calls `caller` makes under no condition, outside any `try`, before
        `site`: they returned, or `site` would not be reached. Only those on `self` and parameters the
        caller does not bind again: a local may hold another value by then."""
        fact, module = self.graph.functions[caller]
        params = {name for name, _ in fact.params} - set(fact.rebound)
        tried = [(t.line, t.end_line) for t in module.tries if t.scope == fact.scope]
        found = []
        for first, callee in self._first_calls(caller, tried):
            given = _given(self.graph, _as_call(first), first, callee) if first.line < site.line else None
            if given is not None:
                found += [(code, where) for code, where in self._moved(callee, given, caller, first, first.line, site.line)
                          if self._pure(code, params)]
        return found

    def _of_call(self, call: ast.Call, caller: str, before: int) -> list[Fact]:
        fact, module = self.graph.functions[caller]
        callee_text = fast_unparse(call.func)
        made = [(s, c) for c in self.graph.graph.successors(caller) for s in self.graph.graph[caller][c]["sites"]
                if s.call is not None and s.call.kind == "call" and s.call.callee == callee_text and s.line < before]
        if not made or len({c for _, c in made}) != 1:
            return []
        made.sort(key=lambda pair: pair[0].line)
        site, target = made[-1]  # the nearest such call
        given = _given(self.graph, call, site, target)
        return self._moved(target, given, caller, site, made[0][0].line, before) if given is not None else []

    def _moved(self, target: str, given: dict[str, str], caller: str, site: CallSite, since: int, before: int) -> list[Fact]:
        """`target`'s checks in `caller`'s terms, for its call at `site` given `given`; none on an
        attribute the caller assigns between line `since` and `before`."""
        fact, module = self.graph.functions[caller]
        stores = {f"{s.receiver}.{s.attribute}" for s in module.attribute_stores
                  if s.scope == fact.scope and since < s.line < before}
        short = site.path.rsplit("/", 1)[-1]
        found = []
        for check, where in self.checks(target):
            moved = substitute(check, given)
            moved, equal = self._fields_read(moved, caller) if moved is not None else (None, "")
            if moved is None or any(_reads(moved, stored) for stored in stores):
                continue
            found.append((self.canonical(moved, caller) or moved, f"{where}, run by the call at {short}:{site.line}{equal}"))
        return found

    def _fields_read(self, code: str, caller: str) -> tuple[str, str]:
        """`code` (in `caller`) with each field it reads of an object the caller holds (`self.topo.size`,
        the callee's `self.size` on the receiver `self.topo`) written as the caller's attribute it is
        sure to equal (`built.py`), and the reasons said."""
        shared = parse_expression(code) if "self." in code else None
        if shared is None:
            return code, ""
        tree = copy.deepcopy(shared)  # `parse_expression`'s trees are shared: this one is rewritten
        said: list[str] = []
        fields = self.fields

        class _Equal(ast.NodeTransformer):
            def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
                held = node.value
                if not (isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name) and held.value.id == "self"):
                    return self.generic_visit(node)
                equal = fields.equal(caller, held.attr, node.attr)
                if equal is None:
                    return node
                said.append(f"`self.{held.attr}.{node.attr}` being `{equal[0]}` (the object built from it at {equal[1]}; "
                            "neither is assigned again)")
                return ast.parse(equal[0], mode="eval").body

        written = fast_unparse(_Equal().visit(tree))
        return (written, ", " + ", ".join(dict.fromkeys(said))) if said else (code, "")

    def checks(self, function: str, depth: int = 0) -> tuple[Fact, ...]:
        """`not C` for each raise `function` is sure to reach when C holds, in its parameters."""
        if (function, depth) in self._checks:
            return self._checks[function, depth]
        entry = self.graph.functions.get(function)
        if entry is None or depth > MAX_DEPTH:
            return ()
        fact, module = entry
        params = {name for name, _ in fact.params} - set(fact.rebound)
        tried = [(t.line, t.end_line) for t in module.tries if t.scope == fact.scope]
        found = []
        for terms, line, path in self.raises.get(function, ()):
            if any(t.loop or t.pseudo for t in terms) or any(a <= line <= b for a, b in tried):
                continue
            code = self.canonical(render(terms, "deep") or "", function)
            if code and self._pure(code, params):
                found.append((f"not ({code})", f"the same check already passed at {path.rsplit('/', 1)[-1]}:{line}"))
        for site, callee in self._first_calls(function, tried):
            given = _given(self.graph, _as_call(site), site, callee)
            for check, where in self.checks(callee, depth + 1) if given is not None else ():
                moved = substitute(check, given)
                moved = moved and self.canonical(moved, function)
                if moved and self._pure(moved, params):
                    found.append((moved, where))
        # Kept per depth: what is found depends on how deep the calls may still be followed, and
        # on nothing else (a cut where a call comes back into a function under way would make it
        # depend on which function was asked first, and so the output on the order of the work).
        self._checks[function, depth] = tuple(dict.fromkeys(found))
        return self._checks[function, depth]

    def _first_calls(self, function: str, tried: list[tuple[int, int]]) -> list[tuple[CallSite, str]]:
        """The calls `function` makes under no condition, outside any `try`, each resolved to one function."""
        graph, found = self.graph, []
        by_line: dict[int, set[str]] = {}
        for callee in graph.graph.successors(function) if function in graph.graph else ():
            for site in graph.graph[function][callee]["sites"]:
                by_line.setdefault(site.line, set()).add(callee)
                if site.call is not None and site.call.kind == "call" and not site.call.condition and \
                        not any(a <= site.line <= b for a, b in tried) and _as_call(site) is not None:
                    found.append((site, callee))
        return [(site, callee) for site, callee in found if len(by_line[site.line]) == 1]

    def _pure(self, code: str, params: set[str]) -> bool:
        """Whether `code` reads only `params` and calls only functions of the package or pure builtins."""
        tree = parse_expression(code)
        if tree is None or not free_names(code) <= params | self.graph.index.top_packages | _BUILTINS:
            return False
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = fast_unparse(node.func)
                if name not in _PURE and name not in self.graph.functions:
                    return False
            elif isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await)):
                return False
        return True


def _given(graph: CallGraph, call: ast.Call | None, site: CallSite, callee: str) -> dict[str, str] | None:
    """The callee's parameters -> what `call` passes them (`self` -> the receiver); None when unknown."""
    entry = graph.functions.get(callee)
    if entry is None or call is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    fact = entry[0]
    params = [name for name, _ in fact.params]
    skip = _implicit(fact.decorators, fact.class_qualname, site)
    given = {name: fast_unparse(arg) for name, arg in zip(params[skip:fact.positional], call.args)}
    given.update((k.arg, fast_unparse(k.value)) for k in call.keywords if k.arg in params)
    given = {name: text for name, text in given.items() if text != UNKNOWN_ARGUMENT}  # left free: no fact on it
    if skip:
        if not isinstance(call.func, ast.Attribute) or site.resolution == "constructor":
            return None
        given[params[0]] = fast_unparse(call.func.value)
    return given


def _as_call(site: CallSite) -> ast.Call | None:
    """The call of `site` as a tree, from its recorded callee and arguments."""
    call = site.call
    if call is None or "*" in call.arguments or any(k in ("*", "**") for k, _ in call.keywords):
        return None
    keywords = ", ".join(f"{k}={v}" for k, v in call.keywords)
    tree = parse_expression(f"{call.callee}({', '.join([*call.arguments, *([keywords] if keywords else [])])})")
    return tree if isinstance(tree, ast.Call) else None


def _evaluated_calls(tree: ast.expr) -> list[ast.Call]:
    """The calls the whole of `tree` evaluates whenever it is evaluated (none under `and`/`or`,
    a conditional expression or a comprehension, which may skip them)."""
    found, frontier = [], [tree]
    while frontier:
        node = frontier.pop()
        if isinstance(node, _UNEVALUATED):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        frontier += ast.iter_child_nodes(node)
    return found


def _rebound_later(term: Term, later: Condition) -> bool:
    """Whether a loop after the term binds a name it reads: the term is then about an earlier value."""
    read = free_names(term.deep)
    for other in later:
        target = parse_expression(other.deep)
        if other.loop and isinstance(target, ast.Compare) and free_names(fast_unparse(target.left)) & read:
            return True
    return False


def _reads(code: str, stored: str) -> bool:
    """Whether `code` reads the attribute `stored` (`self.x`) or something within it."""
    tree = parse_expression(code)
    return tree is not None and any(fast_unparse(n) == stored for n in walk(tree) if isinstance(n, ast.Attribute))

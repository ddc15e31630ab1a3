"""A chain's condition under a loop: the callees' terms said in the looping function's names.

A chain's condition joins the conditions its calls are made under, each in its own function's
names, and a loop term quantifies all that follows it (`any(... for req_id in done)`), the callees'
terms and the raise's own included. There a callee's name would read as the looping function's, or
as nothing. So each callee's term after the first loop term is restated in the names of the
function that loops: a parameter by the argument its call passes (`self.unmap_request_id(req_id)`:
`request_id` is `req_id`), `self` by the object the method is called on (`self._writer`), a
caller's local passed on by what the caller's condition says it holds (`along._deep_name`). A
name not so restated (a callee's local, an argument that is no plain expression) stays the callee's
own, which the solver reads as some value, as it reads a local of a chain without a loop: while no
other function of the chain uses the name (`Taken`), it cannot be read as another's. A term reading
one that is taken is left out, as `along.py` leaves out a check it cannot carry: what is left says
less, never more.
"""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache
from typing import Sequence

from errscan.analysis.along import _deep_name
from errscan.analysis.bindings import _implicit, arguments, substitute
from errscan.analysis.helpers import _BUILTINS
from errscan.extract.astutil import UNKNOWN_ARGUMENT, walk
from errscan.extract.conditions import PSEUDO_CALLS, Condition, Term, free_names, parse_expression
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph, CallSite

_CONSTANT_NODES = (ast.Constant, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Tuple, ast.unaryop, ast.boolop, ast.cmpop, ast.Load)
Names = dict[str, str]  # a callee's name -> what it is in the looping function's names
Taken = dict[str, str]  # a name the stated terms read -> the function whose own it is ("": the looping function's)


def quantified(graph: CallGraph, nodes: Sequence[str], sites: Sequence[CallSite], last: Condition) -> tuple[Condition, Condition]:
    """The calls' conditions (`sites[i]` made in `nodes[i]`) and `last` (terms of `nodes[-1]`), each
    callee's term after the first loop term restated in the looping function's names."""
    said: list[list[Term]] = []
    names: Names | None = None  # None: the terms are as they are (no loop yet, or the looping function's)
    taken: Taken = {}
    for position, terms in enumerate([*(site.condition for site in sites), last]):
        node, kept, looping = nodes[position], [], False
        for term in terms:
            if names is None:
                kept.append(term)
                looping = looping or term.loop
                taken.update((name, "") for name in free_names(term.deep) | free_names(term.code))
                continue
            restated = _term(graph, node, term, names, taken)
            if restated is not None:
                kept.append(restated)
                for name in free_names(restated.deep) | free_names(restated.code):
                    taken.setdefault(name, node)
            if term.loop:
                _bind(names, _targets(term.code), restated is not None)
        said.append(kept)
        if position < len(sites) and (names is not None or looping):
            if names is None:
                taken.update((name, "") for name in _locals(graph, node))
            names = _passed_on(graph, sites[position], node, nodes[position + 1], names, taken)
            taken.update((name, "") for value in names.values() for name in free_names(value) if name not in taken)
    return tuple(t for kept in said[:-1] for t in kept), tuple(said[-1])


def _locals(graph: CallGraph, node: str) -> set[str]:
    """The parameters of the looping function: names of its own, whatever its terms read."""
    entry = graph.functions.get(node)
    return {name for name, _ in entry[0].params} if entry is not None else set()


def _always(code: str) -> bool:
    """Whether `code` reads no value and holds (`not False`, a default passed in): it says nothing."""
    tree = parse_expression(code)
    if tree is None or not all(isinstance(n, _CONSTANT_NODES) for n in ast.walk(tree)):
        return False
    try:
        with warnings.catch_warnings():  # `1 is not None`: Python warns of `is` with a literal
            warnings.simplefilter("ignore")
            return bool(eval(compile(ast.Expression(tree), "<term>", "eval"), {"__builtins__": {}}))
    except Exception:
        return False


def _bind(names: Names, targets: set[str], said: bool) -> None:
    """A loop of a callee binds its targets: a name passed in that reads one of them now reads the
    loop's value, which is not what was passed (it is no longer said); the targets are said as
    they are where the loop term is, else not at all."""
    for key in [k for k, v in names.items() if k in targets or _reads(v) & targets]:
        del names[key]
    if said:
        names.update({t: t for t in targets})


def _term(graph: CallGraph, node: str, term: Term, names: Names, taken: Taken) -> Term | None:
    """`term` of `node` in the looping function's names (said through the values of the locals it
    reads, its deep form, where it reads one of them as it stands), else with the names of `node`'s
    own that no other function of the chain uses; None when it reads one that another uses."""
    deep = _restated(graph, node, term.deep, names, term.loop) or _restated(graph, node, term.deep, names, term.loop, taken)
    code = _restated(graph, node, term.code, names, term.loop) or deep
    if code is None or _always(code):
        return None
    raw = _restated(graph, node, term.raw, names, term.loop, taken) or code
    deep = deep or code
    return Term(code, raw, deep, loop=term.loop, pseudo=term.pseudo, other_error=term.other_error)


def _passed_on(graph: CallGraph, site: CallSite, caller: str, callee: str, names: Names | None, taken: Taken) -> Names:
    """The callee's parameters `site` passes, in the looping function's names (`names`: the caller's;
    None when the caller is the looping function): the object a method is called on, the arguments,
    the constant defaults of the parameters a complete call leaves out."""
    entry = graph.functions.get(callee)
    if entry is None:
        return {}
    fact = entry[0]
    params = [name for name, _ in fact.params]
    if site.call is None:  # a property of `self` read into a local (`w = self.worker`): the getter's object
        receiver = site.receiver if site.resolution == "property" and site.receiver in ("self", "cls") else None
        said = receiver if names is None else names.get(receiver or "")
        return {params[0]: said} if params and receiver and said else {}
    skip = _implicit(fact.decorators, fact.class_qualname, site)
    given: dict[str, str] = {}
    if skip and params and site.resolution != "constructor":
        receiver = _receiver(site.call.callee, callee.rsplit(".", 1)[-1]) if site.resolution == "property" else \
            site.call.callee.rpartition(".")[0]
        caller_entry = graph.functions.get(caller)
        if receiver == "super()" and caller_entry is not None and caller_entry[0].params:
            receiver = caller_entry[0].params[0][0]
        if receiver:
            given[params[0]] = receiver
    passed = arguments(fact, site)
    if passed is not None:
        given.update(passed[0])
        if passed[1]:  # all the call gives: what it leaves out holds the default
            given.update({name: default for name, default in fact.defaults if name not in given})
    found: Names = {}
    for name, text in given.items():
        if name in fact.rebound or text in ("*", UNKNOWN_ARGUMENT) or text.endswith("(...)"):
            continue
        said = text if names is None else _restated(graph, caller, text, names) or \
            _restated(graph, caller, _deep_name(text, site.call.condition), names) or \
            _restated(graph, caller, text, names, taken=taken)
        if said is not None:
            found[name] = said
    return found


def _receiver(read: str, getter: str) -> str:
    """The object whose property `getter` the attribute read `read` reads: `self.channel` in
    `self.channel.worker.table`; "" when `getter` is none of its attributes."""
    parts = read.split(".")
    return ".".join(parts[: parts.index(getter, 1)]) if getter in parts[1:] else ""


def _restated(graph: CallGraph, node: str, code: str, names: Names, loop: bool = False, taken: Taken | None = None) -> str | None:
    """`code` (of `node`) with each of its names replaced as `names` says (a global name kept); None
    when it reads a name of `node` that `names` does not restate, also in a statement `raises(...)`
    quotes (`'return d[key]'`), unless `taken` is given and says no other function uses it. A loop
    term's target is its own."""
    tree, entry = parse_expression(code), graph.functions.get(node)
    if tree is None or entry is None:
        return None
    fact, module = entry
    params = {name for name, _ in fact.params}
    quoted = _quoted(code)  # a string is not rewritten: a name passed in must be the same
    head = ""
    if loop and isinstance(tree, ast.Compare):
        head, code = f"{fast_unparse(tree.left)} in ", fast_unparse(tree.comparators[0])

    def unsaid(name: str) -> bool:
        own = name not in names and (name in params or not (name in _BUILTINS or name in PSEUDO_CALLS or graph.qualify(module, fact.scope, name)))
        return own and (taken is None or taken.get(name, node) != node)

    read = free_names(code)
    if any(unsaid(n) for n in read | quoted) or any(names.get(n, n) != n for n in quoted):
        return None
    said = substitute(code, {k: v for k, v in names.items() if k in read})
    return None if said is None else head + (said if not head else _operand(said))


@lru_cache(maxsize=1 << 14)
def _quoted(code: str) -> frozenset[str]:
    """The names the statements a `raises(...)` term of `code` quotes read: kept, as every chain
    through a function restates its terms again."""
    tree = parse_expression(code)
    found: set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "raises":
            for argument in node.args[1:]:
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    try:
                        statement = ast.parse(argument.value)
                    except SyntaxError:
                        continue
                    found.update(n.id for n in walk(statement) if isinstance(n, ast.Name))
    return frozenset(found)


def _operand(code: str) -> str:
    """`code` as the right side of `in`: parenthesized where it binds less tightly."""
    tree = parse_expression(code)
    return f"({code})" if isinstance(tree, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr, ast.Compare, ast.UnaryOp)) else code


def _targets(code: str) -> set[str]:
    """The names a loop term (`<target> in <iterable>`) binds."""
    tree = parse_expression(code)
    if not isinstance(tree, ast.Compare):
        return set()
    return {n.id for n in walk(tree.left) if isinstance(n, ast.Name)}


def _reads(code: str) -> set[str]:
    return set(free_names(code))

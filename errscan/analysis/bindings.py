"""Arguments carried along a chain: the constants a call passes bind the callee's parameters.

At each step of a chain a parameter of the callee is bound to a constant when the call passes one
(by position or keyword), passes on a parameter of the caller that is bound itself, or leaves out
one whose default is a constant; a parameter passed an object the caller constructs (`C(...)`,
`extract/callsites.py` writes such an argument so) is bound as never None, only that (and so is,
into a core-call entry point from each of its callers, one the caller declares of a class of the
tree: `declared.py`);
a parameter whose default names a function (`merge_fn=merge_offsets`) and that the call passes
something else is bound as given, so a call through it does not reach that default (`search.py`);
a call with `*args` or `**kwargs` leaves what it does not write
unknown, and a parameter the callee assigns again is never bound. A member of an `Enum` class of the
tree (`KVConnectorRole.WORKER`) is bound as that member: another member of the same class, named
otherwise, is another value (an alias member, given the same value as another, is the exception this
does not see); a parameter annotated with an Enum class holds one of its members (`members.py`). A function handed to an executor
(`submit(f, a, b)`) or a thread (`Thread(target=f, args=(a,))`) gets what is handed with it; other
ways in (a callback called later, a property read, a call by name) bind nothing. A condition on
the way is read with those values (`conditions_hold`): one the solver proves false under them is
a step the chain cannot take.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from errscan.analysis.declared import declared
from errscan.analysis.members import Domain, is_enum, read_in
from errscan.analysis.solver import satisfiable, written_size
from errscan.extract.astutil import argument_text, walk
from errscan.extract.conditions import parse_expression
from errscan.extract.facts import FunctionFact
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph, CallSite


@dataclass(frozen=True)
class Bound:
    value: str  # a constant's source: "False", "1", "'x'"; for an object, the class that made it
    origin: str  # where it comes from: "passed at base_worker.py:916", "the default of `f`, ..."
    built: bool = False  # an object a constructor made (`IOEngine(...)`): only known not to be None
    member: bool = False  # a member of an Enum class: unequal to the class's other members
    given: bool = False  # passed in place of a default that names a function (`merge_fn=lambda ...`): not that function


Values = tuple[tuple[str, Bound], ...]  # parameter -> value, sorted: hashable, one per chain step

_WORD = re.compile(r"\w+")
_CONSTANT = re.compile(r"^(-?\d+|True|False|None|'.*'|\".*\")$", re.DOTALL)
_DISPLAY = re.compile(r"^\(.*\)$", re.DOTALL)  # `argument_text`'s tuple of items: `(a, 'b', ..., )`
_NAMED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\.[A-Z][A-Z0-9_]*$")  # `zmq.ROUTER`, `Role.WORKER`


def carried(graph: CallGraph, values: Values, site: CallSite, caller: str, callee: str, typed: bool = False) -> Values:
    """The callee's parameters bound by `site` in `caller`, the caller's own bound as `values` say
    (and, when `typed`, as their declared types say: `declared.py`; only what the known callers of
    an entry point pass it is so read, `chains.Called`)."""
    entry = graph.functions.get(callee)
    given = arguments(entry[0], site) if entry is not None else None
    if given is None:
        return ()
    fact = entry[0]
    written, complete = given
    bound = dict(values)
    where = f"{site.path.rsplit('/', 1)[-1]}:{site.line}"
    found: dict[str, Bound] = {}
    named = dict(fact.named_defaults)
    for name, text in written.items():
        if _CONSTANT.match(text) or _same_constant(graph, caller, callee, text):
            found[name] = Bound(text, f"passed at {where}", member=_enum_member(graph, caller, text))
        elif text in bound:
            found[name] = bound[text]
        elif typed and (known := declared(graph, caller, text, site.line)) is not None:
            found[name] = Bound(known[0], f"passed at {where} as {known[1]}", built=True)
        elif text.endswith("(...)") and (klass := _class(graph, caller, text[:-5])):
            found[name] = Bound(klass.rsplit(".", 1)[-1], f"passed at {where}", built=True)
        elif _DISPLAY.match(text):  # a collection written out: only its size is carried
            found[name] = Bound(f"({'..., ' * _items(text)})", f"passed at {where}")
        elif name in named and text != named[name]:
            found[name] = Bound(text, f"passed at {where}", given=True)
    if complete:
        short = callee.rsplit(".", 1)[-1]
        for name, default in fact.defaults:
            if name not in written:
                found[name] = Bound(default, f"the default of `{short}`, not passed at {where}")
    return tuple(sorted((k, v) for k, v in found.items() if k not in fact.rebound))


def arguments(fact: FunctionFact, site: CallSite) -> tuple[dict[str, str], bool] | None:
    """The parameters of `fact` that `site` writes, each to its argument as `argument_text` wrote it,
    and whether that is all the call gives (no `*args` or `**kwargs`); None when unknown."""
    passed = _passed(site)
    if passed is None:
        return None
    positional, keywords, complete = passed
    params = [name for name, _ in fact.params]
    skip = _implicit(fact.decorators, fact.class_qualname, site)
    written: dict[str, str] = {}
    for name, text in zip(params[skip : fact.positional], positional):
        if text == "*":
            complete = False
            break
        written[name] = text
    for key, text in keywords:
        if key == "**":
            complete = False
        elif key in params[skip:]:
            written[key] = text
    return written, complete


def _same_constant(graph: CallGraph, caller: str, callee: str, text: str) -> bool:
    """Whether `text` is a named constant of a module or class (`zmq.ROUTER`, `Role.WORKER`) that
    the callee reads under the same name: what it compares with `zmq.ROUTER` is then the value
    passed. Two different names are never taken for different values (the solver may make them
    equal); a name the callee's module reads as something else is not bound."""
    if not _NAMED.match(text):
        return False
    head = text.partition(".")[0]
    entries = [graph.functions.get(caller), graph.functions.get(callee)]
    if any(e is None for e in entries) or head in dict(entries[0][0].params) or head in ("self", "cls"):
        return False
    caller_reads, callee_reads = (graph.qualify(module, fact.scope, text) for fact, module in entries)
    return caller_reads is not None and caller_reads == callee_reads


def _enum_member(graph: CallGraph, caller: str, text: str) -> bool:
    """Whether `text` (`KVConnectorRole.WORKER`) is a member of an Enum class of the tree."""
    entry = graph.functions.get(caller)
    klass = graph.qualify(entry[1], entry[0].scope, text.rpartition(".")[0]) if entry is not None and _NAMED.match(text) else None
    return klass is not None and klass in graph.index.classes and is_enum(graph, klass)


def _class(graph: CallGraph, caller: str, written: str) -> str | None:
    """The class that `written` names in `caller`: one of the tree, or a name from outside it
    written as classes are (`IOEngine`; not `make_engine`, nor a constant's `MAX`)."""
    entry = graph.functions.get(caller)
    if entry is None:
        return None
    klass = graph.qualify(entry[1], entry[0].scope, written) or written
    if klass in graph.index.classes:
        return klass
    last = klass.rsplit(".", 1)[-1]
    return klass if klass not in graph.functions and last[:1].isupper() and not last.isupper() else None


def _passed(site: CallSite) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], bool] | None:
    """(positional, keyword arguments, whether that is all) the callee gets; None when unknown."""
    call = site.call
    if call is None:
        return None
    if call.kind == "call":
        return None if site.resolution in ("thread", "process") else (call.arguments, call.keywords, True)
    if call.kind != "reference" or not call.passed_to:
        return None
    key = call.passed_to.rpartition(":")[2]
    if site.resolution == "executor" and key.isdigit():  # `submit(f, *args, **kwargs)`
        return call.arguments[int(key) + 1 :], call.keywords, True
    if site.resolution in ("thread", "process") and key in ("target", "function"):  # `Thread(target=f, args=(...))`
        handed = dict(call.keywords)
        if "kwargs" in handed or "**" in handed:
            return None
        elements = _elements(handed.get("args", "()"))
        return None if elements is None else (elements, (), True)
    return None


def _elements(text: str) -> tuple[str, ...] | None:
    """The items of a tuple `argument_text` wrote, each as it writes one."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    return tuple(argument_text(e) for e in node.elts)


def _implicit(decorators: tuple[str, ...], klass: str | None, site: CallSite) -> int:
    """How many leading parameters the call fills itself: `self` or `cls` of a method, unless the
    method is static or called on its class with the instance written out (`Base.f(self, x)`)."""
    if klass is None or "staticmethod" in decorators:
        return 0
    if site.receiver == "class" and site.resolution != "constructor" and "classmethod" not in decorators:
        return 0
    return 1


@lru_cache(maxsize=1 << 16)
def conditions_hold(code: str | None, values: Values, where: str, domains: tuple[Domain, ...] = ()) -> tuple[bool | None, str]:
    """Whether `code` (the condition of `where`, in the function whose parameters `values` binds
    and `domains` holds to an Enum's members) can hold on this chain: True, False or None
    (unknown); and, when False, why. Kept: the forward searches of one function ask again for
    each entry point."""
    if not code:
        return True, ""
    words = _words(code)
    holds, why = _verdict(code, tuple((name, value) for name, value in values if name in words and not value.given), domains)
    return holds, f"{where}{why}" if why else ""


@lru_cache(maxsize=1 << 16)
def _verdict(code: str, bound_values: Values, domains: tuple[Domain, ...]) -> tuple[bool | None, str]:
    """`conditions_hold` given only the values `code` reads, its reason said after the place: kept
    apart, as many places and chains ask the same of the same condition and values."""
    plain = satisfiable(code)
    if plain is False:
        return False, f" is never reached: `{_short(code)}` contradicts itself"
    bound = dict(bound_values)
    # a value only known to be an object (`built`) is still one of the Enum's members
    members = tuple(d for d in read_in(code, domains) if d.parameter not in bound or bound[d.parameter].built)
    facts = tuple(d.code for d in members)
    if facts and satisfiable(code, *facts) is False:
        return False, f" is never reached: `{_short(code)}` cannot hold, as {'; and '.join(d.why for d in members)}"
    if not bound:
        return plain, ""
    result = _holds(code, bound, facts)
    if result is not False:
        return result, ""
    alone = [name for name in bound if _holds(code, {name: bound[name]}, facts) is False]
    said = "; ".join(_said(name, bound[name]) for name in alone or bound)
    if facts and _holds(code, bound) is not False:
        said += "; and " + "; and ".join(d.why for d in members)
    return False, f" is never reached on this way: `{_short(code)}` cannot hold, as {said}"


@lru_cache(maxsize=1 << 14)
def _words(code: str) -> frozenset[str]:
    """The words of `code`: a parameter's name is read in it when it is one of them."""
    return frozenset(_WORD.findall(code))


def _items(display: str) -> int:
    """How many items `argument_text` wrote in a tuple of items."""
    size = written_size(parse_expression(display))
    return 1 if size is None else size


def _said(name: str, bound: Bound) -> str:
    if _DISPLAY.match(bound.value):
        size = _items(bound.value)
        return f"`{name}` is a collection of {size} item{'s' if size != 1 else ''} ({bound.origin})"
    if bound.built:
        return f"`{name}` is a `{bound.value}` object, never None ({bound.origin})"
    return f"`{name}` is `{bound.value}` ({bound.origin})"


def _holds(code: str, bound: dict[str, Bound], facts: tuple[str, ...] = ()) -> bool | None:
    """Whether `code` can hold with the constants bound substituted and the objects not None
    (and `facts`, about what is not bound, holding)."""
    substituted = substitute(code, {name: b.value for name, b in bound.items() if not b.built})
    members = tuple(sorted(b.value for b in bound.values() if b.member))
    if substituted is not None and members:
        substituted = _members_compared(substituted, members)
    objects = tuple(f"{name} is not None" for name, b in bound.items() if b.built)
    return satisfiable(substituted, *objects, *facts) if substituted is not None else None


@lru_cache(maxsize=1 << 12)
def _members_compared(code: str, members: tuple[str, ...]) -> str:
    """`code` with each `==`/`!=` (or `is`) of a bound Enum member and another member of its class
    decided: `KVConnectorRole.WORKER == KVConnectorRole.SCHEDULER` is `False`."""
    tree = ast.parse(code, mode="eval")

    class _Decide(ast.NodeTransformer):
        def visit_Compare(self, node: ast.Compare) -> ast.expr:
            self.generic_visit(node)
            if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                return node
            sides = fast_unparse(node.left), fast_unparse(node.comparators[0])
            for one, other in (sides, sides[::-1]):
                if one in members and _NAMED.match(other) and other.rpartition(".")[0] == one.rpartition(".")[0]:
                    same = one == other
                    return ast.Constant(same if isinstance(node.ops[0], (ast.Eq, ast.Is)) else not same)
            return node

    return fast_unparse(_Decide().visit(tree))


def substitute(code: str, values: dict[str, str]) -> str | None:
    """`code` with each free name of `values` replaced by its value; None if it does not parse."""
    return _substituted(code, tuple(values.items()))


@lru_cache(maxsize=1 << 16)
def _substituted(code: str, values: tuple[tuple[str, str], ...]) -> str | None:
    """`substitute`, kept: chains of one function ask for the same conditions with the same values."""
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        return None
    given = dict(values)
    local = {n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}

    class _Replace(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if node.id in given and node.id not in local and isinstance(node.ctx, ast.Load):
                return ast.parse(given[node.id], mode="eval").body
            return node

    return fast_unparse(_Replace().visit(tree))


def _short(code: str, limit: int = 120) -> str:
    return code if len(code) <= limit else code[: limit - 1] + "…"


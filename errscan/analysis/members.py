"""A parameter annotated with an Enum class holds one of its members, and so does a property.

`def f(role: Role)` with `class Role(Enum): A = 0; B = 1` gives `role` the value `Role.A` or
`Role.B`, so `role != Role.A and role != Role.B` cannot hold. So does `self.role` in a method when
`role` is a `@property` whose return annotation names the class, in the method's class and in
every subclass (none binds the name otherwise, in its body or as another kind of method; a
`cached_property` may be assigned, so it is not read). Said only where every member is
written down as a constant (`extract/tables.constant_names`), the class is an `Enum` (not a `Flag`,
whose members combine into other values) with at least one member (one without may be subclassed,
and the subclasses' members come too), and the parameter is neither let be None (`Role | None`,
`Optional[Role]`, a default of None) nor assigned again in the body. Two members are not taken for
different values (an alias member has another's): the solver only learns that the parameter equals
one of them (`solver.one_of`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from errscan.analysis.solver import one_of, satisfiable
from errscan.graph.calls import CallGraph

_ENUMS = frozenset({"Enum", "IntEnum", "StrEnum"})
_FLAGS = frozenset({"Flag", "IntFlag"})  # their members combine into values that are no member


@dataclass(frozen=True)
class Domain:
    """The members a parameter annotated with an Enum class may hold."""

    parameter: str  # or `self.x` for a property
    spelled: str  # the class as the function's code writes it: `KVConnectorRole`
    members: tuple[str, ...]
    getter: str = ""  # the property's getter, for `self.x`

    @property
    def code(self) -> str:
        return one_of(self.parameter, tuple(f"{self.spelled}.{m}" for m in self.members))

    @property
    def why(self) -> str:
        listed = ", ".join(f"`{m}`" for m in self.members[:-1])
        members = f"{listed} and `{self.members[-1]}`" if listed else f"`{self.members[0]}`"
        only = "whose only members are" if len(self.members) > 1 else "whose only member is"
        source = f" (what the property `{self.getter.rsplit('.', 2)[-2]}.{self.getter.rsplit('.', 1)[-1]}` returns)" if self.getter else ""
        return f"`{self.parameter}` is a `{self.spelled}`{source}, an Enum {only} {members}"


def is_enum(graph: CallGraph, klass: str) -> bool:
    """Whether `klass`, a class of the tree, is an `Enum` whose members are values apart (no `Flag`)."""
    names = {base.rsplit(".", 1)[-1] for base in graph.index.bases(klass)}
    return bool(names & _ENUMS) and not names & _FLAGS


def enum_domains(graph: CallGraph, function: str) -> tuple[Domain, ...]:
    """The parameters of `function` that hold a member of an Enum class, each with its members,
    and the properties of `self` that do."""
    entry = graph.functions.get(function)
    if entry is None:
        return ()
    fact, module = entry
    none = {name for name, default in fact.defaults if default == "None"} | set(fact.nullable) | set(fact.rebound)
    found = []
    for name, annotation in fact.params:
        klass = graph.qualify(module, fact.scope, annotation) if annotation and name not in none else None
        members = _members(graph, klass)
        if members:
            found.append(Domain(name, annotation, members))
    return tuple(found) + _properties(graph, function)


def _members(graph: CallGraph, klass: str | None) -> tuple[str, ...]:
    """The members of `klass` when it is an Enum class of the tree whose members are all written."""
    held = graph.index.classes.get(klass) if klass else None
    return held[0].constants if held is not None and held[0].constants and is_enum(graph, klass) else ()


def _properties(graph: CallGraph, function: str) -> tuple[Domain, ...]:
    """`self.x` in the method `function`, for each property `x` of its class that every subclass
    keeps a `@property` returning members of one Enum class (the code's spelling of it known)."""
    fact, module = graph.functions[function]
    klass = fact.class_qualname
    if klass is None or not fact.params or fact.params[0][0] != "self" or "self" in fact.rebound \
            or {"staticmethod", "classmethod"} & set(fact.decorators):
        return ()
    family = [c for c in (*graph.mro(klass), *sorted(graph.subclasses.get(klass, ()))) if c in graph.index.classes]
    found = []
    for name in sorted({n for c in graph.mro(klass) for n in graph.methods.get(c, {})}):
        own, overrides = graph.dispatch(klass, name)
        getters = [g for g in (own, *overrides) if g]
        enums = {_returned_enum(graph, g) for g in getters}
        if not getters or len(enums) != 1 or None in enums or any(_binds(graph, c, name) for c in family):
            continue
        enum = enums.pop()
        spelled = next((s for s in (graph.functions[getters[0]][0].returns, enum.rsplit(".", 1)[-1])
                        if graph.qualify(module, fact.scope, s) == enum), None)
        if spelled:
            found.append(Domain(f"self.{name}", spelled, _members(graph, enum), getters[0]))
    return tuple(found)


def _returned_enum(graph: CallGraph, getter: str) -> str | None:
    """The Enum class (with its members written) a plain `@property` says it returns, never None."""
    fact, module = graph.functions[getter]
    if "property" not in fact.decorators or not fact.returns or fact.returns_none:
        return None
    klass = graph.qualify(module, fact.scope, fact.returns)
    return klass if _members(graph, klass) else None


def _binds(graph: CallGraph, klass: str, name: str) -> bool:
    """Whether the body of `klass` may bind `name` other than by a method (a class attribute)."""
    fact = graph.index.classes[klass][0]
    return fact.constants is None or name in fact.constants or any(f.name == name for f in fact.fields)


def read_in(code: str | None, domains: tuple[Domain, ...]) -> tuple[Domain, ...]:
    """The domains whose parameter `code` reads (as a name, not an attribute of something else)."""
    return tuple(d for d in domains if code and re.search(rf"(?<![\w.]){re.escape(d.parameter)}\b", code))


def ruled_out(code: str | None, earlier: tuple[str, ...], domains: tuple[Domain, ...]) -> str | None:
    """Why `code` (a site's own condition, deep, in the function of `domains`) cannot hold with its
    Enum parameters holding members; None when it still can."""
    read = read_in(code, domains)
    if not read or satisfiable(code, *earlier, *(d.code for d in read)) is not False:
        return None
    needed = [d for d in read if satisfiable(code, *earlier, d.code) is False] or read
    return f"`{code}` cannot hold, as " + "; and ".join(d.why for d in needed)


_MEMBER = re.compile(r"\b((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*)\.([A-Z][A-Z0-9_]*)\b")


def distinct_members(graph: CallGraph, codes: tuple[str, ...]) -> tuple[str, ...]:
    """`E.A != E.B` for each two members of an Enum class of the tree that `codes` (class names written
    qualified) name, where every member of the class is written down with its own string value: no
    member is then an alias of another (`ROLE.PRODUCER = "producer"`, `ROLE.CONSUMER = "consumer"`)."""
    named: dict[str, set[str]] = {}
    for code in codes:
        for found in _MEMBER.finditer(code):
            named.setdefault(found.group(1), set()).add(found.group(2))
    facts = []
    for klass, members in sorted(named.items()):
        values = _string_values(graph, klass) if len(members) > 1 else None
        if values is None or not members <= values.keys():
            continue
        ordered = sorted(members)
        facts += [f"{klass}.{a} != {klass}.{b}" for i, a in enumerate(ordered) for b in ordered[i + 1:]]
    return tuple(facts)


def _string_values(graph: CallGraph, klass: str) -> dict[str, str] | None:
    """Each member of the Enum class `klass` -> its string value, when all members have one and no
    two are equal; None otherwise."""
    members = _members(graph, klass)
    if not members:
        return None
    module = graph.index.classes[klass][1]
    scope = klass[len(module.module) + 1:]
    table = next((t for t in module.tables if t.scope == scope and not t.name), None)
    if table is None:
        return None
    values = {key: strings[0] for key, strings in zip(table.keys, table.strings) if len(strings) == 1}
    if not set(members) <= values.keys() or len({values[m] for m in members}) != len(members):
        return None
    return {m: values[m] for m in members}

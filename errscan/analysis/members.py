"""A parameter annotated with an Enum class holds one of its members.

`def f(role: Role)` with `class Role(Enum): A = 0; B = 1` gives `role` the value `Role.A` or
`Role.B`, so `role != Role.A and role != Role.B` cannot hold. Said only where every member is
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

    parameter: str
    spelled: str  # the class as the annotation writes it, and so the function's code: `KVConnectorRole`
    members: tuple[str, ...]

    @property
    def code(self) -> str:
        return one_of(self.parameter, tuple(f"{self.spelled}.{m}" for m in self.members))

    @property
    def why(self) -> str:
        listed = ", ".join(f"`{m}`" for m in self.members[:-1])
        members = f"{listed} and `{self.members[-1]}`" if listed else f"`{self.members[0]}`"
        only = "whose only members are" if len(self.members) > 1 else "whose only member is"
        return f"`{self.parameter}` is a `{self.spelled}`, an Enum {only} {members}"


def is_enum(graph: CallGraph, klass: str) -> bool:
    """Whether `klass`, a class of the tree, is an `Enum` whose members are values apart (no `Flag`)."""
    names = {base.rsplit(".", 1)[-1] for base in graph.index.bases(klass)}
    return bool(names & _ENUMS) and not names & _FLAGS


def enum_domains(graph: CallGraph, function: str) -> tuple[Domain, ...]:
    """The parameters of `function` that hold a member of an Enum class, each with its members."""
    entry = graph.functions.get(function)
    if entry is None:
        return ()
    fact, module = entry
    none = {name for name, default in fact.defaults if default == "None"} | set(fact.nullable) | set(fact.rebound)
    found = []
    for name, annotation in fact.params:
        klass = graph.qualify(module, fact.scope, annotation) if annotation and name not in none else None
        held = graph.index.classes.get(klass) if klass else None
        if held is not None and held[0].constants and is_enum(graph, klass):
            found.append(Domain(name, annotation, held[0].constants))
    return tuple(found)


def read_in(code: str | None, domains: tuple[Domain, ...]) -> tuple[Domain, ...]:
    """The domains whose parameter `code` reads (as a name, not an attribute of something else)."""
    return tuple(d for d in domains if code and re.search(rf"(?<![\w.]){d.parameter}\b", code))


def ruled_out(code: str | None, earlier: tuple[str, ...], domains: tuple[Domain, ...]) -> str | None:
    """Why `code` (a site's own condition, deep, in the function of `domains`) cannot hold with its
    Enum parameters holding members; None when it still can."""
    read = read_in(code, domains)
    if not read or satisfiable(code, *earlier, *(d.code for d in read)) is not False:
        return None
    needed = [d for d in read if satisfiable(code, *earlier, d.code) is False] or read
    return f"`{code}` cannot hold, as " + "; and ".join(d.why for d in needed)

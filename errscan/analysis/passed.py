"""What the makers of an object pass for an attribute a check compares: `self.engine_id` of a
`Topology(engine_id=self.engine_id, ...)` that a worker makes, whose own `engine_id` its maker passed
from `vllm_config.kv_transfer_config.engine_id`. Followed back through the calls that pass it
(constructors, `super().__init__(...)`, plain calls), to a setting every one of them agrees on."""

from __future__ import annotations

import keyword
import re
from dataclasses import replace

from errscan.analysis.bindings import substitute
from errscan.analysis.knobs import KnobCatalog, knobs_in
from errscan.analysis.reads import Source
from errscan.extract.conditions import Condition
from errscan.graph.calls import CallGraph, function_node
from errscan.profiles import Profile

MAX_DEPTH = 6  # calls followed back from the check to the setting
_SELF = re.compile(r"\bself\.(\w+)\b(?!\s*\()")  # `self.x` read, not a method called
_NAME = re.compile(r"[A-Za-z_]\w*")


class Passed:
    """Origins of attributes and parameters, for one package; built once."""

    def __init__(self, graph: CallGraph, catalog: KnobCatalog, profile: Profile, reads: dict[str, dict[str, list[Source]]]):
        self.graph, self.catalog, self.profile, self.reads = graph, catalog, profile, reads
        self.known: dict[tuple[str, str], Source | None] = {}  # (class, attribute)
        self.given: dict[tuple[str, str], Source | None] = {}  # (function, parameter)

    def attribute(self, klass: str, attribute: str) -> Source | None:
        """The setting `self.attribute` of an object of `klass` holds, as every maker passes it."""
        key = (klass, attribute)
        if key not in self.known:
            self.known[key] = self._attribute(klass, attribute, 0, set())
        return self.known[key]

    def parameter(self, function: str, name: str) -> Source | None:
        """The setting every call of `function` passes for its parameter `name`."""
        key = (function, name)
        if key not in self.given:
            self.given[key] = self._parameter(function, name, 0, set())
        return self.given[key]

    def _attribute(self, klass: str, attribute: str, depth: int, active: set[tuple[str, str]]) -> Source | None:
        if (klass, attribute) in active:
            return None  # a cycle gives nothing
        active = active | {(klass, attribute)}
        sources = next((self.reads[k][attribute] for k in self.graph.mro(klass) if attribute in self.reads.get(k, {})), None)
        if sources is not None:
            sources = _one_each(sources)
            return _agreed([s if knobs_in(s.code, self.catalog, self.profile) else self._value(
                s.code, function_node(s.module.module, s.scope), depth, active) for s in sources], self.catalog, self.profile)
        fact = self.graph.index.classes.get(klass, (None, None))[0]
        fields = [f.name for f in fact.fields if f.init] if fact is not None else []
        made = self.graph.lookup_method(klass, "__post_init__")  # a dataclass: its fields are its parameters
        if attribute not in fields or made is None or self.graph.lookup_method(klass, "__init__"):
            return None
        return self._passed(made, attribute, fields.index(attribute), depth, active)

    def _parameter(self, function: str, name: str, depth: int, active: set[tuple[str, str]]) -> Source | None:
        fact = self.graph.functions.get(function, (None, None))[0]
        params = [p for p, _ in fact.params] if fact is not None else []
        if name not in params:
            return None
        method = fact.class_qualname is not None and params[:1] in (["self"], ["cls"])
        if method and name == params[0]:
            return None  # the object itself (`helper(self)`), not a value its callers pass
        return self._passed(function, name, params.index(name) - method, depth, active)

    def _passed(self, function: str, name: str, position: int, depth: int, active: set[tuple[str, str]]) -> Source | None:
        """What every call of `function` passes for its parameter `name` (at `position`, not counting `self`)."""
        given = []
        if depth >= MAX_DEPTH:
            return None
        for caller in self.graph.graph.predecessors(function) if function in self.graph.graph else ():
            for site in self.graph.graph[caller][function]["sites"]:
                call = site.call
                if call is None or call.kind != "call" or site.resolution in ("thread", "process"):
                    return None  # handed over: what it is called with is not written here
                keywords = dict(call.keywords)
                if name in keywords:
                    given.append(self._value(keywords[name], caller, depth + 1, active))
                elif position < len(call.arguments) and not any(a.startswith("*") for a in call.arguments[:position + 1]):
                    given.append(self._value(call.arguments[position], caller, depth + 1, active))
                else:
                    return None  # a default, or `**kwargs`
        return _agreed(given, self.catalog, self.profile)

    def _value(self, code: str, where: str, depth: int, active: set[tuple[str, str]]) -> Source | None:
        """A value as written in the function `where`: a setting, `self.x` of its class, or its parameter."""
        entry = self.graph.functions.get(where, (None, None))
        if entry[0] is None:
            return None
        fact, module = entry
        if knobs_in(code, self.catalog, self.profile):
            return Source(code, module, fact.scope)
        held = _SELF.fullmatch(code)
        if held and fact.class_qualname:
            return self._attribute(fact.class_qualname, held.group(1), depth, active)
        return self._parameter(where, code, depth, active) if _NAME.fullmatch(code) else None


def _one_each(sources: list[Source]) -> list[Source]:
    """The sources without the helper-call form (`cfg.get_from_extra_config()`) of an assignment
    that is also read as the call it is (`cfg.get_from_extra_config("k", 16)`)."""
    calls = {s.code.split("(", 1)[0].rsplit(".", 1)[-1] for s in sources if not s.code.endswith("()")}
    return [s for s in sources if not (s.code.endswith("()") and s.code[:-2].rsplit(".", 1)[-1] in calls)]


def _agreed(sources: list[Source | None], catalog: KnobCatalog, profile: Profile) -> Source | None:
    """The one setting all of them read (by what it is, not how it is written); None if any differs."""
    if not sources or any(s is None for s in sources):
        return None
    read = {frozenset(k.name for k in knobs_in(s.code, catalog, profile)) for s in sources if s is not None}
    return sources[0] if len(read) == 1 else None


def completed(passed: Passed, node: str, settings: dict[str, list[Source]], code: str) -> dict[str, list[Source]]:
    """`settings` (what `self.x` holds in the function `node`) with, for each `self.x` that `code` reads
    and no method of the class set from a setting, the setting every maker of the object passes."""
    fact = passed.graph.functions.get(node, (None, None))[0]
    if fact is None or fact.class_qualname is None:
        return settings
    added = {}
    for attribute in dict.fromkeys(_SELF.findall(code)):
        if not any(knobs_in(s.code, passed.catalog, passed.profile) for s in settings.get(attribute, ())):
            found = passed.attribute(fact.class_qualname, attribute)
            if found is not None:
                added[attribute] = [found]
    return {**settings, **added} if added else settings


def parameters_read(passed: Passed, node: str, terms: Condition) -> Condition:
    """`terms` with each term that tests only parameters of the function `node` read, in its deep
    form, as the settings every call passes for them: `assert n > 0` in `AtomicCounter.__init__`,
    made with `AtomicCounter(self._numjobs)` where `self._numjobs` is the `hf3fs_client_numjobs` key.
    A term that mixes them with run-time values (`len(tokens) > blocks * block_size`) is not decided
    by the setting, and stays as it is."""
    fact = passed.graph.functions.get(node, (None, None))[0]
    if fact is None:
        return terms
    params = {name for name, _ in fact.params} - set(fact.rebound) - {"self", "cls"}
    read = []
    for term in terms:
        names = {name for name in term.names if not keyword.iskeyword(name)}  # `not x`, `x is None`
        sources = {name: passed.parameter(node, name) for name in names} if names and names <= params else {}
        values = {name: source.code for name, source in sources.items() if source is not None}
        deep = substitute(term.deep, values) if sources and len(values) == len(sources) and not term.pseudo else None
        read.append(replace(term, deep=deep) if deep else term)
    return tuple(read)

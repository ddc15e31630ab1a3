"""Settings behind `self.x`: what the methods of a class (its bases, the plugins that reach an
error, the objects a plugin makes) assign to its attributes, read back where a guard tests them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from errscan.analysis.entries import Plugin
from errscan.analysis.helpers import HelperSettings
from errscan.analysis.knobs import knobs_in
from errscan.extract.facts import ModuleFacts
from errscan.graph.calls import CallGraph, function_node
from errscan.model import Knob

@dataclass(frozen=True)
class Source:
    """Code a method assigns to `self.x`, and where it is written (what its names mean)."""

    code: str
    module: ModuleFacts
    scope: str


def attribute_reads(graph: CallGraph) -> dict[str, dict[str, list[Source]]]:
    """class qualname -> attribute -> what its methods assign to `self.attribute` that may read a
    setting: a dotted chain, a keyed call (`d.get("key", default)`), or a call of a function."""
    reads: dict[str, dict[str, list[Source]]] = {}
    for module in graph.index.modules.values():
        for read in module.attribute_reads:
            klass = function_node(module.module, read.class_scope)
            reads.setdefault(klass, {}).setdefault(read.attribute, []).append(Source(read.source, module, read.scope or read.class_scope))
        for typed in module.attribute_types:
            if typed.from_call and not typed.element:  # `self.x = helper(...)`: the helper may read a setting
                klass = function_node(module.module, typed.class_scope)
                reads.setdefault(klass, {}).setdefault(typed.attribute, []).append(Source(f"{typed.type}()", module, typed.scope))
    return reads


_HELD = re.compile(r"self\.(\w+)\.(\w+)")  # a field of an object the class holds


def held_codes(settings: dict[str, list[Source]], helpers: HelperSettings) -> dict[str, list[str]]:
    """What `self.x` may hold, as code only: the explanation reads its settings from the code. A
    helper's environment variable (`self.x = get_layout()`, which reads `envs.X`) is written as
    the read it is, so that the explanation finds it too."""
    modules = [m.rsplit(".", 1)[-1] for m in helpers.catalog.env_modules]
    codes: dict[str, list[str]] = {}
    for attribute, sources in settings.items():
        found = codes[attribute] = [source.code for source in sources]
        found += [built for source in sources if (held := _HELD.fullmatch(source.code))  # `self.cfg.x`, cfg built
                  for made in settings.get(held.group(1), []) if made.code.endswith("()")
                  if (built := helpers.built_field(made.code, held.group(2), made.module, made.scope))]
        if modules:
            found += [f"{modules[0]}.{knob.name}" for source in sources
                      for knob in helpers.called_in(source.code, source.module, source.scope) if knob.kind == "env"]
    for attribute, sources in settings.items():  # `self.cfg.x` read directly: what the built cfg holds in x
        for made in (s for s in sources if s.code.endswith("()")):
            for key, built in helpers.built_reads(attribute, made.code, made.module, made.scope).items():
                codes.setdefault(key, []).append(built)
    return codes


def class_reads(graph: CallGraph, node: str, reads: dict[str, dict[str, list[Source]]]) -> dict[str, list[Source]]:
    """What `self.x` may hold in the function `node`: reads by its class, nearest class first."""
    fact = graph.functions.get(node, (None, None))[0]
    if fact is None or fact.class_qualname is None:
        return {}
    found: dict[str, list[Source]] = {}
    for klass in graph.mro(fact.class_qualname):
        for attribute, sources in reads.get(klass, {}).items():
            found.setdefault(attribute, sources)
    return found


def plugin_reads(
    graph: CallGraph, plugins: list[Plugin], names: tuple[str, ...], reads: dict[str, dict[str, list[Source]]],
) -> dict[str, list[Source]]:
    """What the classes of the plugins that reach an error read into `self.x`: where a helper class
    raises, the plugin's own settings (its paths, its addresses) are still the user's to check."""
    found: dict[str, list[Source]] = {}
    for plugin in plugins:
        if plugin.name in names:
            for klass in graph.mro(plugin.klass):
                for attribute, sources in reads.get(klass, {}).items():
                    found.setdefault(attribute, sources)
    return found


def made_reads(graph: CallGraph, held: dict[str, list[Source]], reads: dict[str, dict[str, list[Source]]]) -> dict[str, list[Source]]:
    """What the objects a plugin makes itself (`self.scheduler = Scheduler(...)`) read into `self.x`:
    a lease its scheduler sets decides when its worker forgets a request."""
    made = [target.rpartition(".")[0] for sources in held.values() for source in sources if source.code.endswith("()")
            for target, how in graph.resolve_callee(source.module, source.scope, source.code[:-2], None) or () if how == "constructor"]
    found: dict[str, list[Source]] = {}
    for klass in dict.fromkeys(made):
        for base in graph.mro(klass):
            for attribute, sources in reads.get(base, {}).items():
                found.setdefault(attribute, sources)
    return found


_SELF_ATTRIBUTE = re.compile(r"\bself\.([A-Za-z_]\w*)\b(?!\s*\()")


def read_knobs(expression: str, settings: dict[str, list[Source]], helpers: HelperSettings) -> list[Knob]:
    """Knobs behind `self.x` in a guard, through the value a method of the class gave `self.x`."""
    return [
        knob
        for attribute in dict.fromkeys(_SELF_ATTRIBUTE.findall(expression))
        for source in settings.get(attribute, ())
        for knob in knobs_in(source.code, helpers.catalog, helpers.profile)
        + helpers.called_in(source.code, source.module, source.scope)
    ]

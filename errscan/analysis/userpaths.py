"""Where users enter the program directly, from the profile's hints: public API classes, command
classes the program dispatches to, and web routes, with the request fields a route's errors read.

Each is returned as a `Plugin` (its name the value a user writes: `serve`, `POST /v1/completions`)
so that chains and settings treat them alike. (Calls by name are `bynames.py`.)
"""

from __future__ import annotations

import re

from errscan.analysis.entries import Plugin
from errscan.extract.facts import ModuleFacts
from errscan.graph.calls import CallGraph
from errscan.model import Knob
from errscan.profiles import Profile, Routes


def class_plugins(graph: CallGraph, profile: Profile) -> list[Plugin]:
    found = []
    for entry in profile.entry_classes:
        klass = graph.index.canonical(entry.klass)
        if klass not in graph.index.classes:
            continue
        for target in sorted(graph.subclasses.get(klass, ())) if entry.subclasses else [klass]:
            name = _constant(graph, target, entry.name_attribute) if entry.name_attribute else None
            if entry.name_attribute and name is None:
                continue  # an abstract intermediate class: no command of its own
            methods = entry.methods or public_methods(graph, target)
            found.append(Plugin(name or target.rsplit(".", 1)[1], entry.kind, target, (), entry.setting, ("__init__", *methods)))
    return found


def public_methods(graph: CallGraph, klass: str) -> tuple[str, ...]:
    """The public methods a class has, its bases' in the tree included."""
    return tuple(sorted({m for c in graph.mro(klass) for m in graph.methods.get(c, {}) if not m.startswith("_")}))


def _constant(graph: CallGraph, klass: str, attribute: str) -> str | None:
    """The string a class (or its nearest base) binds `attribute` to in its body."""
    for owner in graph.mro(klass):
        fact, module = graph.index.classes[owner]
        scope = owner[len(module.module) + 1 :]
        declared = next((f.literal for f in fact.fields if f.name == attribute and f.literal), None)
        if declared and declared[:1] in "'\"":  # `device_name: str = "cuda"`
            return declared[1:-1]
        for table in module.tables:
            if table.scope == scope and not table.name and attribute in table.keys:
                value = table.strings[table.keys.index(attribute)]
                return value[0] if len(value) == 1 else None
    return None


def route_plugins(graph: CallGraph, routes: Routes | None) -> list[Plugin]:
    """Each function a router's `<verb>("/path")` decorator registers, named `VERB /path`."""
    if routes is None:
        return []
    found = []
    for module in sorted(graph.index.modules.values(), key=lambda m: m.module):
        for call in module.calls:
            head, _, verb = call.callee.rpartition(".")
            if call.kind != "call" or verb not in routes.verbs or not _is_router(graph, module, call.caller, head, routes):
                continue
            function = _decorated(module, call.caller, call.callee, call.line)
            if function is not None:
                path = call.literal_args[0] if call.literal_args and call.literal_args[0] else "?"
                name = path if verb in ("api_route",) else f"{verb.upper()} {path}"
                found.append(Plugin(name, "route", function, ()))
    return found


def _is_router(graph: CallGraph, module: ModuleFacts, scope: str, head: str, routes: Routes) -> bool:
    made = (module.module_values or {}).get(head, "")
    return made.endswith("()") and graph.qualify(module, "", made[:-2]) in routes.factories


def _decorated(module: ModuleFacts, scope: str, decorator: str, line: int) -> str | None:
    """The function right after `line` in `scope` that `decorator` decorates."""
    prefix = f"{scope}." if scope else ""
    following = [
        f for f in module.functions
        if f.line > line and decorator in f.decorators and f.scope.startswith(prefix) and "." not in f.scope[len(prefix):]
    ]
    return min(following, key=lambda f: f.line).qualname if following else None


def request_fields(graph: CallGraph, profile: Profile, node: str, expression: str) -> list[Knob]:
    """Fields of a web request's body that `expression` reads in the function `node`
    (`request.max_tokens`, `request` a parameter typed by a subclass of the routes' request base)."""
    base = profile.routes.request_base if profile.routes else ""
    entry = graph.functions.get(node)
    if not base or entry is None or not expression:
        return []
    fact, module = entry
    found = []
    for param, annotation in fact.params:
        klass = graph.qualify(module, fact.scope, annotation) if annotation else None
        if klass not in graph.index.classes or base not in {c.rsplit(".", 1)[-1] for c in graph.ancestry(klass)}:
            continue
        fields = {f.name for c in graph.mro(klass) for f in graph.index.classes[c][0].fields}
        for name in dict.fromkeys(re.findall(rf"\b{re.escape(param)}\.([A-Za-z_]\w*)", expression)):
            if name in fields:
                found.append(Knob("request_field", name, klass.rsplit(".", 1)[1]))
    return found

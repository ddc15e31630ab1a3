"""Plugins the program picks by looking a user's setting up in a table, and their companions.

A profile's `Table` names a table the program really looks names up in (a model architecture in
`{"LlamaForCausalLM": ("llama", "LlamaForCausalLM")}`, a `--quantization` value in a function's
`{"fp8": Fp8Config}`, an enum's `FLASH = "pkg.flash.FlashBackend"`); each key whose value names a
class of the tree is a plugin of that class. `**OTHER` entries are followed. A `Companions`
decorator on a plugin class (`@R.register_processor(Processor, info=Info)`) makes the classes passed
to it plugins under the decorated class's names: the program uses them whenever it uses the class.
A `Decorated` registry (`@LOADERS.register("opencv")` on a class) names plugins by the decorator.
"""

from __future__ import annotations

from errscan.analysis.entries import Plugin
from errscan.analysis.userpaths import public_methods
from errscan.extract.facts import ModuleFacts, TableFact
from errscan.graph.calls import CallGraph
from errscan.profiles import Companions, Decorated, Profile, Table

_MAX_INCLUDES = 32


def table_plugins(graph: CallGraph, profile: Profile) -> list[Plugin]:
    found: list[Plugin] = []
    tables = _tables(graph)
    for table in profile.tables:
        for key, klass in _entries(graph, tables, table, table.table, 0):
            found.append(Plugin(key, table.kind, klass, (), table.setting, _called(graph, klass, table.methods, table.interface)))
            for method, interface in table.returned:
                for made in _made(graph, graph.lookup_method(klass, method), interface):
                    found.append(Plugin(key, table.kind, made, (), table.setting, _family(graph, made, interface)))
    for registry in profile.decorated:
        found += _decorated(graph, registry)
    for companions in profile.companions:
        found += _companions(graph, companions, found)
    return found


def _tables(graph: CallGraph) -> dict[str, list[tuple[TableFact, ModuleFacts]]]:
    """Qualified table name -> its facts (a class's constants: one per class)."""
    found: dict[str, list[tuple[TableFact, ModuleFacts]]] = {}
    for module in graph.index.modules.values():
        for fact in module.tables:
            name = ".".join(p for p in (module.module, fact.scope, fact.name) if p)
            found.setdefault(name, []).append((fact, module))
    return found


def _entries(graph: CallGraph, tables: dict, table: Table, name: str, depth: int) -> list[tuple[str, str]]:
    """(key, class) of the table `name`, its `**` includes followed."""
    found = []
    for fact, module in tables.get(name, ()):
        for key, strings, named in zip(fact.keys, fact.strings, fact.names):
            found += [(key, klass) for klass in _classes_of(graph, module, fact.scope, table.module_prefix, strings, named)]
        for included in fact.includes if depth < _MAX_INCLUDES else ():
            target = graph.qualify(module, fact.scope, included)
            if target:
                found += _entries(graph, tables, table, target, depth + 1)
    return found


def _classes_of(graph: CallGraph, module: ModuleFacts, scope: str, prefix: str, strings: tuple[str, ...], named: str | None) -> list[str]:
    """The class a value names: a dotted name as the scope sees it, `("module", "Class")`, or
    `"module.Class"`; a module the tree has under the name as written, else under `prefix`. A
    module that imports the class from one place or another (per platform) names each."""
    if named is not None:
        targets = [graph.qualify(module, scope, named)]
    elif len(strings) == 2:
        written = strings[0] if strings[0] in graph.index.modules else prefix + strings[0]
        targets = graph.index.alternatives(f"{written}.{strings[1]}")
    elif len(strings) == 1 and "." in strings[0]:
        targets = graph.index.alternatives(prefix + strings[0] if prefix and not _in_tree(graph, strings[0]) else strings[0])
    else:
        return []
    return [t for t in targets if t in graph.index.classes]


def _in_tree(graph: CallGraph, dotted: str) -> bool:
    return dotted.rpartition(".")[0] in graph.index.modules


def _companions(graph: CallGraph, companions: Companions, plugins: list[Plugin]) -> list[Plugin]:
    """The classes passed to a `companions` decorator of a plugin class, as plugins of its names."""
    by_class: dict[str, list[Plugin]] = {}
    for plugin in plugins:
        by_class.setdefault(plugin.klass, []).append(plugin)
    found = []
    for klass, owners in by_class.items():
        fact, module = graph.index.classes[klass]
        decorators = [d for d in fact.decorators if d.rsplit(".", 1)[-1] == companions.method]
        if not decorators:
            continue
        scope = fact.qualname[len(module.module) + 1 :].rpartition(".")[0]
        start = max((c.line for c in module.classes if c.line < fact.line), default=0)
        for call in module.calls:
            callee, _, _ = (call.passed_to or "").rpartition(":")
            if call.kind != "reference" or callee not in decorators or call.caller != scope or not start < call.line < fact.line:
                continue
            target = graph.qualify(module, scope, call.callee)
            if target in graph.index.classes:
                methods = companions.methods or public_methods(graph, target)
                found += [Plugin(p.name, p.kind, target, p.condition, p.setting, methods) for p in owners]
    return found


def _called(graph: CallGraph, klass: str, methods: tuple[str, ...], interface: str) -> tuple[str, ...]:
    """The given methods, and every method of the interface class the plugin has."""
    bases = [b for b in graph.mro(klass) if b.rsplit(".", 1)[-1] == interface] if interface else []
    own = sorted(graph.methods.get(bases[0], {})) if bases else []
    return tuple(dict.fromkeys([*methods, *own]))


def _made(graph: CallGraph, function: str | None, interface: str) -> list[str]:
    """The classes under `interface` that a method returns (`return FlashImpl`) or constructs
    (`return Fp8LinearMethod(self)`): not its annotation's subclasses, which may be any."""
    if function is None:
        return []
    fact, module = graph.functions[function]
    named = [graph.qualify(module, fact.scope, r.value) for r in module.returns if r.scope == fact.scope and r.value]
    built = [graph.functions[c][0].class_qualname for c, sites in graph.graph[function].items()
             if any(s.resolution == "constructor" for s in sites["sites"])] if function in graph.graph else []
    return [k for k in dict.fromkeys(named + built) if k in graph.index.classes and _under(graph, k, interface)]


def _under(graph: CallGraph, klass: str, interface: str) -> bool:
    return any(b.rsplit(".", 1)[-1] == interface for b in graph.mro(klass))


def _family(graph: CallGraph, klass: str, interface: str) -> tuple[str, ...]:
    """The public methods of a class made for an interface, from the classes under it in its MRO
    (`forward`, and an MLA implementation's `forward_mqa`)."""
    return tuple(sorted({m for c in graph.mro(klass) if _under(graph, c, interface)
                         for m in graph.methods.get(c, {}) if not m.startswith("_")}))


def _decorated(graph: CallGraph, registry: Decorated) -> list[Plugin]:
    """Classes decorated by `@<registry>.<method>("name")`, each under its literal name."""
    found = []
    for module in graph.index.modules.values():
        for call in module.calls:
            head, _, method = call.callee.rpartition(".")
            if call.kind != "call" or method != registry.method or not call.literal_args or not call.literal_args[0]:
                continue
            if graph.qualify(module, call.caller, head) != registry.registry:
                continue
            following = [c for c in module.classes if c.line > call.line and call.callee in c.decorators]
            if following:
                klass = min(following, key=lambda c: c.line).qualname
                methods = registry.methods or public_methods(graph, klass)
                found.append(Plugin(call.literal_args[0], registry.kind, klass, (), registry.setting, methods))
    return found

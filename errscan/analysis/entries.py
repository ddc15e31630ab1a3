"""Entry points: where a running program enters the package's code, found from the profile's hints.

- plugin classes named in a registry (`register_connector("Name", "module", "Class")`): their
  `__init__` and the classmethods some call of the package names, and the interface methods the
  core calls on them;
- any other function of the plugin package that the core (code outside it) calls;
- config validation: `__post_init__` and `*validator`-decorated methods of config classes;
- a module's own `if __name__ == "__main__":` code, and the target of a new process;
- the plugins of the profile's user paths (`tables.py`, `userpaths.py`): their `__init__`,
  classmethods and the methods the program calls on them; a route's function and the validators
  of the request bodies it takes.
A registered name may resolve through a module attribute assigned from a function call; then the
classes that function returns are the plugins, each under the condition of its `return`.
"""

from __future__ import annotations

from dataclasses import dataclass

from errscan.analysis.bindings import Bound, Values
from errscan.analysis.declared import short_name, typed_class
from errscan.extract.conditions import Condition, either
from errscan.extract.facts import FunctionFact, ModuleFacts
from errscan.graph.calls import CallGraph, function_node
from errscan.profiles import Profile, Registry


@dataclass(frozen=True)
class Plugin:
    name: str  # the registered name users write
    kind: str  # e.g. "connector"
    klass: str  # qualified class (a route's function)
    condition: Condition  # when the name resolves to this class ((): always)
    setting: str = ""  # where users write the name, e.g. "kv_connector", "--quantization"
    methods: tuple[str, ...] = ()  # methods the program calls on the class, besides the interface's


# The entry kinds found without the profile's user paths (those declare their own kinds).
BUILTIN_KINDS = frozenset({"connector-init", "connector-interface", "core-call", "config-validation", "main"})


@dataclass(frozen=True)
class Entry:
    node: str
    kind: str  # "connector-init", "connector-interface", "core-call", "config-validation", "main", "process",
    # or a user path's kind ("model", "route", "command", ...)
    plugins: tuple[Plugin, ...]  # the plugins this entry belongs to (none for config and main)
    declared: Values = ()  # its parameters bound on entry: a plugin's as its interface declares them


def find_plugins(graph: CallGraph, profile: Profile) -> list[Plugin]:
    plugins: list[Plugin] = []
    for module in sorted(graph.index.modules.values(), key=lambda m: m.module):
        for call in module.calls:
            if call.caller:
                continue
            for registry in profile.registries:
                if not call.callee.endswith(registry.method.rsplit(".", 1)[1]):
                    continue
                targets = graph.resolve(module, call) or []
                if any(t.endswith("." + registry.method) for t, _ in targets):
                    plugins.extend(_registered(graph, registry, call.literal_args, profile.plugin_setting))
    return _merged(plugins)


def _merged(plugins: list[Plugin]) -> list[Plugin]:
    """One plugin per (name, class): a class returned on several paths is chosen when any holds."""
    grouped: dict[tuple[str, str, str, str, tuple[str, ...]], list[Condition]] = {}
    for plugin in plugins:
        grouped.setdefault((plugin.name, plugin.kind, plugin.klass, plugin.setting, plugin.methods), []).append(plugin.condition)
    merged = []
    for (name, kind, klass, setting, methods), conditions in grouped.items():
        merged.append(Plugin(name, kind, klass, () if () in conditions else (either(conditions),), setting, methods))
    return merged


def _registered(graph: CallGraph, registry: Registry, args: tuple[str | None, ...], setting: str) -> list[Plugin]:
    needed = max(registry.name_arg, registry.module_arg, registry.class_arg)
    if len(args) <= needed or None in (args[registry.name_arg], args[registry.module_arg], args[registry.class_arg]):
        return []
    name, module, attribute = args[registry.name_arg], args[registry.module_arg], args[registry.class_arg]
    target = graph.index.canonical(f"{module}.{attribute}")
    if target in graph.index.classes:
        return [Plugin(name, registry.kind, target, (), setting)]
    facts = graph.index.modules.get(module)
    produced = (facts.module_values or {}).get(attribute, "") if facts else ""
    if not produced.endswith("()"):
        return []
    return [Plugin(name, registry.kind, klass, when, setting) for klass, when in _returned_classes(graph, facts, produced[:-2])]


def _returned_classes(graph: CallGraph, module: ModuleFacts, function: str) -> list[tuple[str, Condition]]:
    """Classes of the tree that a module-level function returns, each with its return's condition."""
    scope = function
    if function_node(module.module, scope) not in graph.functions:
        return []
    found = []
    for ret in module.returns:
        if ret.scope != scope or ret.value is None:
            continue
        klass = graph.qualify(module, scope, ret.value)
        if klass in graph.index.classes:
            found.append((klass, ret.condition))
    return found


def find_entries(graph: CallGraph, profile: Profile, plugins: list[Plugin]) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}

    def add(node: str | None, kind: str, plugin: Plugin | None) -> None:
        if node is None:
            return
        known = entries.get(node)
        owners = (known.plugins if known else ()) + ((plugin,) if plugin and (not known or plugin not in known.plugins) else ())
        kind = known.kind if known else kind
        declared = interface_declared(graph, profile, node) if kind == "connector-init" else ()
        entries[node] = Entry(node, kind, owners, declared)

    called = _names_called(graph)
    for plugin in plugins:
        if plugin.klass in graph.functions:  # a route: the function, and its body's validation
            add(plugin.klass, plugin.kind, plugin)
            for validator in body_validators(graph, profile, plugin.klass):
                add(validator, plugin.kind, plugin)
            continue
        registered = plugin.kind in {r.kind for r in profile.registries}
        made = "connector-init" if registered else plugin.kind
        add(graph.lookup_method(plugin.klass, "__init__"), made, plugin)
        for klass in graph.mro(plugin.klass):
            for method, qualname in sorted(graph.methods.get(klass, {}).items()):
                fact = graph.functions[qualname][0]
                if "classmethod" in fact.decorators and graph.lookup_method(plugin.klass, method) == qualname and method in called:
                    add(qualname, made, plugin)
        for method in plugin.methods:
            add(graph.lookup_method(plugin.klass, method), plugin.kind, plugin)
        for base in _interface_bases(graph, profile, plugin.klass) if registered else ():
            for method, qualname in sorted(graph.methods.get(base, {}).items()):
                own = graph.lookup_method(plugin.klass, method)
                # a call on the base whose own method no object runs goes to the overrides alone
                if _called_from_core(graph, profile, qualname) or (base, method) in graph.dropped and _called_from_core(graph, profile, own):
                    add(own, "connector-interface", plugin)
    for qualname in sorted(graph.functions):
        if qualname.startswith(profile.plugin_package + ".") and _called_from_core(graph, profile, qualname):
            add(qualname, "core-call", None)
    for qualname, (fact, module) in sorted(graph.functions.items()):
        if module.module.startswith(profile.config_package) and validates(fact):
            add(qualname, "config-validation", None)
    for module in graph.index.modules.values():
        if _has_main_guard(module):
            add(function_node(module.module, ""), "main", None)
    for caller, callee, sites in graph.graph.edges(data="sites"):
        if any(site.resolution == "process" for site in sites):  # a new process starts there
            add(callee, "process", None)
    return entries


def interface_declared(graph: CallGraph, profile: Profile, node: str) -> Values:
    """The parameters of a plugin's `__init__` that its interface's `__init__` types with a class of
    the package (`kv_cache_config: KVCacheConfig`): the core builds the plugin through the
    interface (the factory's `connector_cls(config, role, kv_cache_config)`, a group's for its parts),
    so each is passed an object of that class, as far as the annotation holds; never None."""
    fact = graph.functions[node][0]
    if not node.endswith(".__init__") or fact.class_qualname is None:
        return ()
    found: dict[str, Bound] = {}
    own = [name for name, _ in fact.params]
    for base in reversed(_interface_bases(graph, profile, fact.class_qualname)):
        interface = graph.methods.get(base, {}).get("__init__")
        declared = [name for name, _ in graph.functions[interface][0].params] if interface else []
        for name, _ in graph.functions[interface][0].typed if interface else ():
            typed = typed_class(graph, interface, name)
            # the same parameter by name and place: the package may pass it either way
            if typed is not None and name in own and own.index(name) == declared.index(name) and name not in fact.rebound:
                found[name] = Bound(typed[0], f"the interface `{short_name(interface)}` declares `{name}: {typed[1]}`, "
                                              "and the package builds each registered class through it", built=True)
    return tuple(sorted(found.items()))


def _names_called(graph: CallGraph) -> frozenset[str]:
    """The last name of every call and function reference in the package, resolved or not: a
    classmethod no call names (`x.m()`, `cls.m()`, a callback `x.m`) is run by nothing there, so
    it is no entry point (it would start chains to errors nothing can raise)."""
    return frozenset(call.callee.rsplit(".", 1)[-1] for module in graph.index.modules.values() for call in module.calls)


def body_validators(graph: CallGraph, profile: Profile, function: str) -> list[str]:
    """The validators of the request bodies a route function takes (parameters typed by a subclass
    of the routes' request base): the web framework runs them on the request before the function."""
    base = profile.routes.request_base if profile.routes else ""
    fact, module = graph.functions[function]
    found = []
    for _, annotation in fact.params if base else ():
        klass = graph.qualify(module, fact.scope, annotation) if annotation else None
        if klass in graph.index.classes and base in {c.rsplit(".", 1)[-1] for c in graph.ancestry(klass)}:
            found += [q for c in graph.mro(klass) for q in graph.methods.get(c, {}).values() if validates(graph.functions[q][0])]
    return list(dict.fromkeys(found))


def plugin_lookups(graph: CallGraph, profile: Profile) -> frozenset[tuple[str, str]]:
    """Edges that call a method (or the constructor) of a plugin class looked up at run time
    (resolution `returned-class`, into a class with one of the profile's interface bases): the
    class looked up is the configured plugin's, so from a plugin's entry points only its own."""
    found = set()
    for caller, callee, sites in graph.graph.edges(data="sites"):
        if sites[0].resolution == "returned-class" and all(s.resolution == "returned-class" for s in sites):
            klass = graph.functions[callee][0].class_qualname
            if klass and _interface_bases(graph, profile, klass):
                found.add((caller, callee))
    return frozenset(found)


def validates(fact: FunctionFact) -> bool:
    """A method that checks (and completes) an object once it is built: a dataclass's
    `__post_init__`, or a `*validator`-decorated method (pydantic's `model_validator`...)."""
    if not fact.class_qualname:
        return False
    return fact.qualname.endswith(".__post_init__") or any(d.endswith("validator") for d in fact.decorators)


def _interface_bases(graph: CallGraph, profile: Profile, klass: str) -> list[str]:
    return [b for b in graph.mro(klass) if b.rsplit(".", 1)[1] in profile.interface_bases]


def _called_from_core(graph: CallGraph, profile: Profile, qualname: str) -> bool:
    if qualname not in graph.graph:
        return False
    return any(not caller.startswith(profile.plugin_package + ".") for caller in graph.graph.predecessors(qualname))


def _has_main_guard(module: ModuleFacts) -> bool:
    return any(
        not s.caller and s.condition and s.condition[0].raw in ("__name__ == '__main__'", '__name__ == "__main__"')
        for s in module.calls
    )

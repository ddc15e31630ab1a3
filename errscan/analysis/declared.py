"""Arguments never None by the type their caller declares for them (`bindings.carried`, asked for
what the known callers of a core-call entry point pass it: `chains.Called`).

A call that passes on its caller's parameter annotated with a class of the package (`kv_cache_config:
KVCacheConfig`: neither `X | None` nor `Optional[X]`, no default, never assigned again) passes an
object of that class as far as the annotation holds: never None. So does a method that passes
`self.a` when every write of `a` on `self` in its class, its bases and its subclasses assigns such a
parameter, and one of them is a statement of the method's own body before the call (so `a` is set
there, and to no class-level default). A write of `a` on another object (`x.a = v`), or on `self`
through a computed name (`setattr(self, name, v)`) in a related class, leaves it unknown; a
computed name on an object of no known class, in a module that neither defines nor imports the
class or a base of it, is taken to write other objects (as `settled.py` does), as is one on a
parameter typed with an unrelated class (`setattr(parallel_config, key, value)`).
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from errscan.extract.facts import AttributeStore, ModuleFacts
from errscan.graph.calls import CallGraph
from errscan.graph.index import function_node


def declared(graph: CallGraph, caller: str, text: str, site_line: int) -> tuple[str, str] | None:
    """The class (short name) and why, when the argument `text` that `caller` passes at `site_line`
    is never None by its declared type; None when that is not known."""
    entry = graph.functions.get(caller)
    if entry is None:
        return None
    fact, module = entry
    if text.isidentifier():
        klass = typed_class(graph, caller, text)
        return (klass[0], f"the parameter `{text}: {klass[1]}` of `{short_name(caller)}`") if klass else None
    head, _, attribute = text.partition(".")
    if head != "self" or not attribute.isidentifier() or fact.class_qualname is None:
        return None
    own = graph._instance_class(module, fact.scope, "self")
    writes = _stores(graph).get(attribute, ()) + _stores(graph).get("*", ())
    found, before = [], False
    for where, store in writes:
        owner = graph._instance_class(where, store.scope, "self") if store.receiver == "self" else None
        if owner is not None and own is not None and _unrelated(graph, owner, own):
            continue
        if store.attribute == "*" and owner is None and (not _names(graph, where, own) or _other(graph, where, store, own)):
            continue  # a name computed on another object (`setattr(layer, name, w)`)
        writer = function_node(where.module, store.scope)
        klass = typed_class(graph, writer, store.value) if owner is not None and store.value else None
        if klass is None:
            return None
        found.append((klass, where, store))
        before |= writer == caller and store.always and store.line < site_line
    if not found or not before:
        return None
    (klass, annotation), where, store = next(f for f in found if function_node(f[1].module, f[2].scope) == caller)
    line = f"{graph.paths.get(where.module, where.module).rsplit('/', 1)[-1]}:{store.line}"
    others = "" if len(found) == 1 else f" (its {len(found) - 1} other writes also assign parameters typed so)"
    return klass, (f"`{text}`, set at {line} from the parameter `{store.value}: {annotation}` of `{short_name(caller)}`{others}, "
                   f"and nowhere else")


def typed_class(graph: CallGraph, function: str, name: str) -> tuple[str, str] | None:
    """(class short name, annotation) of `function`'s parameter `name` when it is typed with a class
    of the package and never assigned again (`FunctionFact.typed`)."""
    entry = graph.functions.get(function)
    if entry is None or name in entry[0].rebound:
        return None
    fact, module = entry
    annotation = dict(fact.typed).get(name)
    klass = graph.qualify(module, fact.scope, annotation) if annotation else None
    return (klass.rsplit(".", 1)[-1], annotation) if klass in graph.index.classes else None


def _names(graph: CallGraph, module: ModuleFacts, klass: str | None) -> bool:
    """Whether `module` defines or imports `klass` or one of its bases (None: any class)."""
    if klass is None:
        return True
    classes = set(graph.mro(klass))
    return any(c.rpartition(".")[0] == module.module for c in classes) or \
        any(graph.index.canonical(target) in classes for names in module.imports.values() for target in names.values())


def _other(graph: CallGraph, module: ModuleFacts, store: AttributeStore, klass: str | None) -> bool:
    """Whether the store's receiver is a parameter typed with a class of the tree unrelated to `klass`."""
    fact = graph.functions.get(function_node(module.module, store.scope), (None,))[0]
    annotation = dict(fact.params).get(store.receiver) if fact is not None and store.receiver not in fact.rebound else None
    typed = graph.qualify(module, fact.scope, annotation) if annotation else None
    return klass is not None and typed in graph.index.classes and _unrelated(graph, typed, klass)


def _unrelated(graph: CallGraph, one: str, other: str) -> bool:
    return one not in graph.mro(other) and other not in graph.mro(one)


@lru_cache(maxsize=2)
def _stores(graph: CallGraph) -> dict[str, tuple[tuple[ModuleFacts, AttributeStore], ...]]:
    """Every attribute write of the package, by attribute ("*": a computed name)."""
    found: dict[str, list[tuple[ModuleFacts, AttributeStore]]] = defaultdict(list)
    for module in graph.index.modules.values():
        for store in module.attribute_stores:
            found[store.attribute].append((module, store))
    return {attribute: tuple(writes) for attribute, writes in found.items()}


def short_name(qualname: str) -> str:
    """`Class.method` (or `module.function`) of a qualified name."""
    return ".".join(qualname.rsplit(".", 2)[-2:])

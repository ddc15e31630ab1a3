"""Fields of an object a class builds once: `self.topo.tp_size` is `self.tp_size` in the class's methods.

In a method of class C (not `__init__`, nor what it runs), the field `f` of the object `self.b`
holds the caller's own `self.c` when:

- `self.b = T(..., f=self.c, ...)` (`f` given by keyword) is a statement of C's own `__init__`
  (in no branch), T a dataclass of the package that declares `f` and defines no `__init__` of its
  own (so its generated one stores the keyword as given), and C has no subclasses;
- nothing else stores an attribute named `b`, and nothing stores `f` on a T object: no
  `self.f = ...` in T or its bases (`__post_init__` among them);
- `self.c` is stored in C only by `__init__`, in no branch, before `self.b` is built.

A store of `f` (or `c`) on any other receiver (`x.f = ...`), and one through `setattr`, counts
in the modules that name T (or C): its own and those importing it; elsewhere it is taken to write
other objects, the one limit of what is seen (as `settled.py` takes it). Anything else makes no
statement.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from errscan.extract.facts import AttributeStore, ModuleFacts
from errscan.graph.calls import CallGraph


class BuiltFields:
    def __init__(self, graph: CallGraph):
        self.graph = graph
        self._stores: dict[str, list[tuple[ModuleFacts, AttributeStore]]] = defaultdict(list)  # attribute -> writes
        self._naming: dict[str, set[str]] = defaultdict(set)  # class -> modules that import it
        self._found: dict[tuple[str, str, str], tuple[str, str] | None] = {}  # many chains ask the same
        for module in graph.index.modules.values():
            for store in module.attribute_stores:
                self._stores[store.attribute].append((module, store))
            for names in module.imports.values():
                for target in names.values():
                    self._naming[graph.index.canonical(target)].add(module.module)

    def equal(self, caller: str, attribute: str, field: str) -> tuple[str, str] | None:
        """What `self.<attribute>.<field>` equals in `caller` (`self.c`), and where the object is
        built; None when the rules above do not prove it."""
        key = (caller, attribute, field)
        if key not in self._found:
            self._found[key] = self._equal(caller, attribute, field)
        return self._found[key]

    def _equal(self, caller: str, attribute: str, field: str) -> tuple[str, str] | None:
        graph = self.graph
        fact = graph.functions[caller][0] if caller in graph.functions else None
        klass = fact.class_qualname if fact is not None else None
        init = f"{klass}.__init__"
        if klass is None or graph.subclasses.get(klass) or init not in graph.functions or caller == init:
            return None
        if init in graph.graph and caller in nx.descendants(graph.graph, init):
            return None
        writes = [(home, store) for home, store in self._stores.get(attribute, []) + self._stores.get("*", [])
                  if not self._elsewhere(home, store, klass)]
        if len(writes) != 1:
            return None
        module, write = writes[0]
        init_fact, init_module = graph.functions[init]
        if module is not init_module or write.scope != init_fact.scope or write.receiver != "self" or not write.always:
            return None
        built = self._built(init_module, write, field)
        if built is None:
            return None
        made, value = built
        if not self._field_kept(made, field) or not self._set_before(klass, init_module, write, value[len("self."):]):
            return None
        return value, f"{init_module.module.rsplit('.', 1)[-1]}.py:{write.line}"

    def _built(self, module: ModuleFacts, write: AttributeStore, field: str) -> tuple[str, str] | None:
        """The dataclass `write` stores an object of, and `self.c` its `field` is given."""
        calls = [c for c in module.calls if c.caller == write.scope and c.line == write.line and c.kind == "call"]
        if len(calls) != 1:
            return None
        call = calls[0]
        made = self.graph.qualify(module, call.caller, call.callee)
        value = dict(call.built).get(field) or dict(call.keywords).get(field, "")  # `self.c` as written
        entry = self.graph.index.classes.get(made) if made else None
        klass = entry[0] if entry is not None else None
        if klass is None or made is None or not value.startswith("self.") or not value[len("self."):].isidentifier():
            return None
        if not any(d.split("(")[0].rsplit(".", 1)[-1] == "dataclass" and "init=False" not in d for d in klass.decorators):
            return None
        if "__init__" in klass.methods or field not in {f.name for f in klass.fields if f.init}:
            return None
        return made, value

    def _field_kept(self, made: str, field: str) -> bool:
        """Whether nothing stores `field` on an object of the class `made` once it is built."""
        return all(self._elsewhere(module, store, made) for module, store in self._stores.get(field, []) + self._stores.get("*", []))

    def _set_before(self, klass: str, module: ModuleFacts, write: AttributeStore, attribute: str) -> bool:
        """Whether `self.<attribute>` of `klass` is stored only by `__init__`, in no branch, before `write`."""
        for home, store in self._stores.get(attribute, []) + self._stores.get("*", []):
            if self._elsewhere(home, store, klass):
                continue
            if home is not module or store.scope != write.scope or store.receiver != "self" or not store.always \
                    or store.line >= write.line or store.attribute != attribute:
                return False
        return True

    def _elsewhere(self, module: ModuleFacts, store: AttributeStore, klass: str) -> bool:
        """Whether `store` writes an object other than one of `klass`: on `self` of a class neither
        `klass`, nor a base or a subclass of it; on another receiver (or a `self` of no known class)
        in a module that does not name `klass`."""
        owner = self.graph._instance_class(module, store.scope, "self") if store.receiver == "self" else None
        if owner is not None:
            return owner not in self.graph.mro(klass) and klass not in self.graph.mro(owner)
        return module.module not in self._naming.get(klass, ()) and module.module != klass.rsplit(".", 1)[0]
